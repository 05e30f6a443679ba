import { TetherError } from '../errors/tether-error.js';
import { checkTaskRecord } from './check-record.js';
import { taskIdOf, taskKey } from './task-key.js';
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

function storageError(code: 'STORE_READ_FAILED' | 'STORE_WRITE_FAILED', operation: string, key: string | undefined, cause: unknown): TetherError {
  return new TetherError(code, `${operation}: the Durable Object storage failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
    operation,
    taskId: key === undefined ? undefined : taskIdOf(key),
    cause,
  });
}

/**
 * A {@link TaskStore} in a Cloudflare Durable Object's storage, for Workers: task records survive the
 * request (and the isolate) that started the task, so a later request, an alarm or a Cron Trigger can
 * `client.resume(taskId)` it. Records are stored under `prefix` + `taskKey(agentUrl, taskId)`; records an
 * earlier version filed under `prefix` + the task id move there when `list()` reads them.
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
  const storageKey = (key: string): string => `${prefix}${key}`;
  const origin = (key: string, operation: string) => ({ where: `Durable Object storage key ${storageKey(key)}`, operation });

  async function read(key: string, operation: string): Promise<TaskRecord | undefined> {
    let value: unknown;
    try {
      value = await storage.get(storageKey(key));
    } catch (error) {
      throw storageError('STORE_READ_FAILED', operation, key, error);
    }
    return value === undefined ? undefined : checkTaskRecord(value, key, origin(key, operation));
  }

  async function write(key: string, record: TaskRecord | undefined, operation: string): Promise<void> {
    try {
      if (record === undefined) await storage.delete(storageKey(key));
      else await storage.put(storageKey(key), structuredClone(record));
    } catch (error) {
      throw storageError('STORE_WRITE_FAILED', operation, key, error);
    }
  }

  /** Runs `body` after every earlier operation queued for `key`. */
  function queued<T>(key: string, body: () => Promise<T>): Promise<T> {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(body, body);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  }

  /**
   * A record of the layout before (filed under its task id alone), moved under its key: written there
   * unless a record already is, then removed from the old place. `undefined` when `value` is not one.
   */
  async function migrate(storedAs: string, value: unknown): Promise<TaskRecord | undefined> {
    const { taskId, agentUrl } = (typeof value === 'object' && value !== null ? value : {}) as Partial<TaskRecord>;
    if (typeof taskId !== 'string' || typeof agentUrl !== 'string' || storedAs !== taskId) return undefined;
    const key = taskKey(agentUrl, taskId);
    const record = checkTaskRecord(value, key, origin(storedAs, 'DurableObjectTaskStore.list'));
    return queued(key, async () => {
      const current = await read(key, 'DurableObjectTaskStore.list').catch(() => undefined);
      if (current === undefined) await write(key, record, 'DurableObjectTaskStore.list');
      await write(storedAs, undefined, 'DurableObjectTaskStore.list');
      return current ?? record;
    });
  }

  return {
    get: (key) => read(key, 'DurableObjectTaskStore.get'),
    put: (record) => {
      const key = taskKey(record.agentUrl, record.taskId);
      return queued(key, () => write(key, record, 'DurableObjectTaskStore.put'));
    },
    delete: (key) => queued(key, () => write(key, undefined, 'DurableObjectTaskStore.delete')),
    update: (key, change) =>
      queued(key, async () => {
        const next = change(await read(key, 'DurableObjectTaskStore.update'));
        if (next !== undefined && taskKey(next.agentUrl, next.taskId) !== key) {
          throw new TetherError('INVALID_ARGUMENT', `DurableObjectTaskStore.update(${key}) returned a record of another task; nothing was written`, { operation: 'DurableObjectTaskStore.update' });
        }
        await write(key, next, 'DurableObjectTaskStore.update');
        return next === undefined ? undefined : structuredClone(next);
      }),
    async list(filter: TaskListFilter = {}): Promise<TaskRecord[]> {
      const records = new Map<string, TaskRecord>();
      let startAfter: string | undefined;
      for (;;) {
        let page: Map<string, unknown>;
        try {
          page = await storage.list(startAfter === undefined ? { prefix, limit: PAGE } : { prefix, limit: PAGE, startAfter });
        } catch (error) {
          throw storageError('STORE_READ_FAILED', 'DurableObjectTaskStore.list', undefined, error);
        }
        for (const [k, value] of page) {
          const key = k.slice(prefix.length);
          startAfter = k;
          try {
            // The layout before filed a record under its task id: moved under its key as it is listed.
            const record = (await migrate(key, value)) ?? checkTaskRecord(value, key, origin(key, 'DurableObjectTaskStore.list'));
            records.set(taskKey(record.agentUrl, record.taskId), record);
          } catch (error) {
            options.onCorrupt?.(error as TetherError);
          }
        }
        if (page.size < PAGE) break;
      }
      return [...records.values()]
        .filter((r) => (filter.active ? isActiveRecord(r) : true))
        .filter((r) => (filter.agentUrl === undefined ? true : r.agentUrl === filter.agentUrl));
    },
  };
}
