import { TetherError } from '../errors/tether-error.js';
import type { StreamEvent } from '../model/types.js';
import type { EventFeed, StreamItem } from './event-feed.js';
import { taskEngine } from '../task/load-engine.js';
import type { Source } from './stream-iterator.js';

/** Opens the HTTP stream behind an {@link EventStream} (with the stream's own signal). */
export type FeedOpener = (signal: AbortSignal) => Promise<EventFeed>;

/**
 * A stream of A2A events from `streamMessage()` or `subscribe()`.
 *
 * It is an `AsyncIterable` that owns its request: `break` (or `abort()`) closes the connection.
 * It can be iterated once. If the connection ends or breaks before a message reply, a terminal or an
 * interrupted state, iteration throws a `TetherError` with code `STREAM_INTERRUPTED` and the task's id
 * (it never ends silently: a clean early close is not success; a reset has the `NETWORK` error as its
 * `cause`). Events an agent sends after such an event
 * (an artifact after the final status) are delivered, and the end after them is a normal end.
 * `items()` iterates the same events with the SSE id each one came with: keep the last one to resume
 * after it (`subscribe(taskId, { lastEventId })`).
 */
export class EventStream implements AsyncIterable<StreamEvent> {
  private consumed = false;
  private readonly controller = new AbortController();

  /** @internal */
  constructor(
    private readonly openFeed: FeedOpener,
    private readonly callerSignal?: AbortSignal | undefined,
  ) {}

  /** Closes the connection; a pending iteration ends with an `ABORTED` error. */
  abort(reason?: unknown): void {
    this.controller.abort(reason);
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    return new DeferredIterator(this.start(), (item) => item.event);
  }

  /** The events with their SSE ids (`{ event, id }`), for agents that number their events. */
  items(): AsyncIterable<StreamItem> {
    return {
      [Symbol.asyncIterator]: () =>
        new DeferredIterator(this.start(), (item) => item),
    };
  }

  private start(): Source {
    if (this.consumed) {
      throw new TetherError('INVALID_ARGUMENT', 'this event stream was already iterated; open a new one');
    }
    this.consumed = true;
    const controller = this.controller;
    const caller = this.callerSignal;
    const onCallerAbort = (): void => controller.abort(caller?.reason);
    if (caller?.aborted) onCallerAbort();
    else caller?.addEventListener('abort', onCallerAbort, { once: true });
    return {
      open: () => this.openFeed(controller.signal),
      signal: controller.signal,
      release: () => {
        caller?.removeEventListener('abort', onCallerAbort);
        // A consumer that stops early must not leave the connection open.
        controller.abort();
      },
    };
  }
}

/**
 * A StreamIterator (stream-iterator.ts), whose code comes with the task engine's (which `connect()` loads
 * during the card request): a web app's first load does not carry it.
 */
class DeferredIterator<T> implements AsyncIterator<T> {
  private inner: AsyncIterator<T> | undefined;
  private loading: Promise<AsyncIterator<T>> | undefined;
  private ended = false;

  constructor(
    private readonly source: Source,
    private readonly map: (item: StreamItem) => T,
  ) {}

  next(): Promise<IteratorResult<T>> {
    if (this.inner) return this.inner.next();
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    this.loading ??= taskEngine.get().then(
      (m) => (this.inner = new m.StreamIterator(this.source, this.map)),
      (error: unknown) => {
        this.end();
        throw error;
      },
    );
    return this.loading.then((inner) => inner.next());
  }

  return(): Promise<IteratorResult<T>> {
    if (this.inner) return this.inner.return?.() ?? Promise.resolve({ value: undefined, done: true });
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  private end(): void {
    this.ended = true;
    this.source.release();
  }
}
