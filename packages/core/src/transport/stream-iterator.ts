import { TetherError } from '../errors/tether-error.js';
import type { EventFeed, StreamItem } from './event-feed.js';

/** What an EventStream's iteration reads from: the feed's opener, its signal, and the release at the end. */
export interface Source {
  open(): Promise<EventFeed>;
  signal: AbortSignal;
  release(): void;
}

/** Hands out the events of each batch one by one; awaits the network only when a batch is used up. */
export class StreamIterator<T> implements AsyncIterator<T> {
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
