import { Buffer } from 'node:buffer';
import type { ServerResponse } from 'node:http';

/**
 * Writes one Server-Sent Events response: `data: <json>` per event (JSON has no newlines, so one line),
 * blank-line terminated, optional `id:` and `event:` lines. Headers go out lazily with the first event so
 * an error before any event can still be answered as plain JSON.
 */
export class SseWriter {
  private started = false;
  private ended = false;

  constructor(private readonly res: ServerResponse) {}

  /** True once the 200 + text/event-stream headers were sent. */
  get isStarted(): boolean {
    return this.started;
  }

  /** True once the response ended (by us or because the client went away). */
  get isEnded(): boolean {
    return this.ended || this.res.destroyed || this.res.writableEnded;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    this.res.flushHeaders();
  }

  /**
   * Write one event. `rs` puts an RFC 7464 record separator (0x1E) before the JSON, as some servers do
   * (the `rs` misbehaviour).
   */
  send(
    data: unknown,
    options: { id?: string | undefined; event?: string | undefined; rs?: boolean | undefined } = {},
  ): void {
    if (this.isEnded) return;
    this.start();
    let frame = '';
    if (options.event !== undefined) frame += `event: ${options.event}\n`;
    if (options.id !== undefined) frame += `id: ${options.id}\n`;
    frame += `data: ${options.rs === true ? '\u001e' : ''}${JSON.stringify(data)}\n\n`;
    this.res.write(frame);
  }

  /**
   * Answer with a plain HTTP response instead of an event stream (nothing was streamed yet), e.g. a
   * gateway's 404 page. Ignored once the stream started.
   */
  refuse(status: number, contentType: string, body: string): void {
    if (this.started || this.isEnded) return;
    this.ended = true;
    this.res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
    this.res.end(body);
  }

  /** Reset the connection (TCP RST): the stream breaks without a clean end (`resetStream`). */
  reset(): void {
    if (this.isEnded) return;
    this.ended = true;
    const socket = this.res.socket;
    if (socket) socket.resetAndDestroy();
    else this.res.destroy();
  }

  end(): void {
    if (this.isEnded) return;
    this.start();
    this.ended = true;
    this.res.end();
  }
}
