// Issue 33, point 4: the file store has one writer per directory. Two store objects on one directory —
// in one process or in two — serialize their read-modify-writes (no update is lost), and a file named
// like a record that is not one a store can read whole (a FIFO, a huge file) is refused, not waited on
// or read into memory.
import { spawn, spawnSync } from 'node:child_process';
import { constants, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, rm, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileTaskStore, taskKey, TetherError, type TaskRecord, type TaskStore } from '../src/index.js';
import { RECORD_LOCK } from '../src/record-lock.js';
import { tempTag } from '../src/temp-owner.js';
import { storeChild } from './helpers/store-child.js';

const roots: string[] = [];
async function freshDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tether-file-writers-'));
  roots.push(root);
  return join(root, 'tasks');
}
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

const child = storeChild(roots);

type Counted = TaskRecord & { count: number };

/** The store key of task `taskId` of the agent of {@link counted}. */
const key = (taskId: string): string => taskKey('http://127.0.0.1:4000/.well-known/agent-card.json', taskId);

function counted(taskId: string, count: number): Counted {
  return {
    schemaVersion: 1,
    taskId,
    contextId: `ctx-${taskId}`,
    agentUrl: 'http://127.0.0.1:4000/.well-known/agent-card.json',
    state: 'working',
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    count,
  };
}

/** `n` increments of the task's count, one after another, as the engine's record writer makes them. */
async function increment(store: TaskStore, taskId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await store.update(key(taskId), (current) => {
      const previous = current as Counted | undefined;
      return { ...counted(taskId, 0), ...previous, count: (previous?.count ?? 0) + 1 };
    });
  }
}

const INCREMENTS = 200;
/** A guard, not a measure: 400 durable writes one at a time take 1–3 s here, more on a loaded machine. */
const WRITERS_GUARD_MS = 60_000;

describe('two writers on one directory', () => {
  it(`two store objects in one process: 2 × ${INCREMENTS} increments make ${2 * INCREMENTS}`, async () => {
    const dir = await freshDir();
    const a = createFileTaskStore(dir);
    const b = createFileTaskStore(join(dir, '..', 'tasks')); // the same directory, spelled otherwise
    await a.put(counted('shared', 0));
    await Promise.all([increment(a, 'shared', INCREMENTS), increment(b, 'shared', INCREMENTS)]);
    expect(((await createFileTaskStore(dir).get(key('shared'))) as Counted | undefined)?.count).toBe(2 * INCREMENTS);
  }, WRITERS_GUARD_MS);

  it("a write through one store object is told to the other's watchers (client.watchTasks)", async () => {
    const dir = await freshDir();
    const a = createFileTaskStore(dir);
    const b = createFileTaskStore(dir);
    const told: string[] = [];
    const stop = a.watch(() => told.push('a'));
    await b.put(counted('seen', 0));
    await increment(b, 'seen', 1);
    await b.delete(key('seen'));
    expect(told).toEqual(['a', 'a', 'a']);
    stop();
  });

  it(`two processes: 2 × ${INCREMENTS} increments make ${2 * INCREMENTS}, and no lock file is left`, async () => {
    const dir = await freshDir();
    const store = createFileTaskStore(dir);
    await store.put(counted('shared', 0));
    await child.run(['increment', dir, 'warm-up', '1']); // bundled before the two start
    const runs = await Promise.all([child.run(['increment', dir, 'shared', String(INCREMENTS)]), child.run(['increment', dir, 'shared', String(INCREMENTS)])]);
    expect(runs.map((r) => r.stdout.trim())).toEqual([`incremented ${INCREMENTS}`, `incremented ${INCREMENTS}`]);
    expect(((await store.get(key('shared'))) as Counted | undefined)?.count).toBe(2 * INCREMENTS);
    expect((await readdir(dir)).filter((name) => name.startsWith('.'))).toEqual([]);
  }, WRITERS_GUARD_MS);
});

describe("another process's lock on a record", () => {
  /** The content of a lock held by process `pid` of this host (as record-lock.ts writes it). */
  const lockOf = (pid: number, nonce: string): string => `${tempTag(pid)} ${nonce}`;

  it('a lock left by a process that is gone is taken over (also when its taker died too): the write goes through, and leaves no lock', async () => {
    const dir = await freshDir();
    const store = createFileTaskStore(dir);
    const path = await recordFile(store, dir, 'orphan');
    const exited = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => exited.on('exit', resolve));
    const dead = exited.pid as number;
    await writeFile(join(dir, `.${basename(path)}.lock`), lockOf(dead, '0123456789abcdef'));
    // The claim of a process that died while taking that lock over.
    await writeFile(join(dir, `.${basename(path)}.0123456789abcdef.take`), lockOf(dead, '00112233445566ff'));
    await increment(store, 'orphan', 1);
    expect(((await store.get(key('orphan'))) as Counted | undefined)?.count).toBe(2);
    expect((await readdir(dir)).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('a lock held by a live process holds the write back until it is given back', async () => {
    const dir = await freshDir();
    const store = createFileTaskStore(dir);
    const path = await recordFile(store, dir, 'held');
    const lock = join(dir, `.${basename(path)}.lock`);
    await writeFile(lock, lockOf(process.ppid, 'fedcba9876543210'));
    let done = false;
    const writing = increment(store, 'held', 1).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(done, 'the update finished while another process held the lock').toBe(false);
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ count: 1 });
    await unlink(lock);
    await writing;
    expect(((await store.get(key('held'))) as Counted | undefined)?.count).toBe(2);
  });

  it(`a lock a live process does not give back: the write ends in STORE_UNAVAILABLE (retryable) after ${RECORD_LOCK.waitMs} ms, writing nothing`, async () => {
    const dir = await freshDir();
    const store = createFileTaskStore(dir);
    const path = await recordFile(store, dir, 'stuck');
    await writeFile(join(dir, `.${basename(path)}.lock`), lockOf(process.ppid, '00aa00aa00aa00aa'));
    const error = await rejection(increment(store, 'stuck', 1));
    expect([error.code, error.isRetryable, error.taskId]).toEqual(['STORE_UNAVAILABLE', true, 'stuck']);
    expect(error.message).toContain(`could not write task record ${path}: its lock is held by process ${process.ppid}`);
    expect(error.message).toContain('nothing was written; try again');
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ count: 1 });
  }, RECORD_LOCK.waitMs + 20_000);
});

// ---- files named like a record that a store cannot read whole --------------------------------------

/** Puts a record of `taskId` and returns the path of the file it went to (whatever the naming scheme). */
async function recordFile(store: TaskStore, dir: string, taskId: string): Promise<string> {
  const before = new Set(await readdir(dir).catch(() => []));
  await store.put(counted(taskId, 1));
  const added = (await readdir(dir)).filter((name) => !before.has(name) && !name.startsWith('.'));
  if (added.length !== 1) throw new Error(`expected one new file for ${taskId}, got ${added.join(', ')}`);
  return join(dir, added[0]!);
}

async function rejection(promise: Promise<unknown>): Promise<TetherError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof TetherError)) throw new Error(`expected a TetherError, got ${String(error)}`);
  return error;
}

/** A guard against a hang, not a measure: how `promise` ended, or `pending` if it had not after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | { error: unknown } | 'pending'> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<'pending'>((resolve) => (timer = setTimeout(() => resolve('pending'), ms)));
  const outcome = await Promise.race([promise.then((value) => ({ value }), (error: unknown) => ({ error })), guard]);
  clearTimeout(timer);
  return outcome;
}

/** Lets a reader blocked opening the FIFO at `path` go (it sees end of file); nothing when none is. */
async function releaseFifo(path: string): Promise<void> {
  const writer = await open(path, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined); // ENXIO: no reader
  await writer?.close();
}

/** Bytes this process has read through read(2) and the like so far (Linux), or undefined elsewhere. */
function bytesRead(): number | undefined {
  try {
    const rchar = /^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return rchar ? Number(rchar[1]) : undefined;
  } catch {
    return undefined;
  }
}

const MiB = 1 << 20;
const HUGE = 600 * MiB;
const HANG_GUARD_MS = 3_000;
const hasMkfifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version']).status === 0;

describe('a file named like a record that is not a regular file of a sane size', () => {
  it.skipIf(!hasMkfifo)('a FIFO: get() and update() reject with STORE_CORRUPT at once, list() skips it and reports it', async () => {
    const dir = await freshDir();
    const reported: TetherError[] = [];
    const store = createFileTaskStore(dir, { onCorrupt: (error) => reported.push(error) });
    await store.put(counted('good', 1));
    const path = await recordFile(store, dir, 'fifo');
    await unlink(path);
    expect(spawnSync('mkfifo', ['-m', '600', path]).status).toBe(0);
    try {
      const got = await within(store.get(key('fifo')), HANG_GUARD_MS);
      expect(got, 'get() on a FIFO named like a record').not.toBe('pending');
      const error = await rejection(store.get(key('fifo')));
      expect(error.code).toBe('STORE_CORRUPT');
      expect(error.taskId).toBe('fifo');
      expect(error.message).toContain(path);
      expect(error.message).toMatch(/is not a regular file \(a FIFO\)/);
      expect((await rejection(store.update(key('fifo'), (r) => r))).code).toBe('STORE_CORRUPT');
      const listed = await within(store.list(), HANG_GUARD_MS);
      expect(listed, 'list() with a FIFO named like a record').not.toBe('pending');
      expect(((listed as { value: TaskRecord[] }).value ?? []).map((r) => r.taskId)).toEqual(['good']);
      expect(reported.map((e) => [e.code, e.message.includes(path)])).toEqual([['STORE_CORRUPT', true]]);
      // put() replaces it with a record.
      await store.put(counted('fifo', 2));
      expect(((await store.get(key('fifo'))) as Counted | undefined)?.count).toBe(2);
    } finally {
      await releaseFifo(path).catch(() => undefined);
    }
  }, 20_000);

  it('a directory: get() rejects with STORE_CORRUPT, list() skips it and reports it', async () => {
    const dir = await freshDir();
    const reported: TetherError[] = [];
    const store = createFileTaskStore(dir, { onCorrupt: (error) => reported.push(error) });
    const path = await recordFile(store, dir, 'folder');
    await unlink(path);
    await mkdir(path);
    const error = await rejection(store.get(key('folder')));
    expect([error.code, error.message.includes(path)]).toEqual(['STORE_CORRUPT', true]);
    expect(error.message).toMatch(/is not a regular file \(a directory\)/);
    expect(await store.list()).toEqual([]);
    expect(reported.map((e) => e.code)).toEqual(['STORE_CORRUPT']);
  });

  it('a record over 8 MiB of JSON is refused before anything is written (a store writes nothing it would not read)', async () => {
    const dir = await freshDir();
    const store = createFileTaskStore(dir);
    await store.put(counted('big', 1));
    const error = await rejection(store.put({ ...counted('big', 2), payload: 'x'.repeat(8 * MiB) } as TaskRecord));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(/is \d+ bytes of JSON, over the 8388608 a record file may hold; nothing was written/);
    expect(((await store.get(key('big'))) as Counted | undefined)?.count).toBe(1);
    expect((await readdir(dir)).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it(`a ${HUGE / MiB} MB (sparse) file: get() rejects with STORE_CORRUPT and list() skips it, reading a bounded number of bytes`, async () => {
    const dir = await freshDir();
    const reported: TetherError[] = [];
    const store = createFileTaskStore(dir, { onCorrupt: (error) => reported.push(error) });
    await store.put(counted('good', 1));
    const path = await recordFile(store, dir, 'huge');
    await truncate(path, HUGE); // the record, then zeros: no disk blocks, but 600 MB to a reader
    const memoryBefore = process.memoryUsage();
    const readBefore = bytesRead();
    const error = await rejection(store.get(key('huge')));
    const listed = await store.list();
    const readAfter = bytesRead();
    const memoryAfter = process.memoryUsage();
    const grew = (u: NodeJS.MemoryUsage): number => u.rss + u.arrayBuffers;
    const growth = grew(memoryAfter) - grew(memoryBefore);
    console.log(`huge record file: memory grew ${(growth / MiB).toFixed(1)} MiB, read ${readAfter === undefined || readBefore === undefined ? '?' : ((readAfter - readBefore) / MiB).toFixed(2)} MiB`);
    expect(error.code).toBe('STORE_CORRUPT');
    expect(error.message).toContain(path);
    expect(error.message).toContain(`is ${HUGE} bytes, over the`);
    expect(listed.map((r) => r.taskId)).toEqual(['good']);
    expect(reported.map((e) => [e.code, e.message.includes(path)])).toEqual([['STORE_CORRUPT', true]]);
    expect(growth, 'memory growth (rss + array buffers) while reading it twice').toBeLessThan(64 * MiB);
    if (readBefore !== undefined && readAfter !== undefined) expect(readAfter - readBefore, 'bytes read while reading it twice').toBeLessThan(16 * MiB);
  });
});
