import { TetherError } from '../errors/tether-error.js';
import type { TaskEvent } from './task-event.js';

/** Makes a buffer nobody reads small without losing what it says (see `event-merge.ts`). */
export type Compaction = (events: TaskEvent[], capacity: number) => TaskEvent[];

/**
 * Buffers a handle's events for one reader at a time. While no one reads, at most `capacity`
 * events are kept; past that the buffer is dropped and the next reader first receives a resync
 * (the current view as `recovered` events), so memory stays bounded and replay stays exact.
 * A reader takes buffered events without waiting: it awaits only when the buffer is empty.
 */
export class EventQueue {
  private items: TaskEvent[] = [];
  /** Index of the next event to hand out (the buffer is compacted as it empties). */
  private head = 0;
  private resync = false;
  private closed = false;
  /** Why the events ended, when a failure ended them: readers throw it after the last event. */
  failure: unknown;
  private reader: QueueReader | undefined;
  /** With `compact`: the size of the buffer after its last compaction (it compacts again at twice that). */
  private compacted = 0;

  /**
   * `compact`: past `capacity`, the buffer is compacted instead of dropped for a resync — for a follow
   * that keeps no artifact parts, whose view cannot rebuild them (`event-merge.ts`).
   */
  constructor(
    private readonly capacity: number,
    private readonly snapshot: () => TaskEvent[],
    private readonly compact?: Compaction,
  ) {}

  private get size(): number {
    return this.items.length - this.head;
  }

  push(events: TaskEvent[]): void {
    if (this.closed || events.length === 0) return;
    // While a resync is pending the view snapshot will carry status and artifacts: keep only the rest.
    for (const e of events) if (!this.resync || e.type === 'message' || e.type === 'connection') this.items.push(e);
    // (`compacted` stays 0 without `compact`: the bound is then `capacity`.)
    if (!this.reader && this.size > Math.max(this.capacity, 2 * this.compacted)) {
      const held = this.items.slice(this.head);
      this.head = 0;
      if (this.compact) this.compacted = (this.items = this.compact(held, this.capacity)).length;
      else {
        this.items = held.filter((e) => e.type === 'message').slice(-this.capacity);
        this.resync = true;
      }
    }
    this.reader?.wake();
  }

  /**
   * No more events: readers finish after draining. With `failure`, they then throw it (a follow that
   * failed must not look like one that ended well).
   */
  close(failure?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.failure = failure;
    this.reader?.wake();
    // A reader dropped mid-iteration never finishes: do not leave it hooked to the caller's signal.
    this.reader?.unhook();
  }

  /** Takes the next event, or `undefined` when none is buffered. */
  take(): TaskEvent | undefined {
    if (this.head >= this.items.length) return undefined;
    const event = this.items[this.head++] as TaskEvent;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return event;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  read(signal?: AbortSignal): AsyncIterator<TaskEvent> {
    if (this.reader) {
      throw new TetherError('INVALID_ARGUMENT', 'events() is already being read; use one reader (or task.view)', { maybeDelivered: false });
    }
    if (this.resync) {
      this.resync = false;
      this.items = [...this.snapshot(), ...this.items.slice(this.head)];
      this.head = 0;
    }
    const reader = new QueueReader(this, signal, () => {
      if (this.reader === reader) this.reader = undefined;
    });
    this.reader = reader;
    return reader;
  }
}

/** The end of a reader whose events ended in a failure: `next()` rejects with it (once). */
interface Failed {
  failed: unknown;
}

function settle(result: IteratorResult<TaskEvent> | Failed): Promise<IteratorResult<TaskEvent>> {
  return 'failed' in result ? Promise.reject(result.failed) : Promise.resolve(result);
}

/**
 * One `events()` iteration: hands out buffered events at once, waits only on an empty buffer. After
 * the last event, a queue closed with a failure makes `next()` reject with it; later calls are done.
 */
class QueueReader implements AsyncIterator<TaskEvent> {
  private waiting: ((result: IteratorResult<TaskEvent> | Failed) => void) | undefined;
  private done = false;

  constructor(
    private readonly queue: EventQueue,
    private readonly signal: AbortSignal | undefined,
    private readonly release: () => void,
  ) {
    signal?.addEventListener('abort', this, { once: true });
  }

  next(): Promise<IteratorResult<TaskEvent>> {
    const ready = this.poll();
    if (ready) return settle(ready);
    return new Promise<IteratorResult<TaskEvent> | Failed>((resolve) => {
      this.waiting = resolve;
    }).then(settle);
  }

  /** The next result if there is one now (an event, or the end), or the failure that ended the events. */
  private poll(): IteratorResult<TaskEvent> | Failed | undefined {
    if (this.done) return { value: undefined, done: true };
    if (this.signal?.aborted) return this.finish();
    const event = this.queue.take();
    if (event) return { value: event, done: false };
    if (this.queue.isClosed) {
      const result = this.finish();
      return this.queue.failure === undefined ? result : { failed: this.queue.failure };
    }
    return undefined;
  }

  /** The signal aborted (the reader is its listener object: no closure per reader). */
  handleEvent(): void {
    this.wake();
  }

  /** Something changed (events, close, abort): answer a waiting `next()`. */
  wake(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    const ready = this.poll();
    if (!ready) return;
    this.waiting = undefined;
    waiting(ready);
  }

  /** Stops listening to the signal (it is still checked at each `next()`). */
  unhook(): void {
    this.signal?.removeEventListener('abort', this);
  }

  private finish(): IteratorResult<TaskEvent> {
    if (!this.done) {
      this.done = true;
      this.unhook();
      this.release();
    }
    return { value: undefined, done: true };
  }

  return(): Promise<IteratorResult<TaskEvent>> {
    const result = this.finish();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(result);
    return Promise.resolve(result);
  }
}
