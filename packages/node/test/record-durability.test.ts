// The file stores' write order, seen through node:fs/promises: a record takes its name only once its
// bytes are on disk — write, fsync, close, rename, then fsync of the directory. A temp file renamed
// before its fsync can leave an empty or torn record under the real name after a power loss, and no
// functional test sees that (issue 16: the planted bug survived every test).
import { mkdtemp, readdir, rm, type FileHandle } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileTaskStore, taskKey, TetherError, type TaskRecord } from '../src/index.js';
import { createFileWorkflowStore } from '../src/orchestrate-entry.js';

/** What the stores did to files, in order: `open temp`, `sync temp`, `rename temp → record` … */
const trace = vi.hoisted(() => ({ calls: [] as string[], failTempSync: undefined as Error | undefined }));

vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof FsPromises>();
  const { basename } = await import('node:path');
  const kind = (path: unknown): string => {
    const name = basename(String(path));
    if (/\.json\.(?:lock|[0-9a-z]+\.take)\b/.test(name)) return 'lock'; // the record's lock, its temporary file, a claim
    return name.startsWith('.') && name.endsWith('.tmp') ? 'temp' : name.endsWith('.json') ? 'record' : 'directory';
  };
  // Every method called on a handle is traced; the handle itself does the work.
  const traced = (handle: FileHandle, label: string): FileHandle =>
    new Proxy(handle, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]): unknown => {
          trace.calls.push(`${String(key)} ${label}`);
          if (key === 'sync' && label === 'temp' && trace.failTempSync) return Promise.reject(trace.failTempSync);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return {
    ...fs,
    open: async (path: Parameters<typeof fs.open>[0], ...rest: [flags?: string, mode?: number]) => {
      const handle = await fs.open(path, ...rest);
      trace.calls.push(`open ${kind(path)}`);
      return traced(handle, kind(path));
    },
    rename: async (from: string, to: string) => {
      trace.calls.push(`rename ${kind(from)} → ${kind(to)}`);
      await fs.rename(from, to);
    },
  };
});

/** One durable write, as the stores must do it. */
const DURABLE_WRITE = ['open temp', 'writeFile temp', 'sync temp', 'close temp', 'rename temp → record', 'open directory', 'sync directory', 'close directory'];
/** An update's read of the record before it: checked as opened, then read (to its end). */
const READ_RECORD = ['open record', 'stat record', 'read record', 'read record', 'close record'];

const roots: string[] = [];
async function freshDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tether-durability-'));
  roots.push(root);
  return join(root, 'records');
}
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  trace.calls.length = 0;
  trace.failTempSync = undefined;
});

function record(taskId: string, state: TaskRecord['state'] = 'working'): TaskRecord {
  return { schemaVersion: 1, taskId, contextId: `ctx-${taskId}`, agentUrl: 'http://127.0.0.1:4000/', state, createdAt: 1, updatedAt: 1 };
}

/** The calls `action` makes, but for those on the record's lock (taken around each write: file-store-writers.test.ts). */
async function callsOf(action: () => Promise<unknown>): Promise<string[]> {
  trace.calls.length = 0;
  await action();
  return trace.calls.filter((call) => !call.endsWith(' lock'));
}

describe.skipIf(process.platform === 'win32')('file stores: write, fsync, close, rename, fsync the directory', () => {
  it('the task store: a new record, a replaced one and an update', async () => {
    const store = createFileTaskStore(await freshDir());
    expect(await callsOf(() => store.put(record('t1')))).toEqual(DURABLE_WRITE);
    expect(await callsOf(() => store.put(record('t1', 'input-required')))).toEqual(DURABLE_WRITE);
    expect(await callsOf(() => store.update(taskKey('http://127.0.0.1:4000/', 't1'), (r) => (r ? { ...r, state: 'completed' } : r)))).toEqual([...READ_RECORD, ...DURABLE_WRITE]);
    expect((await store.get(taskKey('http://127.0.0.1:4000/', 't1')))?.state).toBe('completed');
  });

  it('the workflow store', async () => {
    const store = createFileWorkflowStore(await freshDir());
    const workflow = { schemaVersion: 1, id: 'w1', contextId: 'c', state: 'running', createdAt: '', revision: 1, revisions: [], updates: [], nodes: {}, ledger: [], checkpoints: [] };
    expect(await callsOf(() => store.save(workflow as never))).toEqual(DURABLE_WRITE);
  });

  it('a failed fsync leaves the previous record and no temp file: STORE_WRITE_FAILED', async () => {
    const dir = await freshDir();
    const store = createFileTaskStore(dir);
    await store.put(record('t2'));
    trace.failTempSync = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    trace.calls.length = 0;
    const error: unknown = await store.put(record('t2', 'completed')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).code).toBe('STORE_WRITE_FAILED');
    expect((error as TetherError).message).toContain('EIO');
    // Never renamed: the record on disk is the one before.
    expect(trace.calls).not.toContain('rename temp → record');
    expect((await store.get(taskKey('http://127.0.0.1:4000/', 't2')))?.state).toBe('working');
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
