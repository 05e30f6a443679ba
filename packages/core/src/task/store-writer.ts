import { TetherError } from '../errors/tether-error.js';
import type { StoreWriteOptions, TaskRecord, TaskStore } from '../store/task-store.js';
import { sleep, type Scheduler } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';
import { taskKey } from '../store/task-key.js';

/** Which task's record a writer writes: an agent's task (the store's key is both, G11). */
export interface RecordOf {
  readonly agentUrl: string;
  readonly taskId: string;
}

/** The fields of a task's record that change while it is followed. */
export type RecordChange = Partial<
  Pick<TaskRecord, 'state' | 'contextId' | 'lastEventId' | 'delivery' | 'pushConfigId' | 'cancel' | 'outcome' | 'lastError' | 'expiresAt' | 'cost'>
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

/** How the writer meets a store it cannot reach: its retries of a change whose write failed retryably. */
const RETRY = {
  /** The first wait before trying a change again (ms), doubled each time up to `maxDelayMs`. */
  firstDelayMs: 250,
  maxDelayMs: 4_000,
  /** A change is tried for this long after its first failure (ms), then given up (reported). */
  windowMs: 30_000,
} as const;

/** What a {@link StoreWriter} needs beside the store and the task. */
export interface StoreWriterOptions {
  scheduler: Scheduler;
  /** Told of every failed write (the follower turns it into a `store-error` event). */
  onFailure?: ((error: TetherError) => void) | undefined;
  /** The fencing token of the lease the task is driven under (undefined: writes are not fenced). */
  fence?: (() => number | undefined) | undefined;
  /** Writes wait for this first (the task's lease is taken before its first write); if it rejects, nothing is written. */
  before?: Promise<void> | undefined;
}

/**
 * A task's store writes, in order and coalesced: the first `put` (the record `start()` waits for,
 * G1) and then changes merged while a write is in flight, so a busy stream costs one write at a
 * time, not one per status. A record never goes backwards because two writes raced. A change whose
 * write failed retryably (`STORE_UNAVAILABLE`: the store is down or cut off) is tried again with
 * backoff for up to 30 s — later changes merged over it — so an outage shorter than that loses no
 * change (such as a finished task's outcome); a write refused for good (`LEASE_LOST`, a store error)
 * is not retried.
 */
export class StoreWriter {
  private chain: Promise<void> = Promise.resolve();
  /** Why nothing may be written (the lease the writes needed was not taken). */
  private blocked: TetherError | undefined;
  private pending: RecordChange | undefined;
  private readonly taskId: string;
  private readonly key: string;
  /** The last write that failed for good, as a typed error (`flush()` rejects with it). */
  failure: TetherError | undefined;

  constructor(
    private readonly store: TaskStore,
    task: RecordOf,
    private readonly options: StoreWriterOptions,
  ) {
    this.taskId = task.taskId;
    this.key = taskKey(task.agentUrl, task.taskId);
    if (options.before) this.chain = options.before.catch((error: unknown) => void (this.blocked = storeWriteFailed(task.taskId, error)));
  }

  private writeOptions(): StoreWriteOptions | undefined {
    const fence = this.options.fence?.();
    return fence === undefined ? undefined : { fence };
  }

  private failed(error: unknown): TetherError {
    const typed = storeWriteFailed(this.taskId, error);
    this.failure = typed;
    this.options.onFailure?.(typed);
    return typed;
  }

  /** Writes the whole record; resolves once it is stored (rejects with `STORE_WRITE_FAILED` if the store failed). */
  put(record: TaskRecord): Promise<void> {
    const done = this.chain
      .then(() => {
        if (this.blocked) throw this.blocked;
        return this.store.put(record, this.writeOptions());
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
    const first = this.pending;
    this.pending = undefined;
    if (!first || this.blocked) return;
    let change: RecordChange = first;
    const { scheduler } = this.options;
    const firstFailure = monotonicNow(scheduler);
    let delay: number = RETRY.firstDelayMs;
    for (let attempt = 1; ; attempt++) {
      const written = change;
      const updatedAt = scheduler.now();
      try {
        await this.store.update(this.key, (record) => (record ? { ...record, ...written, updatedAt } : record), this.writeOptions());
        return;
      } catch (error) {
        const typed = storeWriteFailed(this.taskId, error);
        if (!typed.isRetryable || monotonicNow(scheduler) + delay - firstFailure > RETRY.windowMs) {
          this.failed(typed);
          return;
        }
        // Told once, when the store first fails; again only if the change is given up.
        if (attempt === 1) this.options.onFailure?.(typed);
        await sleep(scheduler, delay);
        delay = Math.min(RETRY.maxDelayMs, delay * 2);
        // What changed meanwhile is newer: it goes over the change being retried, in the same write.
        // (Read through a cast: the narrowing above does not know that update() ran during the await.)
        const newer = this.pending as RecordChange | undefined;
        if (newer) {
          change = { ...change, ...newer };
          this.pending = undefined;
        }
      }
    }
  }

  /** Resolves when every write so far is done; rejects with the last failure if one failed. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
  }
}
