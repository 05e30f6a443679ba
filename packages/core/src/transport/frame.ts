import { createA2AError } from '../errors/a2a-errors.js';
import { parseAgentError, type ParsedAgentError } from '../errors/error-body.js';
import { parseCause, quotable, quotableAgentError, quotableHead } from '../errors/quote-answer.js';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import { snippet } from '../http/read-body.js';
import type { StreamEvent } from '../model/types.js';
import { decodeStreamEvent } from '../protocol/decode.js';
import { DecodeError, quote } from '../protocol/decode-error.js';
import type { Dialect } from '../protocol/dialect.js';
import type { SseEvent } from '../sse/sse-reader.js';
import { quotableDecodeError } from './decode-or-throw.js';

/**
 * Turns one SSE frame into a stream event (binding unwrap + decode), or throws a typed error: one per
 * binding (`JsonRpcFrameDecoder`, `RestFrameDecoder`), made per stream with what its frames are checked
 * against. `context` builds the error context (only on the error path: nothing is allocated per event).
 * What an error quotes of a frame has the credentials sent (the open response's `secrets`) redacted.
 */
export interface FrameDecoder {
  decode(frame: SseEvent, index: number, context: () => ErrorContext): StreamEvent;
}

/** How much of a frame an error quotes (redacted before the cut); the message shows a snippet of it. */
const QUOTED_FRAME = 4096;

/** A snippet of a frame's data for an error message, our credentials redacted. */
function frameSnippet(frame: SseEvent, secrets: readonly string[]): string {
  return snippet(quotableHead(frame.data, secrets, QUOTED_FRAME));
}

/**
 * The JSON of one SSE frame. An RFC 7464 record separator (0x1E) before the JSON is tolerated:
 * some servers frame every payload as a JSON text sequence record.
 */
export function parseFrame(frame: SseEvent, index: number, context: () => ErrorContext, secrets: readonly string[]): unknown {
  const data = frame.data.charCodeAt(0) === 0x1e ? frame.data.slice(1) : frame.data;
  try {
    return JSON.parse(data) as unknown;
  } catch (error) {
    throw new TetherError('MALFORMED_EVENT', `event ${index} is not JSON: ${frameSnippet(frame, secrets)}`, {
      ...context(),
      cause: parseCause(error, data, secrets),
    });
  }
}

/** Decodes the stream response inside a frame; a schema mismatch is MALFORMED_EVENT. */
export function decodeFrameEvent(payload: unknown, dialect: Dialect, index: number, context: () => ErrorContext, secrets: readonly string[]): StreamEvent {
  try {
    return decodeStreamEvent(payload, dialect);
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    const quoted = quotableDecodeError(error, secrets);
    throw new TetherError('MALFORMED_EVENT', `event ${index} is not a valid stream response: ${quoted.message}`, {
      ...context(),
      cause: quoted,
    });
  }
}

/**
 * An `event: error` frame or a JSON-RPC error inside a stream, as the same typed error as a unary one;
 * `fallback` reads what is not an A2A error body (HTTP+JSON: a google.rpc.Status without ErrorInfo).
 */
export function streamError(json: unknown, frame: SseEvent, context: () => ErrorContext, secrets: readonly string[], fallback?: (json: unknown) => ParsedAgentError | undefined): TetherError {
  const parsed = parseAgentError(json) ?? fallback?.(json);
  if (parsed) {
    const agentError = quotableAgentError(parsed, secrets);
    return createA2AError(agentError.a2aCode, agentError.message, {
      ...context(),
      data: agentError.data,
      reason: agentError.reason,
      inStream: true,
    });
  }
  return new TetherError('MALFORMED_EVENT', `unreadable error event: ${frameSnippet(frame, secrets)}`, context());
}

/** A value an agent sent, as an error message quotes it: our credentials redacted, then cut to 64 characters. */
export function quoteValue(value: unknown, secrets: readonly string[]): string {
  if (typeof value === 'number') return quote(value);
  if (typeof value === 'string') return quote(quotable(value, secrets));
  return value === null ? 'null' : `a${Array.isArray(value) ? 'n array' : ` ${typeof value}`}`;
}
