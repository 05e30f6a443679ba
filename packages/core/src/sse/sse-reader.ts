import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import { describeCause } from '../http/read-body.js';

/** One server-sent event. */
export interface SseEvent {
  data: string;
  /** The `event:` field, if any (`error` marks an agent error). */
  event: string | undefined;
  /** The `id:` field, if the server sends ids (A2A servers usually don't). */
  id: string | undefined;
}

/** Options of {@link readSseEvents}. */
export interface SseReadOptions {
  /** The largest single event, in characters of decoded text; larger ones fail with EVENT_TOO_LARGE. */
  maxEventSize: number;
  context: ErrorContext;
}

/**
 * Reads an SSE body: bytes → UTF-8 text (split characters held back) → eventsource-parser
 * (LF, CRLF and bare CR line ends; multi-line `data:` joined) → events.
 * Ends when the body ends; an incomplete trailing event is discarded, as the SSE spec says.
 * Breaking out of the loop cancels the body.
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
  options: SseReadOptions,
): AsyncGenerator<SseEvent, void, undefined> {
  const queue: SseEvent[] = [];
  let failure: TetherError | undefined;
  const tooLarge = (): TetherError =>
    new TetherError('EVENT_TOO_LARGE', `an SSE event exceeds ${options.maxEventSize} characters`, options.context);
  const parser = createParser({
    maxBufferSize: options.maxEventSize,
    onEvent(message: EventSourceMessage) {
      if (message.data.length > options.maxEventSize) {
        failure ??= tooLarge();
        return;
      }
      queue.push({ data: message.data, event: message.event, id: message.id });
    },
    onError(error: ParseError) {
      if (error.type === 'max-buffer-size-exceeded') failure ??= tooLarge();
      // Unknown fields and bad `retry:` values are ignored, as browsers do.
    },
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let finished = false;
  // The parser holds back a trailing CR in case an LF follows; at the end nothing follows.
  let endsWithCR = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        throw new TetherError('NETWORK', `stream broke: ${describeCause(error)}`, { ...options.context, cause: error });
      }
      if (chunk.done) {
        const rest = decoder.decode();
        if (rest) parser.feed(rest);
        if (endsWithCR || rest.endsWith('\r')) parser.feed('\n');
        break;
      }
      const text = decoder.decode(chunk.value, { stream: true });
      if (text) endsWithCR = text.endsWith('\r');
      parser.feed(text);
      while (queue.length > 0) yield queue.shift() as SseEvent;
      if (failure) throw failure;
    }
    while (queue.length > 0) yield queue.shift() as SseEvent;
    if (failure) throw failure;
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
