import { TetherError } from '../errors/tether-error.js';
import type { StreamEvent } from '../model/types.js';
import type { EventFeed, StreamItem } from './event-feed.js';

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
    return new StreamIterator(this.start(), (item) => item.event);
  }

  /** The events with their SSE ids (`{ event, id }`), for agents that number their events. */
  items(): AsyncIterable<StreamItem> {
    return {
      [Symbol.asyncIterator]: () =>
        new StreamIterator(this.start(), (item) => item),
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

interface Source {
  open(): Promise<EventFeed>;
  signal: AbortSignal;
  release(): void;
}

/** Hands out the events of each batch one by one; awaits the network only when a batch is used up. */
class StreamIterator<T> implements AsyncIterator<T> {
  private feed: EventFeed | undefined;
  private batch: StreamItem[] = [];
  private index = 0;
  private finished = false;

  constructor(
    private readonly source: Source,
    private readonly map: (item: StreamItem) => T,
  ) {}

  next(): Promise<IteratorResult<T>> {
    if (this.index < this.batch.length) {
      return Promise.resolve({ value: this.map(this.batch[this.index++] as StreamItem), done: false });
    }
    return this.fill();
  }

  private async fill(): Promise<IteratorResult<T>> {
    if (this.finished) return { value: undefined, done: true };
    let batch: StreamItem[] | null;
    let broke: unknown;
    try {
      this.feed ??= await this.source.open();
      batch = await this.feed.read();
    } catch (error) {
      // A connection that broke mid-stream (on any binding) ends it as a clean close does.
      if (!this.feed || (error as TetherError | undefined)?.code !== 'NETWORK') {
        this.finish();
        throw error;
      }
      batch = null;
      broke = error;
    }
    const feed = this.feed;
    if (batch === null) {
      this.finish();
      if (!feed.complete) {
        throw new TetherError(
          'STREAM_INTERRUPTED',
          `the stream ended after ${feed.count} event(s), before the task reached a terminal or interrupted state`,
          { ...feed.errorContext(), cause: broke },
        );
      }
      return { value: undefined, done: true };
    }
    this.batch = batch;
    this.index = 1;
    return { value: this.map(batch[0] as StreamItem), done: false };
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.batch = [];
    this.feed?.close();
    this.source.release();
  }

  return(): Promise<IteratorResult<T>> {
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }
}
