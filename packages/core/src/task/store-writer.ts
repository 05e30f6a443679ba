import { TetherError } from '../errors/tether-error.js';
import type { StoreWriteOptions, TaskRecord, TaskStore } from '../store/task-store.js';

/** The fields of a task's record that change while it is followed. */
export type RecordChange = Partial<
  Pick<TaskRecord, 'state' | 'contextId' | 'lastEventId' | 'delivery' | 'pushConfigId' | 'cancel' | 'outcome' | 'lastError' | 'expiresAt'>
>;

/** Store failures that say more than "the write failed": kept as they are. */
const TELLING = new Set(['STORE_WRITE_FAILED', 'STORE_UNAVAILABLE', 'LEASE_LOST', 'LEASE_HELD']);

/** A store's failure as a typed error naming the task. */
export function storeWriteFailed(taskId: string, error: unknown): TetherError {
  if (error instanceof TetherError && TELLING.has(error.code)) return error;
  const why = error instanceof Error ? error.message : String(error);
  return new TetherError('STORE_WRITE_FAILED', `the task store failed to write the record of task ${taskId}: ${why}`, {
    taskId,
    cause: error,
  });
}

/**
 * A task's store writes, in order and coalesced: the first `put` (the record `start()` waits for,
 * G1) and then changes merged while a write is in flight, so a busy stream costs one write at a
 * time, not one per status. A record never goes backwards because two writes raced.
 */
export class StoreWriter {
  private chain: Promise<void> = Promise.resolve();
  /** Why nothing may be written (the lease the writes needed was not taken). */
  private blocked: TetherError | undefined;
  private pending: RecordChange | undefined;
  /** The last write that failed, as a typed error (`flush()` rejects with it). */
  failure: TetherError | undefined;

  constructor(
    private readonly store: TaskStore,
    private readonly taskId: string,
    private readonly now: () => number,
    /** Told of every failed write (the follower turns it into a `store-error` event). */
    private readonly onFailure: (error: TetherError) => void = () => undefined,
    /** The fencing token of the lease the task is driven under (undefined: writes are not fenced). */
    private readonly fence: () => number | undefined = () => undefined,
    /** Writes wait for this first (the task's lease is taken before its first write); if it rejects, nothing is written. */
    before?: Promise<void>,
  ) {
    if (before) this.chain = before.catch((error: unknown) => void (this.blocked = storeWriteFailed(taskId, error)));
  }

  private options(): StoreWriteOptions | undefined {
    const fence = this.fence();
    return fence === undefined ? undefined : { fence };
  }

  private failed(error: unknown): TetherError {
    const typed = storeWriteFailed(this.taskId, error);
    this.failure = typed;
    this.onFailure(typed);
    return typed;
  }

  /** Writes the whole record; resolves once it is stored (rejects with `STORE_WRITE_FAILED` if the store failed). */
  put(record: TaskRecord): Promise<void> {
    const done = this.chain
      .then(() => {
        if (this.blocked) throw this.blocked;
        return this.store.put(record, this.options());
      })
      .catch((error: unknown) => {
        throw this.failed(error);
      });
    this.chain = done.catch(() => undefined);
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
    if (!change || this.blocked) return;
    const updatedAt = this.now();
    try {
      await this.store.update(this.taskId, (record) => (record ? { ...record, ...change, updatedAt } : record), this.options());
    } catch (error) {
      this.failed(error);
    }
  }

  /** Resolves when every write so far is done; rejects with the last failure if one failed. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
  }
}
