import {
  checkTaskRecord,
  isActiveRecord,
  MemoryTaskStore,
  StoreWatchers,
  taskKey,
  TetherError,
  type TaskListFilter,
  type TaskRecord,
  type TaskStore,
  type WatchableTaskStore,
} from '@a2a-tether/core';
import { createStore, del, entries, get, set, update, type UseStore } from 'idb-keyval';

/** Options of {@link createIndexedDbTaskStore}. */
export interface IndexedDbTaskStoreOptions {
  /** The IndexedDB database, the store's own (default `tether`). */
  dbName?: string | undefined;
  /** The object store inside it (default `tasks`). */
  storeName?: string | undefined;
  /**
   * When the database fails (blocked, quota exceeded, unavailable in private mode): `'memory'` (default)
   * goes on with the records in memory — the page keeps working, but its tasks will not survive a
   * reload — and tells `onFallback`; `'none'` throws the typed error on every call instead.
   */
  fallback?: 'memory' | 'none' | undefined;
  /** Called once, with the typed error (`STORE_READ_FAILED` / `STORE_WRITE_FAILED`), when the store falls back to memory. */
  onFallback?: ((error: TetherError) => void) | undefined;
  /**
   * Called once per record `list()` skipped because it is not a task record (`STORE_CORRUPT`: not an
   * object, another task's record, a newer `schemaVersion` …), with the error naming it. Without it,
   * skipped records are silent. `get()` and `update()` of such a task reject with it.
   */
  onCorrupt?: ((error: TetherError) => void) | undefined;
}

/**
 * The IndexedDB task store: a `TaskStore` that says when its records change — its own writes and those of
 * every tab of the origin on the same database (`watch`, through a BroadcastChannel) — and where its
 * records live now.
 */
export interface IndexedDbTaskStore extends WatchableTaskStore {
  /** `'indexeddb'`, or `'memory'` after the database failed (see `fallback`). */
  readonly mode: 'indexeddb' | 'memory';
  /** The error that made it fall back to memory, if it did. */
  readonly fallbackError: TetherError | undefined;
}

function failed(code: 'STORE_READ_FAILED' | 'STORE_WRITE_FAILED', what: string, taskId: string | undefined, error: unknown): TetherError {
  const name = error instanceof DOMException || error instanceof Error ? error.name : '';
  const why = error instanceof Error ? error.message : String(error);
  const hint =
    name === 'QuotaExceededError'
      ? ' (the browser refused more storage for this site)'
      : name === 'InvalidStateError' || name === 'VersionError' || name === 'UnknownError'
        ? ' (the database is blocked, closed or unavailable — private mode, or another tab upgrading it)'
        : '';
  return new TetherError(code, `IndexedDB task store: ${what} failed${hint}: ${why}`, { taskId, cause: error, maybeDelivered: false });
}

/**
 * A task store in the browser's IndexedDB (through idb-keyval): the records of followed tasks survive a
 * reload, so `client.resumeAll()` on page load brings every live task back. Its own database and object
 * store (`createStore`); `update` is one IndexedDB read-write transaction (atomic across the tabs of the
 * origin). Records are keyed by `taskKey(agentUrl, taskId)` (two agents' tasks "1" are two records);
 * records an earlier version keyed by the task id alone move to their key on the first call and on each
 * `list()`. Records hold what resuming needs — never a token or credential. A failure of the database
 * (blocked, quota exceeded, unavailable in private mode) is a typed `STORE_READ_FAILED` /
 * `STORE_WRITE_FAILED`: by default the store then keeps its records in memory (`mode` says so, and
 * `onFallback` is told once), so the page keeps working; with `fallback: 'none'` every call throws it
 * (the engine surfaces write failures as `store-error` events, and `start()` rejects when a task's first
 * record cannot be stored).
 */
export function createIndexedDbTaskStore(options: IndexedDbTaskStoreOptions = {}): IndexedDbTaskStore {
  const changes = new Changes(`a2a-tether:tasks:${options.dbName ?? 'tether'}/${options.storeName ?? 'tasks'}`);
  const idb = indexedDbStore(options);
  const watch = (onChange: () => void): (() => void) => changes.watch(onChange);
  if (options.fallback === 'none') return { ...changes.told(idb), mode: 'indexeddb', fallbackError: undefined, watch };
  let memory: MemoryTaskStore | undefined;
  let fallbackError: TetherError | undefined;
  // Each call goes to IndexedDB until the database fails once; from then on, to memory.
  const call = async <T>(use: (store: TaskStore) => Promise<T>): Promise<T> => {
    if (!memory) {
      try {
        return await use(idb);
      } catch (error) {
        if (!(error instanceof TetherError) || (error.code !== 'STORE_READ_FAILED' && error.code !== 'STORE_WRITE_FAILED')) throw error;
        // Calls already on their way when the database failed go to memory too; the app is told once.
        if (!memory) {
          memory = new MemoryTaskStore();
          fallbackError = error;
          options.onFallback?.(error);
        }
      }
    }
    return use(memory);
  };
  return {
    get mode() {
      return memory ? 'memory' : 'indexeddb';
    },
    get fallbackError() {
      return fallbackError;
    },
    ...changes.told({
      get: (taskId) => call((s) => s.get(taskId)),
      put: (record) => call((s) => s.put(record)),
      update: (taskId, change) => call((s) => s.update(taskId, change)),
      list: (filter) => call((s) => s.list(filter)),
      delete: (taskId) => call((s) => s.delete(taskId)),
    }),
    watch,
  };
}

/**
 * Who is told that records changed: this tab's watchers at once, the other tabs of the origin through a
 * BroadcastChannel named after the database (a channel never delivers to its sender). Without
 * BroadcastChannel (a worker runtime without it), only this tab's watchers.
 */
class Changes {
  private readonly watchers = new StoreWatchers();
  private channel: BroadcastChannel | undefined;

  constructor(private readonly name: string) {}

  private open(): BroadcastChannel | undefined {
    if (this.channel || typeof BroadcastChannel !== 'function') return this.channel;
    this.channel = new BroadcastChannel(this.name);
    this.channel.onmessage = () => this.watchers.tell();
    return this.channel;
  }

  /** A record was written or deleted here. */
  changed(): void {
    this.watchers.tell();
    this.open()?.postMessage('changed');
  }

  watch(onChange: () => void): () => void {
    this.open();
    return this.watchers.add(onChange);
  }

  /** `store`, telling each successful write. */
  told(store: TaskStore): TaskStore {
    const after = <T>(done: Promise<T>): Promise<T> =>
      done.then((value) => {
        this.changed();
        return value;
      });
    return {
      get: (taskId) => store.get(taskId),
      list: (filter) => store.list(filter),
      put: (record, options) => after(store.put(record, options)),
      update: (taskId, change, options) => after(store.update(taskId, change, options)),
      delete: (taskId, options) => after(store.delete(taskId, options)),
    };
  }
}

/** The task id a store key (`taskKey(agentUrl, taskId)`) names, for messages; the key when it is not one. */
function idOf(key: string): string {
  try {
    const parts: unknown = JSON.parse(key);
    if (Array.isArray(parts) && typeof parts[1] === 'string') return parts[1];
  } catch {
    // not a key
  }
  return key;
}

function indexedDbStore(options: IndexedDbTaskStoreOptions): TaskStore {
  let db: UseStore | undefined;
  const dbName = options.dbName ?? 'tether';
  const storeName = options.storeName ?? 'tasks';
  const store = (): UseStore => (db ??= createStore(dbName, storeName));
  const origin = (key: string, operation: string): { where: string; operation: string } => ({
    where: `IndexedDB record ${JSON.stringify(key)} of ${dbName}/${storeName}`,
    operation,
  });
  let migrated: Promise<void> | undefined;

  /**
   * Moves the records an earlier version filed under their task id alone to their keys (each written
   * there unless a record already is, then removed from the old one), and returns every record. A value
   * under a key that is neither layout's is `STORE_CORRUPT`, reported and skipped.
   */
  async function readAll(): Promise<TaskRecord[]> {
    let all: Array<[IDBValidKey, unknown]>;
    try {
      all = await entries<IDBValidKey, unknown>(store());
    } catch (error) {
      throw failed('STORE_READ_FAILED', 'listing tasks', undefined, error);
    }
    const found = new Map<string, TaskRecord>();
    for (const [stored, value] of all) {
      const { taskId, agentUrl } = (typeof value === 'object' && value !== null ? value : {}) as Partial<TaskRecord>;
      const before = typeof taskId === 'string' && typeof agentUrl === 'string' && stored === taskId;
      const key = before ? taskKey(agentUrl, taskId) : String(stored);
      let record: TaskRecord;
      try {
        record = checkTaskRecord(value, key, origin(String(stored), 'IndexedDbTaskStore.list'));
      } catch (error) {
        // One bad record never hides the others: skipped, and reported.
        options.onCorrupt?.(error as TetherError);
        continue;
      }
      if (before) {
        try {
          await update<unknown>(key, (current) => current ?? record, store());
          await del(stored, store());
          record = checkTaskRecord(await get<unknown>(key, store()), key, origin(key, 'IndexedDbTaskStore.list'));
        } catch (error) {
          if (error instanceof TetherError) continue; // the record at its key is bad: listed (and said) as that key
          throw failed('STORE_WRITE_FAILED', `moving task ${taskId} to its key`, taskId, error);
        }
      }
      found.set(key, record);
    }
    return [...found.values()];
  }

  /** The first call moves the records of the layout before (see readAll), once. */
  const ready = (): Promise<void> => (migrated ??= readAll().then(() => undefined, (error: unknown) => ((migrated = undefined), Promise.reject(error))));

  return {
    async get(key: string): Promise<TaskRecord | undefined> {
      await ready();
      let value: unknown;
      try {
        value = await get<unknown>(key, store());
      } catch (error) {
        throw failed('STORE_READ_FAILED', `reading task ${idOf(key)}`, idOf(key), error);
      }
      return value === undefined ? undefined : checkTaskRecord(value, key, origin(key, 'IndexedDbTaskStore.get'));
    },
    async put(record: TaskRecord): Promise<void> {
      await ready();
      try {
        await set(taskKey(record.agentUrl, record.taskId), record, store());
      } catch (error) {
        throw failed('STORE_WRITE_FAILED', `writing task ${record.taskId}`, record.taskId, error);
      }
    },
    async update(key, change): Promise<TaskRecord | undefined> {
      await ready();
      let next: TaskRecord | undefined;
      let deleted = false;
      let changeFailed = false;
      try {
        // idb-keyval's update runs get and put in one read-write transaction; `undefined` means delete.
        await update<TaskRecord | undefined>(
          key,
          (current) => {
            changeFailed = true;
            // A record that is not a task record is not handed to `change`: STORE_CORRUPT, nothing written.
            next = change(current === undefined ? undefined : checkTaskRecord(current, key, origin(key, 'IndexedDbTaskStore.update')));
            if (next !== undefined && taskKey(next.agentUrl, next.taskId) !== key) {
              throw new TetherError('INVALID_ARGUMENT', `IndexedDbTaskStore.update(${key}) returned a record of another task; nothing was written`, { taskId: idOf(key), maybeDelivered: false });
            }
            changeFailed = false;
            deleted = next === undefined && current !== undefined;
            return next;
          },
          store(),
        );
        if (deleted) await del(key, store());
      } catch (error) {
        // The caller's own function threw: nothing was written; its error, as it was.
        if (changeFailed) throw error;
        throw failed('STORE_WRITE_FAILED', `updating task ${idOf(key)}`, idOf(key), error);
      }
      return next;
    },
    async list(filter: TaskListFilter = {}): Promise<TaskRecord[]> {
      const reading = readAll();
      migrated = reading.then(() => undefined);
      const all = await reading;
      return all.filter((record) => (!filter.active || isActiveRecord(record)) && (filter.agentUrl === undefined || record.agentUrl === filter.agentUrl));
    },
    async delete(key: string): Promise<void> {
      await ready();
      try {
        await del(key, store());
      } catch (error) {
        throw failed('STORE_WRITE_FAILED', `deleting task ${idOf(key)}`, idOf(key), error);
      }
    },
  };
}
