import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isActiveRecord, TASK_RECORD_VERSION, TetherError, type TaskListFilter, type TaskRecord, type TaskStore } from '@a2a-tether/core';

/** Options of {@link createFileTaskStore}. */
export interface FileTaskStoreOptions {
  /**
   * Called once per record file that `list()` skipped: `STORE_CORRUPT` for one that is not a task
   * record (not JSON, truncated, not an object, no `taskId` or `schemaVersion`, a `schemaVersion`
   * newer than this version of Tether knows, or filed under another task's name), `STORE_READ_FAILED`
   * for one that could not be read. The error's message names the file. Without it, skipped files
   * are silent.
   */
  onCorrupt?: ((error: TetherError) => void) | undefined;
}

/** Hex of the id's UTF-8 up to this length (64 bytes of id); a SHA-256 of it beyond. Names stay well under 255 bytes. */
const MAX_HEX_NAME = 128;
const RECORD_NAME = /^(?:id|sha256)-[0-9a-f]+\.json$/;
/** A write's temporary file: `.<record name>.<random>.tmp`. Never read; removed on open. */
const TEMP_NAME = /^\..+\.tmp$/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** Record files `list()` reads at once. */
const READ_CONCURRENCY = 16;

/**
 * A {@link TaskStore} that keeps one JSON file per task in `dir`: Node's durable default.
 *
 * Guarantees:
 * - A write is all or nothing, also across a crash or `kill -9`: the record goes to a temporary file
 *   in the same directory, is fsynced, renamed over the old one, and the directory is fsynced. A
 *   reader sees the previous record or the new one, never a mix; once `put`/`update`/`delete`
 *   resolves, the change survives the process.
 * - Writes to one task (`put`, `update`, `delete`) run one at a time, in call order; `update` is an
 *   atomic read-modify-write. `get` and `list` see every write called before them.
 * - Files are created with mode 0600, the directory (created on first use, with its parents) 0700.
 *   An existing directory keeps its mode.
 * - File names derive from the task id (hex of it, or a SHA-256 for long ids), never a path: any id
 *   is safe. The id is also stored inside the record and checked on read.
 * - Temporary files a crash left behind are ignored, and removed (best effort) when the store opens.
 *
 * **One process owns a directory.** Serialization is in-process: two processes writing the same
 * directory can lose each other's updates. Several orchestrator processes sharing tasks need a
 * shared store (Redis).
 *
 * Records hold only what the task engine writes (ids, state, the agent's URL, timestamps, the
 * last event id, a requested cancel), as JSON: no credentials, tokens or message contents.
 *
 * Errors are {@link TetherError}s naming the file: `STORE_CORRUPT` from `get` (and `update`) for a
 * file that is not a task record (`list` skips such files and reports them to `options.onCorrupt`
 * instead of failing; `put` or `delete` replaces or removes it); `STORE_WRITE_FAILED` when a write
 * or delete fails (permissions, a full disk; `cause` is the file system's error), leaving the
 * previous record intact; `STORE_READ_FAILED` when a file or the directory cannot be read;
 * `INVALID_ARGUMENT` for an empty or malformed id, a record that is not JSON-serializable, or an
 * `update` that returns another task's record.
 *
 * @param dir The directory of the records, resolved against the current directory now.
 */
export function createFileTaskStore(dir: string, options: FileTaskStoreOptions = {}): TaskStore {
  return new FileTaskStore(resolve(dir), options);
}

class FileTaskStore implements TaskStore {
  private opened: Promise<void> | undefined;
  /** The tail of each task's queue of operations; never rejects. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly options: FileTaskStoreOptions,
  ) {}

  get(taskId: string): Promise<TaskRecord | undefined> {
    return this.serially(taskId, 'get', (name) => this.read(name, taskId, 'FileTaskStore.get'));
  }

  put(record: TaskRecord): Promise<void> {
    const taskId = (record as Partial<TaskRecord> | null)?.taskId as string;
    return this.serially(taskId, 'put', (name) => this.write(name, record, 'FileTaskStore.put'));
  }

  update(taskId: string, change: (current: TaskRecord | undefined) => TaskRecord | undefined): Promise<TaskRecord | undefined> {
    const operation = 'FileTaskStore.update';
    return this.serially(taskId, 'update', async (name) => {
      // Freshly parsed: the change function gets its own copy, and nothing it does reaches the disk unless returned.
      const current = await this.read(name, taskId, operation);
      const next = change(current);
      if (next === undefined) {
        if (current !== undefined) await this.remove(name, taskId, operation);
        return undefined;
      }
      if ((next as Partial<TaskRecord> | null)?.taskId !== taskId) {
        throw new TetherError('INVALID_ARGUMENT', `update('${taskId}') returned a record of another task (${describeId(next)}); nothing was written`, {
          operation,
          taskId,
        });
      }
      await this.write(name, next, operation);
      return next;
    });
  }

  delete(taskId: string): Promise<void> {
    return this.serially(taskId, 'delete', (name) => this.remove(name, taskId, 'FileTaskStore.delete'));
  }

  async list(filter: TaskListFilter = {}): Promise<TaskRecord[]> {
    await this.open();
    // Writes already asked for land first, as they would in memory.
    await Promise.all(this.queues.values());
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw new TetherError('STORE_READ_FAILED', `could not list the task store directory ${this.dir}: ${fsMessage(error)}`, {
        operation: 'FileTaskStore.list',
        cause: error,
      });
    }
    const pending = names.filter((name) => RECORD_NAME.test(name));
    const found: TaskRecord[] = [];
    const readNext = async (): Promise<void> => {
      for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
        try {
          const record = await this.read(name, undefined, 'FileTaskStore.list');
          if (record) found.push(record);
        } catch (error) {
          // One bad file must not hide every other task: skip it and say so.
          if (!(error instanceof TetherError)) throw error;
          this.options.onCorrupt?.(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, pending.length) }, readNext));
    return found
      .filter((r) => !filter.active || isActiveRecord(r))
      .filter((r) => filter.agentUrl === undefined || r.agentUrl === filter.agentUrl)
      .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  }

  /** Runs `operation` after every earlier operation on the same task, once the directory is ready. */
  private serially<T>(taskId: string, method: string, operation: (name: string) => Promise<T>): Promise<T> {
    const previous = this.queues.get(taskId) ?? Promise.resolve();
    const result = previous.then(async () => {
      const name = fileName(taskId, `FileTaskStore.${method}`);
      await this.open();
      return operation(name);
    });
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(taskId, tail);
    void tail.then(() => {
      if (this.queues.get(taskId) === tail) this.queues.delete(taskId);
    });
    return result;
  }

  /** Creates the directory and clears a crash's temporary files, once (again after a failure). */
  private open(): Promise<void> {
    this.opened ??= this.prepare().catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened;
  }

  private async prepare(): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new TetherError('STORE_WRITE_FAILED', `could not create the task store directory ${this.dir}: ${fsMessage(error)}`, {
        operation: 'FileTaskStore.open',
        cause: error,
      });
    }
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return; // list() reports an unreadable directory; cleaning up is best effort.
    }
    await Promise.all(names.filter((name) => TEMP_NAME.test(name)).map((name) => unlink(join(this.dir, name)).catch(() => undefined)));
  }

  private async read(name: string, taskId: string | undefined, operation: string): Promise<TaskRecord | undefined> {
    const path = join(this.dir, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw new TetherError('STORE_READ_FAILED', `could not read task record ${path}: ${fsMessage(error)}`, { operation, taskId, cause: error });
    }
    const corrupt = (why: string, cause?: unknown): TetherError =>
      new TetherError('STORE_CORRUPT', `task record ${path} ${why}; put() or delete() the task to replace it`, { operation, taskId, cause });
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      throw corrupt(`is not valid JSON (truncated or overwritten? ${text.length} characters)`, error);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw corrupt('is not a JSON object');
    const { taskId: storedId, schemaVersion } = record as Partial<Record<keyof TaskRecord, unknown>>;
    if (typeof storedId !== 'string' || storedId === '') throw corrupt('has no taskId');
    if (taskId !== undefined ? storedId !== taskId : !isValidId(storedId) || fileName(storedId, operation) !== name) {
      throw corrupt(`holds task ${describeId(record)}, which belongs in another file`);
    }
    if (typeof schemaVersion !== 'number' || !Number.isInteger(schemaVersion)) throw corrupt('has no schemaVersion');
    if (schemaVersion > TASK_RECORD_VERSION) {
      throw corrupt(`has schemaVersion ${schemaVersion}, newer than the ${TASK_RECORD_VERSION} this version of Tether reads (written by a newer Tether?)`);
    }
    return record as TaskRecord;
  }

  private async write(name: string, record: TaskRecord, operation: string): Promise<void> {
    let text: string;
    try {
      text = JSON.stringify(record);
    } catch (error) {
      throw new TetherError('INVALID_ARGUMENT', `the record of task ${describeId(record)} is not JSON data: ${fsMessage(error)}`, {
        operation,
        taskId: record.taskId,
        cause: error,
      });
    }
    const path = join(this.dir, name);
    const temp = join(this.dir, `.${name}.${randomBytes(8).toString('hex')}.tmp`);
    try {
      const file = await open(temp, 'wx', 0o600);
      try {
        await file.writeFile(text, 'utf8');
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, path);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw new TetherError('STORE_WRITE_FAILED', `could not write task record ${path}: ${fsMessage(error)}; the previous record is unchanged`, {
        operation,
        taskId: record.taskId,
        cause: error,
      });
    }
    await this.syncDirectory(path, record.taskId, operation);
  }

  private async remove(name: string, taskId: string, operation: string): Promise<void> {
    const path = join(this.dir, name);
    try {
      await unlink(path);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      throw new TetherError('STORE_WRITE_FAILED', `could not delete task record ${path}: ${fsMessage(error)}; the record is unchanged`, {
        operation,
        taskId,
        cause: error,
      });
    }
    await this.syncDirectory(path, taskId, operation);
  }

  /** Makes a rename or unlink durable: without it, a power loss can bring the old directory entry back. */
  private async syncDirectory(path: string, taskId: string, operation: string): Promise<void> {
    if (process.platform === 'win32') return; // Directories cannot be opened for fsync there.
    try {
      const directory = await open(this.dir, 'r');
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    } catch (error) {
      throw new TetherError('STORE_WRITE_FAILED', `changed task record ${path} but could not fsync its directory: ${fsMessage(error)}; the change may not survive a power loss`, {
        operation,
        taskId,
        cause: error,
      });
    }
  }
}

/** The record's file name for a task id; rejects ids no task can have. */
function fileName(taskId: string, operation: string): string {
  if (!isValidId(taskId)) {
    throw new TetherError('INVALID_ARGUMENT', `a task id must be a non-empty string of whole Unicode characters, not ${describeId({ taskId })}`, {
      operation,
    });
  }
  // Lower-case hex: distinct on case-insensitive file systems too, and reversible when reading a directory.
  const hex = Buffer.from(taskId, 'utf8').toString('hex');
  return hex.length <= MAX_HEX_NAME ? `id-${hex}.json` : `sha256-${createHash('sha256').update(taskId, 'utf8').digest('hex')}.json`;
}

/** Lone surrogates would all encode to U+FFFD and share a file. */
function isValidId(taskId: unknown): taskId is string {
  return typeof taskId === 'string' && taskId !== '' && !LONE_SURROGATE.test(taskId);
}

function describeId(record: unknown): string {
  const id = (record as { taskId?: unknown } | null | undefined)?.taskId;
  if (typeof id !== 'string') return `taskId ${id === undefined ? 'missing' : typeof id}`;
  return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function fsMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
