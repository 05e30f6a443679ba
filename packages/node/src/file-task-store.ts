import { resolve } from 'node:path';
import { isActiveRecord, StoreWatchers, TASK_RECORD_VERSION, taskKey, TetherError, type TaskListFilter, type TaskRecord, type WatchableTaskStore } from '@a2a-tether/core';
import { RecordDirectory, type RecordKind } from './record-directory.js';
import { keyParts, keyTaskId } from './task-key-parts.js';

/** Options of {@link createFileTaskStore}. */
export interface FileTaskStoreOptions {
  /**
   * Called once per record file that `list()` skipped: `STORE_CORRUPT` for one that is not a task
   * record (not JSON, truncated, not an object, no `taskId` or `schemaVersion`, a `schemaVersion`
   * newer than this version of Tether knows, or filed under another task's name; not a regular file,
   * such as a FIFO, or over 8 MiB: not read), `STORE_READ_FAILED`
   * for one that could not be read. The error's message names the file. Without it, skipped files
   * are silent.
   */
  onCorrupt?: ((error: TetherError) => void) | undefined;
}

const TASKS: RecordKind = {
  noun: 'task',
  idField: 'taskId',
  version: TASK_RECORD_VERSION,
  store: 'FileTaskStore',
  repair: 'put() or delete() the task',
  context: (key) => ({ taskId: keyTaskId(key) }),
  maxBytes: 8 << 20, // the engine's records are a few hundred bytes
  keyed: {
    keyOf: (record) => (typeof record['agentUrl'] === 'string' && typeof record['taskId'] === 'string' ? taskKey(record['agentUrl'], record['taskId']) : undefined),
    missing: 'has no agentUrl',
  },
};

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** The key of an agent's task, checked: `INVALID_ARGUMENT` for a key no task can have (an empty id, a lone surrogate). */
function checkedKey(key: unknown, method: string): string {
  const parts = keyParts(key);
  if (parts && parts.taskId !== '' && !LONE_SURROGATE.test(parts.taskId)) return key as string;
  const shown = typeof key === 'string' ? JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key) : typeof key;
  throw new TetherError('INVALID_ARGUMENT', `a task key must be taskKey(agentUrl, taskId) of a non-empty task id of whole Unicode characters, not ${shown}`, {
    operation: `FileTaskStore.${method}`,
  });
}

/** The key a record is filed under, checked like {@link checkedKey}. */
function keyOfRecord(record: unknown, method: string): string {
  const { agentUrl, taskId } = (record ?? {}) as Partial<TaskRecord>;
  return checkedKey(typeof agentUrl === 'string' && typeof taskId === 'string' ? taskKey(agentUrl, taskId) : undefined, method);
}

/**
 * A {@link TaskStore} that keeps one JSON file per task in `dir`: Node's durable default.
 *
 * Guarantees:
 * - A write is all or nothing, also across a crash or `kill -9`: the record goes to a temporary file
 *   in the same directory, is fsynced, renamed over the old one, and the directory is fsynced. A
 *   reader sees the previous record or the new one, never a mix; once `put`/`update`/`delete`
 *   resolves, the change survives the process.
 * - Writes to one task (`put`, `update`, `delete`) run one at a time, in call order; `update` is an
 *   atomic read-modify-write. `get` and `list` see every write called before them. This holds for
 *   every store of the process on the directory (however its path is spelled: stores on one real
 *   directory share their queues and watchers), and across processes: each write holds the task
 *   file's lock (`.<file>.lock`, created exclusively, holding the writer's host, pid and start time)
 *   while it reads and writes. A lock held by another process is waited for, up to 10 s, then
 *   `STORE_UNAVAILABLE` (retryable); one whose holder is gone (a crash, `kill -9`) is taken over at
 *   once, one of another host or pid namespace after 30 s without its holder's heartbeat.
 * - Files are created with mode 0600, the directory (created on first use, with its parents) 0700.
 *   An existing directory keeps its mode.
 * - A record's file is `task-<SHA-256 hex of its key>.json`, the key being `taskKey(agentUrl, taskId)`:
 *   two agents' tasks "1" are two files, and no id is ever part of a path. The agent and id are also
 *   stored inside the record and checked on read. Records an earlier version filed by the task id
 *   alone (`id-<hex>.json`, `sha256-<hex>.json`) are moved to their key's file when the store is first
 *   used and on each `list()`.
 * - Temporary files a crash left behind are ignored, and removed (best effort) when a store opens
 *   the directory, once provably abandoned (their writer is gone, or they are over an hour old and
 *   their writer is not provably alive): opening a second store on a live writer's directory (an
 *   admin `list()`, in this process or another) never fails that writer's writes.
 *
 * - Only regular files of at most 8 MiB are read, opened without blocking: a FIFO, a device, a
 *   directory or a huge file under a task's file name is `STORE_CORRUPT`, never waited on or read
 *   whole. A record over 8 MiB of JSON is refused (`INVALID_ARGUMENT`) before anything is written.
 *
 * Several processes may share a directory, but `watch` tells only this process's writes, and every
 * write of a task waits for the others': several orchestrator processes sharing many tasks are better
 * served by a shared store (Redis).
 *
 * Records hold only what the task engine writes (ids, state, the agent's URL, timestamps, the
 * last event id, a requested cancel), as JSON: no credentials, tokens or message contents.
 *
 * Errors are {@link TetherError}s naming the file: `STORE_CORRUPT` from `get` (and `update`) for a
 * file that is not a task record, not a regular file or over 8 MiB (`list` skips such files and reports them to `options.onCorrupt`
 * instead of failing; `put` or `delete` replaces or removes it); `STORE_WRITE_FAILED` when a write
 * or delete fails (permissions, a full disk; `cause` is the file system's error), leaving the
 * previous record intact; `STORE_UNAVAILABLE` (retryable) when another process held the task's lock
 * for 10 s; `STORE_READ_FAILED` when a file or the directory cannot be read;
 * `INVALID_ARGUMENT` for an empty or malformed id, a record that is not JSON-serializable or over
 * 8 MiB of it, or an `update` that returns another task's record.
 *
 * @param dir The directory of the records, resolved against the current directory now.
 */
export function createFileTaskStore(dir: string, options: FileTaskStoreOptions = {}): WatchableTaskStore {
  return new FileTaskStore(new RecordDirectory<TaskRecord>(resolve(dir), TASKS), options);
}

/** The watchers of each directory (by its real path): a write through any store of this process on it is told to all. */
const directoryWatchers = new Map<string, StoreWatchers>();

class FileTaskStore implements WatchableTaskStore {
  private readonly watchers: StoreWatchers;
  private migrated: Promise<void> | undefined;

  constructor(
    private readonly files: RecordDirectory<TaskRecord>,
    private readonly options: FileTaskStoreOptions,
  ) {
    let watchers = directoryWatchers.get(files.key);
    if (watchers === undefined) directoryWatchers.set(files.key, (watchers = new StoreWatchers()));
    this.watchers = watchers;
  }

  /** The writes of this process's stores on the directory, told to each watcher (another process's are not). */
  watch(onChange: () => void): () => void {
    return this.watchers.add(onChange);
  }

  private async told<T>(write: Promise<T>): Promise<T> {
    const value = await write;
    this.watchers.tell();
    return value;
  }

  /** Moves the records of the layout before to their keys' files, once (again after a failure); `list()` looks each time. */
  private ready(again = false): Promise<void> {
    if (again) this.migrated = undefined;
    this.migrated ??= this.files.migrate(again ? 'list' : 'open', this.options.onCorrupt).catch((error: unknown) => {
      this.migrated = undefined;
      throw error;
    });
    return this.migrated;
  }

  async get(key: string): Promise<TaskRecord | undefined> {
    const checked = checkedKey(key, 'get');
    await this.ready();
    return this.files.serially(checked, 'get', (name) => this.files.read(name, checked, 'get'));
  }

  async put(record: TaskRecord): Promise<void> {
    const key = keyOfRecord(record, 'put');
    await this.ready();
    return this.told(this.files.serially(key, 'put', (name) => this.files.locked(name, key, 'put', () => this.files.write(name, record, 'put'))));
  }

  async update(key: string, change: (current: TaskRecord | undefined) => TaskRecord | undefined): Promise<TaskRecord | undefined> {
    const checked = checkedKey(key, 'update');
    await this.ready();
    return this.told(this.files.serially(checked, 'update', (name) => this.files.locked(name, checked, 'update', async () => {
      // Freshly parsed: the change function gets its own copy, and nothing it does reaches the disk unless returned.
      const current = await this.files.read(name, checked, 'update');
      const next = change(current);
      if (next === undefined) {
        if (current !== undefined) await this.files.remove(name, checked, 'update');
        return undefined;
      }
      if (TASKS.keyed?.keyOf(next as unknown as Record<string, unknown>) !== checked) {
        throw new TetherError('INVALID_ARGUMENT', `update(${checked}) returned a record of another task (${this.files.describeId(next)}); nothing was written`, {
          operation: 'FileTaskStore.update',
          taskId: keyTaskId(checked),
        });
      }
      await this.files.write(name, next, 'update');
      return next;
    })));
  }

  async delete(key: string): Promise<void> {
    const checked = checkedKey(key, 'delete');
    await this.ready();
    return this.told(this.files.serially(checked, 'delete', (name) => this.files.locked(name, checked, 'delete', () => this.files.remove(name, checked, 'delete'))));
  }

  async list(filter: TaskListFilter = {}): Promise<TaskRecord[]> {
    await this.ready(true);
    const found = await this.files.readAll('list', this.options.onCorrupt);
    return found
      .filter((r) => !filter.active || isActiveRecord(r))
      .filter((r) => filter.agentUrl === undefined || r.agentUrl === filter.agentUrl)
      .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.agentUrl < b.agentUrl ? -1 : a.agentUrl > b.agentUrl ? 1 : 0));
  }
}
