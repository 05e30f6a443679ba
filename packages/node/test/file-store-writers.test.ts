// Issue 33, point 4: a file named like a record that is not one a store can read whole (a FIFO, a
// directory, a huge file) is refused, not waited on or read into memory.
import { spawnSync } from 'node:child_process';
import { constants, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm, truncate, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFileTaskStore, TetherError, type TaskRecord, type TaskStore } from '../src/index.js';

const roots: string[] = [];
async function freshDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tether-file-writers-'));
  roots.push(root);
  return join(root, 'tasks');
}
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

type Counted = TaskRecord & { count: number };

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
      const got = await within(store.get('fifo'), HANG_GUARD_MS);
      expect(got, 'get() on a FIFO named like a record').not.toBe('pending');
      const error = await rejection(store.get('fifo'));
      expect(error.code).toBe('STORE_CORRUPT');
      expect(error.taskId).toBe('fifo');
      expect(error.message).toContain(path);
      expect(error.message).toMatch(/is not a regular file \(a FIFO\)/);
      expect((await rejection(store.update('fifo', (r) => r))).code).toBe('STORE_CORRUPT');
      const listed = await within(store.list(), HANG_GUARD_MS);
      expect(listed, 'list() with a FIFO named like a record').not.toBe('pending');
      expect(((listed as { value: TaskRecord[] }).value ?? []).map((r) => r.taskId)).toEqual(['good']);
      expect(reported.map((e) => [e.code, e.message.includes(path)])).toEqual([['STORE_CORRUPT', true]]);
      // put() replaces it with a record.
      await store.put(counted('fifo', 2));
      expect(((await store.get('fifo')) as Counted | undefined)?.count).toBe(2);
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
    const error = await rejection(store.get('folder'));
    expect([error.code, error.message.includes(path)]).toEqual(['STORE_CORRUPT', true]);
    expect(error.message).toMatch(/is not a regular file \(a directory\)/);
    expect(await store.list()).toEqual([]);
    expect(reported.map((e) => e.code)).toEqual(['STORE_CORRUPT']);
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
    const error = await rejection(store.get('huge'));
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
