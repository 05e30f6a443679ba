import type { TaskRecord, TaskStore } from '../store/task-store.js';

/** The fields of a task's record that change while it is followed. */
export type RecordChange = Partial<Pick<TaskRecord, 'state' | 'contextId' | 'lastEventId' | 'delivery' | 'cancel'>>;

/**
 * A task's store writes, in order and coalesced: the first `put` (the record `start()` waits for,
 * G1) and then changes merged while a write is in flight, so a busy stream costs one write at a
 * time, not one per status. A record never goes backwards because two writes raced.
 */
export class StoreWriter {
  private chain: Promise<void> = Promise.resolve();
  private pending: RecordChange | undefined;
  /** The last write that failed (surfaced by the task handle). */
  failure: unknown;

  constructor(
    private readonly store: TaskStore,
    private readonly taskId: string,
    private readonly now: () => number,
  ) {}

  /** Writes the whole record; resolves once it is stored (rejects if the store failed). */
  put(record: TaskRecord): Promise<void> {
    const done = this.chain.then(() => this.store.put(record));
    this.chain = done.catch((error: unknown) => {
      this.failure = error;
    });
    return done;
  }

  /** Merges a change into the next write. */
  update(change: RecordChange): void {
    if (this.pending) {
      Object.assign(this.pending, change);
      return;
    }
    this.pending = { ...change };
    this.chain = this.chain.then(() => this.drain());
  }

  private async drain(): Promise<void> {
    const change = this.pending;
    this.pending = undefined;
    if (!change) return;
    const updatedAt = this.now();
    try {
      await this.store.update(this.taskId, (record) => (record ? { ...record, ...change, updatedAt } : record));
    } catch (error) {
      this.failure = error;
    }
  }

  /** Forgets the record once every earlier write is done (a finished task). */
  delete(): void {
    this.chain = this.chain
      .then(() => this.store.delete(this.taskId))
      .catch((error: unknown) => {
        this.failure = error;
      });
  }

  /** Resolves when every write so far is done. */
  flush(): Promise<void> {
    return this.chain;
  }
}
