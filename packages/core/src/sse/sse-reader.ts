import { createParser, type EventSourceParser } from 'eventsource-parser';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';

/** One server-sent event. */
export interface SseEvent {
  data: string;
  /** The `event:` field, if any (`error` marks an agent error). */
  event: string | undefined;
  /** The `id:` field, if the server sends ids (A2A servers usually don't). */
  id: string | undefined;
}

/**
 * Turns the bytes of an SSE body into events, chunk by chunk: bytes → UTF-8 text (split
 * characters held back) → eventsource-parser (LF, CRLF and bare CR line ends; multi-line `data:`
 * joined). Synchronous: one call per network chunk returns every event that chunk completed, so a
 * reader awaits once per chunk, not once per event.
 *
 * An event larger than `maxEventSize` characters sets {@link failure} (`EVENT_TOO_LARGE`); the
 * events completed before it are still returned. An incomplete trailing event is discarded at the
 * end, as the SSE spec says.
 */
export class SseReader {
  /** Set once an event exceeded the size cap; nothing after it is delivered. */
  failure: TetherError | undefined;
  private readonly parser: EventSourceParser;
  private readonly decoder = new TextDecoder();
  private out: SseEvent[] = [];
  // The parser holds back a trailing CR in case an LF follows; at the end nothing follows.
  private endsWithCR = false;

  constructor(
    private readonly maxEventSize: number,
    private readonly context: ErrorContext,
  ) {
    this.parser = createParser({
      maxBufferSize: maxEventSize,
      onEvent: (message) => {
        if (this.failure) return;
        if (message.data.length > maxEventSize) this.failure = this.tooLarge();
        else this.out.push({ data: message.data, event: message.event, id: message.id });
      },
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.failure ??= this.tooLarge();
        // Unknown fields and bad `retry:` values are ignored, as browsers do.
      },
    });
  }

  private tooLarge(): TetherError {
    return new TetherError('EVENT_TOO_LARGE', `an SSE event exceeds ${this.maxEventSize} characters`, this.context);
  }

  /** Reads one chunk of the body; returns the events it completed (often none, often several). */
  push(chunk: Uint8Array): SseEvent[] {
    const text = this.decoder.decode(chunk, { stream: true });
    if (text) {
      this.endsWithCR = text.charCodeAt(text.length - 1) === 13;
      this.parser.feed(text);
    }
    return this.take();
  }

  /** The body ended: returns the events the end completed. */
  end(): SseEvent[] {
    const rest = this.decoder.decode();
    if (rest) this.parser.feed(rest);
    if (this.endsWithCR || rest.endsWith('\r')) this.parser.feed('\n');
    return this.take();
  }

  private take(): SseEvent[] {
    if (this.out.length === 0) return EMPTY;
    const events = this.out;
    this.out = [];
    return events;
  }
}

const EMPTY: SseEvent[] = [];
