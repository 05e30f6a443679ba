import { createA2AError } from '../errors/a2a-errors.js';
import { parseAgentError } from '../errors/error-body.js';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import { snippet } from '../http/read-body.js';
import type { StreamEvent } from '../model/types.js';
import { decodeStreamEvent } from '../protocol/decode.js';
import { DecodeError } from '../protocol/decode-error.js';
import type { Dialect } from '../protocol/dialect.js';
import type { SseEvent } from '../sse/sse-reader.js';

/**
 * Turns one SSE frame into a stream event (binding unwrap + decode), or throws a typed error.
 * `context` builds the error context (only on the error path: nothing is allocated per event).
 */
export type FrameDecoder = (frame: SseEvent, index: number, context: () => ErrorContext) => StreamEvent;

/**
 * The JSON of one SSE frame. An RFC 7464 record separator (0x1E) before the JSON is tolerated:
 * some servers frame every payload as a JSON text sequence record.
 */
export function parseFrame(frame: SseEvent, index: number, context: () => ErrorContext): unknown {
  const data = frame.data.charCodeAt(0) === 0x1e ? frame.data.slice(1) : frame.data;
  try {
    return JSON.parse(data) as unknown;
  } catch (error) {
    throw new TetherError('MALFORMED_EVENT', `event ${index} is not JSON: ${snippet(frame.data)}`, { ...context(), cause: error });
  }
}

/** Decodes the stream response inside a frame; a schema mismatch is MALFORMED_EVENT. */
export function decodeFrameEvent(payload: unknown, dialect: Dialect, index: number, context: () => ErrorContext): StreamEvent {
  try {
    return decodeStreamEvent(payload, dialect);
  } catch (error) {
    if (!(error instanceof DecodeError)) throw error;
    throw new TetherError('MALFORMED_EVENT', `event ${index} is not a valid stream response: ${error.message}`, {
      ...context(),
      cause: error,
    });
  }
}

/** An `event: error` frame or a JSON-RPC error inside a stream, as the same typed error as a unary one. */
export function streamError(json: unknown, frame: SseEvent, context: () => ErrorContext): TetherError {
  const parsed = parseAgentError(json);
  if (parsed) {
    return createA2AError(parsed.a2aCode, parsed.message, {
      ...context(),
      data: parsed.data,
      reason: parsed.reason,
      inStream: true,
    });
  }
  return new TetherError('MALFORMED_EVENT', `unreadable error event: ${snippet(frame.data)}`, context());
}
