import { TetherError } from '../errors/tether-error.js';
import type { StreamEvent } from '../model/types.js';

/** One decoded event with the SSE id it came with, if any. */
export interface StreamItem {
  event: StreamEvent;
  id: string | undefined;
}

/**
 * A stream of A2A events from `streamMessage()` or `subscribe()`.
 *
 * It is an `AsyncIterable` that owns its request: `break` (or `abort()`) closes the connection.
 * It can be iterated once. If the connection ends before a message reply, a terminal or an
 * interrupted state, iteration throws a `TetherError` with code `STREAM_INTERRUPTED` (it never
 * ends silently: a clean early close is not success).
 */
export class EventStream implements AsyncIterable<StreamEvent> {
  private consumed = false;
  private readonly controller = new AbortController();
  private last: string | undefined;

  /** @internal */
  constructor(
    private readonly open: (signal: AbortSignal) => AsyncGenerator<StreamItem, void, undefined>,
    private readonly callerSignal?: AbortSignal | undefined,
  ) {}

  /** The id of the last SSE event that carried one (sent as `Last-Event-ID` when resuming). */
  get lastEventId(): string | undefined {
    return this.last;
  }

  /** Closes the connection; a pending iteration ends with an `ABORTED` error. */
  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<StreamEvent, void, undefined> {
    if (this.consumed) {
      throw new TetherError('INVALID_ARGUMENT', 'this event stream was already iterated; open a new one');
    }
    this.consumed = true;
    const onCallerAbort = (): void => this.controller.abort(this.callerSignal?.reason);
    if (this.callerSignal?.aborted) onCallerAbort();
    else this.callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      for await (const item of this.open(this.controller.signal)) {
        if (item.id !== undefined) this.last = item.id;
        yield item.event;
      }
    } finally {
      this.callerSignal?.removeEventListener('abort', onCallerAbort);
      // A consumer that stops early must not leave the connection open.
      this.controller.abort();
    }
  }
}
