// The file mechanics both file stores share (tasks, workflows): one JSON file per record in a directory,
// written atomically and durably, one writer per record (in this process and across processes), with
// checked reads. Internal to this package.
import { createHash, randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { TetherError, type ErrorContext } from '@a2a-tether/core';
import { readCapped } from './read-capped.js';
import { LockFailure, withRecordLock } from './record-lock.js';
import { ownTempTag, tempAbandoned } from './temp-owner.js';

/** What kind of record a {@link RecordDirectory} holds: used for reading, naming files and in messages. */
export interface RecordKind {
  /** The record's name in messages: `task` gives "task record", "task store directory", "a task id". */
  noun: string;
  /** The field that holds a record's id: `taskId`, `id`. */
  idField: string;
  /** The newest `schemaVersion` this version of Tether reads; a newer record is `STORE_CORRUPT`. */
  version: number;
  /** The store's class name, the first part of every error's `operation` (`FileTaskStore`). */
  store: string;
  /** How the caller replaces a bad file, for `STORE_CORRUPT` messages: `put() or delete() the task`. */
  repair: string;
  /** Extra context for the store's errors about one record (e.g. `{ taskId }`). */
  context?: ((id: string | undefined) => ErrorContext) | undefined;
  /**
   * The largest record file read or written (bytes of JSON): a larger file is `STORE_CORRUPT`, never
   * read whole, and a larger record is refused before anything is written.
   */
  maxBytes: number;
  /**
   * Records filed by a key of their own rather than their id (tasks: `taskKey(agentUrl, taskId)`, so two
   * agents' tasks "1" are two files): the key of a record (`undefined` when it has none: `missing` says why,
   * e.g. "has no agentUrl"). Their files are `<noun>-<SHA-256 hex of the key>.json`; files of the layout
   * before (named after the id) are moved by {@link RecordDirectory.migrate}.
   */
  keyed?: { keyOf(record: Record<string, unknown>): string | undefined; missing: string } | undefined;
}

/** Hex of the id's UTF-8 up to this length (64 bytes of id); a SHA-256 of it beyond. Names stay well under 255 bytes. */
const MAX_HEX_NAME = 128;
/** Names of records filed by id: every record's before keys (`keyed`), a workflow's still. */
const ID_NAME = /^(?:id|sha256)-[0-9a-f]+\.json$/;
/**
 * A write's temporary file: `.<record name>.<owner tag>.<random>.tmp` (see `temp-owner.ts`). Never
 * read; removed on open once provably abandoned.
 */
const TEMP_NAME = /^\..+\.tmp$/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
/** Record files `readAll()` reads at once. */
const READ_CONCURRENCY = 16;

/**
 * The queues of every directory a store opened in this process, by its real path: two stores on one
 * directory (however it is spelled) share them, so their calls on one id run one at a time, in call order.
 */
const directories = new Map<string, Map<string, Promise<void>>>();

function queuesOf(key: string): Map<string, Promise<void>> {
  let queues = directories.get(key);
  if (queues === undefined) directories.set(key, (queues = new Map()));
  return queues;
}

/** `dir` (absolute) with its symbolic links resolved, as far as it exists yet: the rest is created as directories. */
function realDirectory(dir: string): string {
  // Bounded by the depth of `dir`: each turn goes one directory up.
  for (let existing = dir, rest = ''; ; rest = join(basename(existing), rest), existing = dirname(existing)) {
    try {
      return join(realpathSync.native(existing), rest);
    } catch {
      if (dirname(existing) === existing) return dir;
    }
  }
}

/**
 * A directory of JSON records, one file per id.
 *
 * - A write goes to a temporary file in the same directory (mode 0600), is fsynced, renamed over the
 *   old file, and the directory is fsynced: all or nothing, also across a crash.
 * - The directory is created (0700, with its parents) on first use, and a crash's temporary files
 *   are removed then: only those provably abandoned (their writer is gone, or they are older than an
 *   hour), so that opening a directory — a second store, an admin `list()` in another process —
 *   never removes a live writer's file from under it.
 * - File names derive from the id (hex of it, or a SHA-256 for long ids) or, for a keyed kind, are
 *   the SHA-256 of the record's key; never a path. The id (key) is also kept inside the record and
 *   checked on read.
 * - {@link serially} runs one operation per id at a time, in call order, in every store of this
 *   process on the directory; {@link locked} keeps other processes' writes of the record out meanwhile.
 * - A record file is read only when the opened file is a regular one of at most `kind.maxBytes`.
 */
export class RecordDirectory<R extends object> {
  private opened: Promise<void> | undefined;
  /** The tail of each id's queue of operations, shared by the stores of this process on the directory; never rejects. */
  private readonly queues: Map<string, Promise<void>>;
  /** The directory's real path, as far as it exists: the same for every store of this process on it. */
  readonly key: string;

  /** The names of record files: by key (`<noun>-<sha256>.json`) for a keyed kind, by id otherwise. */
  private readonly recordName: RegExp;

  /** @param dir An absolute directory. */
  constructor(
    readonly dir: string,
    private readonly kind: RecordKind,
  ) {
    this.key = realDirectory(dir);
    this.queues = queuesOf(this.key);
    this.recordName = kind.keyed ? new RegExp(`^${kind.noun}-[0-9a-f]{64}\\.json$`) : ID_NAME;
  }

  /** `Store.method`, the `operation` of an error. */
  private operation(method: string): string {
    return `${this.kind.store}.${method}`;
  }

  /**
   * Runs `operation` with the id's file name after every earlier operation on the same id, once the
   * directory is ready. An id no record can have rejects with `INVALID_ARGUMENT`, in turn.
   */
  serially<T>(id: string, method: string, operation: (name: string) => Promise<T>): Promise<T> {
    const previous = this.queues.get(id) ?? Promise.resolve();
    const result = previous.then(async () => {
      const name = this.fileName(id, this.operation(method));
      await this.open();
      return operation(name);
    });
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(id, tail);
    void tail.then(() => {
      if (this.queues.get(id) === tail) this.queues.delete(id);
    });
    return result;
  }

  /**
   * Runs `operation` — a write, or a read-modify-write — holding record file `name`'s lock: another
   * process's writes of the record wait for it (see `record-lock.ts`). Call it within {@link serially}.
   * A lock another process holds past `RECORD_LOCK.waitMs` is `STORE_UNAVAILABLE` (retryable); one
   * that cannot be created (permissions, a full disk) is `STORE_WRITE_FAILED`.
   */
  async locked<T>(name: string, id: string | undefined, method: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await withRecordLock(this.dir, name, operation);
    } catch (error) {
      if (!(error instanceof LockFailure)) throw error;
      const path = join(this.dir, name);
      const outcome = error.code === 'STORE_WRITE_FAILED' ? 'the previous record is unchanged' : 'nothing was written; try again';
      throw new TetherError(error.code, `could not write ${this.kind.noun} record ${path}: ${error.message}; ${outcome}`, this.context(this.operation(method), id, error.cause ?? error));
    }
  }

  /**
   * Reads the record in file `name`; `undefined` when there is none. `id`: the id (the key, for a keyed
   * kind) it must hold (`undefined`: the one its name says; `legacy`: a name of the layout by id).
   * `method` names the store's method in errors.
   */
  async read(name: string, id: string | undefined, method: string, legacy = false): Promise<R | undefined> {
    const operation = this.operation(method);
    const path = join(this.dir, name);
    const { noun, idField, version, maxBytes } = this.kind;
    const corrupt = (why: string, cause?: unknown): TetherError =>
      new TetherError('STORE_CORRUPT', `${noun} record ${path} ${why}; ${this.kind.repair} to replace it`, this.context(operation, id, cause));
    let read;
    try {
      read = await readCapped(path, maxBytes);
    } catch (error) {
      throw new TetherError('STORE_READ_FAILED', `could not read ${noun} record ${path}: ${fsMessage(error)}`, this.context(operation, id, error));
    }
    if (read.kind === 'missing') return undefined;
    if (read.kind === 'special') throw corrupt(`is not a regular file (${read.what}); it was not read`);
    if (read.kind === 'over') throw corrupt(`is ${read.size} bytes, over the ${maxBytes} a record file may hold; it was not read`);
    const text = read.bytes.toString('utf8');
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (error) {
      throw corrupt(`is not valid JSON (truncated or overwritten? ${text.length} characters)`, error);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw corrupt('is not a JSON object');
    const { [idField]: storedId, schemaVersion } = record as Record<string, unknown>;
    if (typeof storedId !== 'string' || storedId === '') throw corrupt(`has no ${idField}`);
    const storedKey = this.kind.keyed ? this.kind.keyed.keyOf(record as Record<string, unknown>) : storedId;
    if (storedKey === undefined) throw corrupt(this.kind.keyed?.missing ?? `has no ${idField}`);
    // `id` (the key asked for) or, reading a directory, the file's name: what the record must belong to.
    const belongs = id !== undefined ? storedKey === id : isValidId(storedId) && (legacy ? idFileName(storedId) : this.fileName(storedKey, operation)) === name;
    if (!belongs) throw corrupt(`holds ${noun} ${this.describeId(record)}, which belongs in another file`);
    if (typeof schemaVersion !== 'number' || !Number.isInteger(schemaVersion)) throw corrupt('has no schemaVersion');
    if (schemaVersion > version) {
      throw corrupt(`has schemaVersion ${schemaVersion}, newer than the ${version} this version of Tether reads (written by a newer Tether?)`);
    }
    return record as R;
  }

  /**
   * Every record in the directory, after the writes already asked for. A file that is not a record
   * (or cannot be read) is skipped and passed to `onCorrupt`; no directory yet means no records.
   */
  async readAll(method: string, onCorrupt: ((error: TetherError) => void) | undefined): Promise<R[]> {
    const operation = this.operation(method);
    await this.open();
    // Writes already asked for land first, as they would in memory.
    await Promise.all(this.queues.values());
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw new TetherError('STORE_READ_FAILED', `could not list the ${this.kind.noun} store directory ${this.dir}: ${fsMessage(error)}`, {
        operation,
        cause: error,
      });
    }
    const pending = names.filter((name) => this.recordName.test(name));
    const found: R[] = [];
    const readNext = async (): Promise<void> => {
      for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
        try {
          const record = await this.read(name, undefined, method);
          if (record) found.push(record);
        } catch (error) {
          // One bad file must not hide every other record: skip it and say so.
          if (!(error instanceof TetherError)) throw error;
          onCorrupt?.(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, pending.length) }, readNext));
    return found;
  }

  /**
   * A keyed kind: moves the records of the layout before (files named after the record's id) to the
   * names of their keys, each in turn with the writes of its key: written there unless a record already
   * is, then the old file removed. A file that is not a record stays, passed to `onCorrupt`.
   */
  async migrate(method: string, onCorrupt: ((error: TetherError) => void) | undefined): Promise<void> {
    const keyed = this.kind.keyed;
    if (!keyed) return;
    await this.open();
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return; // readAll() reports an unreadable directory
    }
    for (const old of names.filter((name) => ID_NAME.test(name))) {
      let record: R | undefined;
      try {
        record = await this.read(old, undefined, method, true);
      } catch (error) {
        if (!(error instanceof TetherError)) throw error;
        onCorrupt?.(error);
        continue;
      }
      const key = record && keyed.keyOf(record as Record<string, unknown>);
      if (record === undefined || key === undefined) continue;
      // Both files' locks, as any write holds them: another process's writes of either wait.
      await this.serially(key, method, (name) =>
        this.locked(name, key, method, () =>
          this.locked(old, key, method, async () => {
            const current = await this.read(name, key, method).catch(() => undefined);
            if (current === undefined) await this.write(name, record, method);
            await this.remove(old, key, method);
          }),
        ),
      );
    }
  }

  /** Replaces the record in file `name`, atomically and durably; `STORE_WRITE_FAILED` leaves the previous one. */
  async write(name: string, record: R, method: string): Promise<void> {
    const operation = this.operation(method);
    const id = this.idOf(record);
    let text: string;
    try {
      text = JSON.stringify(record);
    } catch (error) {
      const detail = `the record of ${this.kind.noun} ${this.describeId(record)} is not JSON data: ${fsMessage(error)}`;
      throw new TetherError('INVALID_ARGUMENT', detail, this.context(operation, id, error));
    }
    const path = join(this.dir, name);
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.kind.maxBytes) {
      const detail = `the record of ${this.kind.noun} ${this.describeId(record)} is ${bytes} bytes of JSON, over the ${this.kind.maxBytes} a record file may hold; nothing was written`;
      throw new TetherError('INVALID_ARGUMENT', detail, this.context(operation, id, undefined));
    }
    const temp = join(this.dir, `.${name}.${ownTempTag()}.${randomBytes(4).toString('hex')}.tmp`);
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
      throw new TetherError(
        'STORE_WRITE_FAILED',
        `could not write ${this.kind.noun} record ${path}: ${fsMessage(error)}; the previous record is unchanged`,
        this.context(operation, id, error),
      );
    }
    await this.syncDirectory(path, id, operation);
  }

  /** Deletes the record in file `name`, if any, durably. */
  async remove(name: string, id: string, method: string): Promise<void> {
    const operation = this.operation(method);
    const path = join(this.dir, name);
    try {
      await unlink(path);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      const detail = `could not delete ${this.kind.noun} record ${path}: ${fsMessage(error)}; the record is unchanged`;
      throw new TetherError('STORE_WRITE_FAILED', detail, this.context(operation, id, error));
    }
    await this.syncDirectory(path, id, operation);
  }

  /** A short, quoted form of a record's id for messages. */
  describeId(record: unknown): string {
    const { idField } = this.kind;
    const id = (record as Record<string, unknown> | null | undefined)?.[idField];
    if (typeof id !== 'string') return `${idField} ${id === undefined ? 'missing' : typeof id}`;
    return JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id);
  }

  /** Creates the directory and clears the temporary files crashes left, once (again after a failure). */
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
      throw new TetherError('STORE_WRITE_FAILED', `could not create the ${this.kind.noun} store directory ${this.dir}: ${fsMessage(error)}`, {
        operation: this.operation('open'),
        cause: error,
      });
    }
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return; // readAll() reports an unreadable directory; cleaning up is best effort.
    }
    const now = Date.now();
    const clear = async (name: string): Promise<void> => {
      const path = join(this.dir, name);
      // A file renamed meanwhile (its write finished) has no age: nothing to remove.
      const modified = await stat(path).then((s) => s.mtimeMs, () => undefined);
      if (modified !== undefined && tempAbandoned(name, now - modified)) await unlink(path).catch(() => undefined);
    };
    await Promise.all(names.filter((name) => TEMP_NAME.test(name)).map(clear));
  }

  /** Makes a rename or unlink durable: without it, a power loss can bring the old directory entry back. */
  private async syncDirectory(path: string, id: string | undefined, operation: string): Promise<void> {
    if (process.platform === 'win32') return; // Directories cannot be opened for fsync there.
    try {
      const directory = await open(this.dir, 'r');
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    } catch (error) {
      throw new TetherError(
        'STORE_WRITE_FAILED',
        `changed ${this.kind.noun} record ${path} but could not fsync its directory: ${fsMessage(error)}; the change may not survive a power loss`,
        this.context(operation, id, error),
      );
    }
  }

  /** The record's file name for an id; rejects ids no record can have. */
  private fileName(id: string, operation: string): string {
    if (!isValidId(id)) {
      throw new TetherError(
        'INVALID_ARGUMENT',
        `a ${this.kind.noun} id must be a non-empty string of whole Unicode characters, not ${this.describeId({ [this.kind.idField]: id })}`,
        { operation },
      );
    }
    // A key is hashed whole: never a path, one length, and lower-case hex (distinct on case-insensitive file systems too).
    if (this.kind.keyed) return `${this.kind.noun}-${createHash('sha256').update(id, 'utf8').digest('hex')}.json`;
    return idFileName(id);
  }

  private idOf(record: unknown): string | undefined {
    const id = (record as Record<string, unknown> | null | undefined)?.[this.kind.idField];
    return typeof id === 'string' ? id : undefined;
  }

  private context(operation: string, id: string | undefined, cause: unknown): { operation: string; cause: unknown } & ErrorContext {
    return { ...this.kind.context?.(id), operation, cause };
  }
}

/** A record's file name by its id: lower-case hex (reversible when reading a directory), or a SHA-256 for long ids. */
function idFileName(id: string): string {
  const hex = Buffer.from(id, 'utf8').toString('hex');
  return hex.length <= MAX_HEX_NAME ? `id-${hex}.json` : `sha256-${createHash('sha256').update(id, 'utf8').digest('hex')}.json`;
}

/** Lone surrogates would all encode to U+FFFD and share a file. */
function isValidId(id: unknown): id is string {
  return typeof id === 'string' && id !== '' && !LONE_SURROGATE.test(id);
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function fsMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
