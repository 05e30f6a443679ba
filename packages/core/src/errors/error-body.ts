import { a2aCodeForReason } from './a2a-errors.js';
import { isObject } from '../util/is-object.js';

/** An agent-reported error found in a body, before it becomes an `A2AError`. */
export interface ParsedAgentError {
  a2aCode: number;
  message: string;
  data?: unknown;
  reason?: string | undefined;
}


/** `google.rpc.ErrorInfo.reason` from a `details`/`data` list, if any. */
function findReason(details: unknown): string | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    if (isObject(d) && typeof d['reason'] === 'string' && typeof d['@type'] === 'string' && d['@type'].endsWith('ErrorInfo')) {
      return d['reason'];
    }
  }
  for (const d of details) if (isObject(d) && typeof d['reason'] === 'string') return d['reason'];
  return undefined;
}

const A2A_RANGE = (code: number): boolean => Number.isInteger(code) && code <= -32000 && code >= -32768;

/**
 * Finds an A2A error in any of the shapes agents use:
 * - JSON-RPC: `{jsonrpc, id, error: {code, message, data}}` (also a bare `{code, message}` error object);
 * - v1.0 HTTP+JSON (google.rpc.Status): `{error: {code: <http>, status, message, details: [ErrorInfo]}}`;
 * - v0.3 HTTP+JSON: `{code, message, data?}`;
 * - RFC 9457 problem+json: `{type, title, status, detail}` (v1 spec examples).
 * The A2A code comes from the JSON-RPC code, else from `ErrorInfo.reason`.
 * Returns `undefined` when the body is not an A2A error.
 */
export function parseAgentError(body: unknown): ParsedAgentError | undefined {
  if (!isObject(body)) return undefined;
  const inner = isObject(body['error']) ? body['error'] : body;
  const code = inner['code'];
  const message =
    typeof inner['message'] === 'string'
      ? inner['message']
      : typeof inner['detail'] === 'string'
        ? inner['detail']
        : typeof inner['title'] === 'string'
          ? inner['title']
          : '';
  const data = inner['data'] ?? inner['details'];
  const reason = findReason(data);
  const out = (a2aCode: number): ParsedAgentError => {
    const parsed: ParsedAgentError = { a2aCode, message: message || `error ${a2aCode}` };
    if (data !== undefined) parsed.data = data;
    if (reason !== undefined) parsed.reason = reason;
    return parsed;
  };
  if (typeof code === 'number' && A2A_RANGE(code)) return out(code);
  if (reason !== undefined) {
    const fromReason = a2aCodeForReason(reason);
    if (fromReason !== undefined) return out(fromReason);
  }
  // problem+json: `type` is a URI whose last segment names the error (…/task-not-found).
  if (typeof inner['type'] === 'string') {
    const last = inner['type'].split(/[/#:]/).pop() ?? '';
    const asReason = last
      .replace(/-/g, '_')
      .replace(/_?error$/i, '')
      .toUpperCase();
    const fromType = a2aCodeForReason(asReason);
    if (fromType !== undefined) return out(fromType);
  }
  return undefined;
}
