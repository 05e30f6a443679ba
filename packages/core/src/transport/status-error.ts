import type { ParsedAgentError } from '../errors/error-body.js';
import { isObject } from '../util/is-object.js';

/** A google.rpc.Status's code name (or its HTTP code) → the A2A code it stands for; others are -32603. */
const BY_STATUS: Readonly<Record<string, number>> = { INVALID_ARGUMENT: -32602, 400: -32602, NOT_FOUND: -32001, 404: -32001, FAILED_PRECONDITION: -32004, UNIMPLEMENTED: -32004, 501: -32004 };

/**
 * The error object of a `google.rpc.Status` without an A2A code or ErrorInfo (`{error: {code: <http>,
 * status, message}}`), as the A2A error its status stands for: what a v1.0 HTTP+JSON stream's error
 * frame without details is. `undefined` when `error` is not an object.
 */
export function statusAgentError(body: unknown): ParsedAgentError | undefined {
  const inner = isObject(body) ? body['error'] : undefined;
  if (!isObject(inner)) return undefined;
  const { status, code, message } = inner;
  return { a2aCode: BY_STATUS[String(status)] ?? BY_STATUS[String(code)] ?? -32603, message: String(message ?? status ?? code ?? 'error') };
}
