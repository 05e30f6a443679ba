import { createA2AError } from '../errors/a2a-errors.js';
import { parseAgentError } from '../errors/error-body.js';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import type { OpenResponse } from '../http/http-client.js';
import { snippet } from '../http/read-body.js';
import { endsStream } from '../model/task-state.js';
import { decodeStreamEvent } from '../protocol/decode.js';
import { DecodeError } from '../protocol/decode-error.js';
import type { Dialect } from '../protocol/dialect.js';
import { readSseEvents, type SseEvent } from '../sse/sse-reader.js';
import { EventStream, type StreamItem } from './event-stream.js';

/** Takes one parsed SSE payload and returns the stream response inside it (or throws the agent's error). */
export type Unwrap = (json: unknown, sse: SseEvent, context: ErrorContext) => unknown;

/** An `event: error` frame or a JSON-RPC error inside a stream, as the same typed error as a unary one. */
export function streamError(json: unknown, sse: SseEvent, context: ErrorContext): TetherError {
  const parsed = parseAgentError(json);
  if (parsed) {
    return createA2AError(parsed.a2aCode, parsed.message, {
      ...context,
      data: parsed.data,
      reason: parsed.reason,
      inStream: true,
    });
  }
  return new TetherError('MALFORMED_EVENT', `unreadable error event: ${snippet(sse.data)}`, context);
}

/** Options of {@link openEventStream}. */
export interface EventStreamSpec {
  /** Opens the HTTP response (with the stream's own signal). */
  open: (signal: AbortSignal) => Promise<OpenResponse>;
  /** The caller's signal, followed by the stream. */
  signal: AbortSignal | undefined;
  /** Called once the response is open and checked. */
  onOpen?: (() => void) | undefined;
  /** The task the stream is about, when known before the first event. */
  taskId: string | undefined;
  dialect: Dialect;
  maxEventSize: number;
  unwrap: Unwrap;
}

/**
 * Opens an SSE call as an {@link EventStream}: content type checked, each event parsed,
 * unwrapped, validated and normalized; the end of the body before a message reply, a terminal
 * or an interrupted state is reported as STREAM_INTERRUPTED.
 */
export function openEventStream(spec: EventStreamSpec): EventStream {
  return new EventStream(async function* (signal): AsyncGenerator<StreamItem, void, undefined> {
    const { response, link, context } = await spec.open(signal);
    link.clearTimeout();
    spec.onOpen?.();
    let taskId = spec.taskId;
    let complete = false;
    let count = 0;
    try {
      if (!response.body) {
        throw new TetherError('STREAM_INTERRUPTED', 'the stream has no body', { ...context, taskId });
      }
      for await (const sse of readSseEvents(response.body, { maxEventSize: spec.maxEventSize, context })) {
        const eventContext: ErrorContext = { ...context, taskId };
        let json: unknown;
        try {
          json = JSON.parse(sse.data);
        } catch (error) {
          throw new TetherError('MALFORMED_EVENT', `event ${count + 1} is not JSON: ${snippet(sse.data)}`, {
            ...eventContext,
            cause: error,
          });
        }
        const payload = spec.unwrap(json, sse, eventContext);
        let event;
        try {
          event = decodeStreamEvent(payload, spec.dialect);
        } catch (error) {
          if (!(error instanceof DecodeError)) throw error;
          throw new TetherError('MALFORMED_EVENT', `event ${count + 1} is not a valid stream response: ${error.message}`, {
            ...eventContext,
            cause: error,
          });
        }
        count++;
        taskId = event.kind === 'task' ? event.id : event.kind === 'message' ? (event.taskId ?? taskId) : event.taskId;
        complete = endsStream(event);
        yield { event, id: sse.id };
      }
    } catch (error) {
      throw link.errorFor({ ...context, taskId }, undefined, error) ?? error;
    } finally {
      link.dispose();
    }
    if (!complete) {
      throw new TetherError(
        'STREAM_INTERRUPTED',
        `the stream ended after ${count} event(s), before the task reached a terminal or interrupted state`,
        { ...context, taskId },
      );
    }
  }, spec.signal);
}
