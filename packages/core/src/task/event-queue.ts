import { TetherError } from '../errors/tether-error.js';
import type { TaskEvent } from './task-event.js';

/**
 * Buffers a handle's events for one reader at a time. While no one reads, at most `capacity`
 * events are kept; past that the buffer is dropped and the next reader first receives a resync
 * (the current view as `recovered` events), so memory stays bounded and replay stays exact.
 */
export class EventQueue {
  private items: TaskEvent[] = [];
  private resync = false;
  private closed = false;
  private reading = false;
  private wake: (() => void) | undefined;
  /** Removes the current reader's abort listener: a reader dropped mid-iteration never reaches its `finally`. */
  private detachReader: (() => void) | undefined;

  constructor(
    private readonly capacity: number,
    private readonly snapshot: () => TaskEvent[],
  ) {}

  push(events: TaskEvent[]): void {
    if (this.closed || events.length === 0) return;
    // While a resync is pending the view snapshot will carry status and artifacts: keep only the rest.
    this.items.push(...(this.resync ? events.filter((e) => e.type === 'message' || e.type === 'connection') : events));
    if (!this.reading && this.items.length > this.capacity) {
      this.items = this.items.filter((e) => e.type === 'message').slice(-this.capacity);
      this.resync = true;
    }
    this.wake?.();
  }

  /** No more events: readers finish after draining. */
  close(): void {
    this.closed = true;
    this.detachReader?.();
    this.wake?.();
  }

  async *read(signal?: AbortSignal): AsyncGenerator<TaskEvent, void, undefined> {
    if (this.reading) {
      throw new TetherError('INVALID_ARGUMENT', 'events() is already being read; use one reader (or task.view)');
    }
    this.reading = true;
    const onAbort = (): void => this.wake?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.detachReader = () => signal?.removeEventListener('abort', onAbort);
    try {
      if (this.resync) {
        this.resync = false;
        this.items = [...this.snapshot(), ...this.items];
      }
      for (;;) {
        if (signal?.aborted) return;
        const next = this.items.shift();
        if (next) {
          yield next;
          continue;
        }
        if (this.closed) return;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
    } finally {
      this.detachReader?.();
      this.detachReader = undefined;
      this.wake = undefined;
      this.reading = false;
    }
  }
}
