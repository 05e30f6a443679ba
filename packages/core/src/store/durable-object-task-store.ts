import { TetherError } from '../errors/tether-error.js';
import { checkTaskRecord } from './check-record.js';
import { isActiveRecord, type TaskListFilter, type TaskRecord, type TaskStore } from './task-store.js';

/**
 * The part of a Cloudflare Durable Object's `state.storage` (`DurableObjectStorage`) that
 * {@link createDurableObjectTaskStore} uses. Values are stored as structured clones, as that API does.
 */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
  list(options: { prefix: string; startAfter?: string; limit?: number }): Promise<Map<string, unknown>>;
}

/** Options of {@link createDurableObjectTaskStore}. */
export interface DurableObjectTaskStoreOptions {
  /** The prefix of every key the store writes. Default `tether:task:`. */
  prefix?: string | undefined;
  /**
   * Called with a `STORE_CORRUPT` error for each stored value that `list()` skipped because it is not a
   * task record (an older or newer Tether's, or written by hand). Default: none.
   */
  onCorrupt?: ((error: TetherError) => void) | undefined;
}

/** How many keys one `list()` page of the storage reads. */
const PAGE = 500;

function storageError(code: 'STORE_READ_FAILED' | 'STORE_WRITE_FAILED', operation: string, taskId: string | undefined, cause: unknown): TetherError {
  return new TetherError(code, `${operation}: the Durable Object storage failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
    operation,
    taskId,
    cause,
  });
}

/**
 * A {@link TaskStore} in a Cloudflare Durable Object's storage, for Workers: task records survive the
 * request (and the isolate) that started the task, so a later request, an alarm or a Cron Trigger can
 * `client.resume(taskId)` it.
 *
 * Make one store per Durable Object (in its constructor) and use it from that object only: `update` is
 * atomic because the store runs one `update` per task at a time and a Durable Object is single-threaded.
 * It does not lease tasks (a Durable Object is already the one place its tasks are driven from). Values
 * are structured clones of the records; a value that is not a task record is `STORE_CORRUPT` from `get`
 * and `update`, and skipped by `list` (reported to `onCorrupt`). A storage failure is `STORE_READ_FAILED` or
 * `STORE_WRITE_FAILED` (the previous record intact).
 *
 * @example
 * ```ts
 * export class Tasks {
 *   private readonly store: TaskStore;
 *   constructor(state: { storage: DurableObjectStorageLike }) {
 *     this.store = createDurableObjectTaskStore(state.storage);
 *   }
 * }
 * ```
 */
export function createDurableObjectTaskStore(storage: DurableObjectStorageLike, options: DurableObjectTaskStoreOptions = {}): TaskStore {
  const prefix = options.prefix ?? 'tether:task:';
  /** The tail of each task's chain of updates: one at a time per task. */
  const tails = new Map<string, Promise<unknown>>();
  const key = (taskId: string): string => `${prefix}${taskId}`;
  const origin = (taskId: string, operation: string) => ({ where: `Durable Object storage key ${key(taskId)}`, operation });

  async function read(taskId: string, operation: string): Promise<TaskRecord | undefined> {
    let value: unknown;
    try {
      value = await storage.get(key(taskId));
    } catch (error) {
      throw storageError('STORE_READ_FAILED', operation, taskId, error);
    }
    return value === undefined ? undefined : checkTaskRecord(value, taskId, origin(taskId, operation));
  }

  async function write(taskId: string, record: TaskRecord | undefined, operation: string): Promise<void> {
    try {
      if (record === undefined) await storage.delete(key(taskId));
      else await storage.put(key(taskId), structuredClone(record));
    } catch (error) {
      throw storageError('STORE_WRITE_FAILED', operation, taskId, error);
    }
  }

  /** Runs `body` after every earlier operation queued for `taskId`. */
  function queued<T>(taskId: string, body: () => Promise<T>): Promise<T> {
    const previous = tails.get(taskId) ?? Promise.resolve();
    const run = previous.then(body, body);
    const tail = run.catch(() => undefined);
    tails.set(taskId, tail);
    void tail.then(() => {
      if (tails.get(taskId) === tail) tails.delete(taskId);
    });
    return run;
  }

  return {
    get: (taskId) => read(taskId, 'DurableObjectTaskStore.get'),
    put: (record) => queued(record.taskId, () => write(record.taskId, record, 'DurableObjectTaskStore.put')),
    delete: (taskId) => queued(taskId, () => write(taskId, undefined, 'DurableObjectTaskStore.delete')),
    update: (taskId, change) =>
      queued(taskId, async () => {
        const next = change(await read(taskId, 'DurableObjectTaskStore.update'));
        await write(taskId, next, 'DurableObjectTaskStore.update');
        return next === undefined ? undefined : structuredClone(next);
      }),
    async list(filter: TaskListFilter = {}): Promise<TaskRecord[]> {
      const records: TaskRecord[] = [];
      let startAfter: string | undefined;
      for (;;) {
        let page: Map<string, unknown>;
        try {
          page = await storage.list(startAfter === undefined ? { prefix, limit: PAGE } : { prefix, limit: PAGE, startAfter });
        } catch (error) {
          throw storageError('STORE_READ_FAILED', 'DurableObjectTaskStore.list', undefined, error);
        }
        for (const [k, value] of page) {
          const taskId = k.slice(prefix.length);
          try {
            records.push(checkTaskRecord(value, taskId, origin(taskId, 'DurableObjectTaskStore.list')));
          } catch (error) {
            options.onCorrupt?.(error as TetherError);
          }
          startAfter = k;
        }
        if (page.size < PAGE) break;
      }
      return records
        .filter((r) => (filter.active ? isActiveRecord(r) : true))
        .filter((r) => (filter.agentUrl === undefined ? true : r.agentUrl === filter.agentUrl));
    },
  };
}
