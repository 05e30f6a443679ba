import { TetherError, type ErrorContext } from '../errors/tether-error.js';

/** One server-sent event. */
export interface SseEvent {
  data: string;
  /** The `event:` field, if any (`error` marks an agent error). */
  event: string | undefined;
  /** The `id:` field, if the server sends ids (A2A servers usually don't). */
  id: string | undefined;
}

const LF = 10;
const SPACE = 32;

/**
 * Turns the bytes of an SSE body into events, chunk by chunk, as the WHATWG event-stream
 * grammar says: bytes → UTF-8 text (split characters held back, one leading BOM dropped) → lines
 * (each ended by CRLF, LF or CR) → fields (multi-line `data:` joined with LF; comments, `retry:`
 * and unknown fields ignored) → an event at each blank line that has data. Synchronous: one call
 * per network chunk returns every event that chunk completed, so a reader awaits once per chunk,
 * not once per event.
 *
 * A CR is a line end at once, even as the last character of a chunk (an LF opening the next chunk
 * is then the rest of that CRLF, not a blank line): an event ended by CR CR is never held back
 * waiting for more bytes. Every character is looked at a bounded number of times, however the body
 * is cut into chunks.
 *
 * Size cap: when the data an event has so far plus the line being read exceed `maxEventSize`
 * characters, {@link failure} is set (`EVENT_TOO_LARGE`) as soon as that is known — whatever the
 * line is (data, comment, `id:` …) and however the chunks are cut. The events completed before it
 * are still returned; nothing after it is. An incomplete trailing event is discarded at the end,
 * as the SSE spec says.
 */
export class SseReader {
  /** Set once an event exceeded the size cap; nothing after it is delivered. */
  failure: TetherError | undefined;
  // The BOM is dropped by hand (`withoutBom`): decoding a chunk without `stream` must not drop another.
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private started = false;
  private out: SseEvent[] = [];
  // The start of a line that a later chunk ends.
  private pieces: string[] = [];
  private pieceLength = 0;
  // The previous chunk ended with CR: an LF opening this one completes that CRLF.
  private afterCR = false;
  // The event being read.
  private data = '';
  private hasData = false;
  private event: string | undefined;
  private id: string | undefined;

  constructor(
    private readonly maxEventSize: number,
    private readonly context: ErrorContext,
  ) {}

  /** Reads one chunk of the body; returns the events it completed (often none, often several). */
  push(chunk: Uint8Array): SseEvent[] {
    if (this.failure) return this.take();
    // A chunk ending with an ASCII byte ends no character half-way: decoding it without `stream` (several
    // times faster in V8) gives the same text, with what the decoder held from earlier chunks in front.
    const last = chunk[chunk.length - 1];
    this.feed(this.withoutBom(last !== undefined && last < 0x80 ? this.decoder.decode(chunk) : this.decoder.decode(chunk, { stream: true })));
    return this.take();
  }

  /** The body ended: returns the events the end completed (an unfinished event is dropped). */
  end(): SseEvent[] {
    // What the decoder still holds is an incomplete character: U+FFFD, never a line end.
    if (!this.failure) this.feed(this.withoutBom(this.decoder.decode()));
    this.pieces = [];
    this.pieceLength = 0;
    this.dispatch(false);
    return this.take();
  }

  /** The decoded text, without the one BOM that may open the body (UTF-8 decoding drops it). */
  private withoutBom(text: string): string {
    if (this.started || text === '') return text;
    this.started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  private feed(text: string): void {
    let start = this.afterCR && text.charCodeAt(0) === LF ? 1 : 0;
    if (text !== '') this.afterCR = false;
    // The next CR and LF at or after `start`, each searched again only once passed: linear.
    let cr = text.indexOf('\r', start);
    let lf = text.indexOf('\n', start);
    while (cr !== -1 || lf !== -1) {
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (!this.fits(end - start)) return;
      if (this.pieceLength === 0) this.readLine(text, start, end);
      else this.readLine(this.joined(text.slice(start, end)));
      start = end + 1;
      if (end === cr) {
        if (start === text.length) this.afterCR = true;
        else if (text.charCodeAt(start) === LF) start++;
      }
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
    }
    if (start < text.length && this.fits(text.length - start)) {
      this.pieces.push(text.slice(start));
      this.pieceLength += text.length - start;
    }
  }

  /** Whether the current line, `more` characters longer, keeps the event within the cap; sets {@link failure} if not. */
  private fits(more: number): boolean {
    if (this.data.length + this.pieceLength + more <= this.maxEventSize) return true;
    this.failure = new TetherError('EVENT_TOO_LARGE', `an SSE event exceeds ${this.maxEventSize} characters`, this.context);
    this.pieces = [];
    this.pieceLength = 0;
    this.dispatch(false);
    return false;
  }

  private joined(last: string): string {
    this.pieces.push(last);
    const line = this.pieces.join('');
    this.pieces = [];
    this.pieceLength = 0;
    return line;
  }

  /** Applies one line: `text` from `start` to `end` (the whole of `text` by default). */
  private readLine(text: string, start = 0, end = text.length): void {
    if (start === end) return this.dispatch(true);
    if (end - start >= 5 && text.startsWith('data:', start)) {
      // The common line, read without slicing it out first.
      return this.addData(text.slice(start + 5 < end && text.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5, end));
    }
    const line = text.slice(start, end);
    const colon = line.indexOf(':');
    if (colon === 0) return; // a comment
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1);
    switch (field) {
      case 'data':
        this.addData(value);
        break;
      case 'event':
        this.event = value || undefined;
        break;
      case 'id':
        if (!value.includes('\0')) this.id = value;
        break;
      // `retry:` (the engine has its own reconnection policy) and unknown fields are ignored.
    }
  }

  private addData(value: string): void {
    this.data = this.hasData ? `${this.data}\n${value}` : value;
    this.hasData = true;
  }

  /** Ends the current event: delivered when `deliver` and it has data, else dropped. */
  private dispatch(deliver: boolean): void {
    if (deliver && this.hasData) this.out.push({ data: this.data, event: this.event, id: this.id });
    this.data = '';
    this.hasData = false;
    this.event = undefined;
    this.id = undefined;
  }

  private take(): SseEvent[] {
    if (this.out.length === 0) return EMPTY;
    const events = this.out;
    this.out = [];
    return events;
  }
}

const EMPTY: SseEvent[] = [];
