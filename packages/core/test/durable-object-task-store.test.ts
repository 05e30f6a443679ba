// The Durable Object task store (issue 21) against the task store contract, on an in-memory stand-in for
// `DurableObjectStorage` (structured clones, keys in order, prefix / startAfter / limit). The same store runs
// the same contract inside workerd, in a real Durable Object, in the runtime smoke (packages/runtimes).
import { runTaskStoreContract } from '@a2a-tether/testkit';
import { describe, expect, it } from 'vitest';
import { taskKey, TetherError, type TaskRecord, type TaskStore } from '../src/index.js';
import { createDurableObjectTaskStore, type DurableObjectStorageLike } from '../src/workers-entry.js';

/** DurableObjectStorage's semantics that the store relies on, over a Map. */
class FakeStorage implements DurableObjectStorageLike {
  readonly data = new Map<string, unknown>();
  failNext: 'get' | 'put' | 'list' | undefined;
  lists = 0;

  private fail(op: 'get' | 'put' | 'list'): void {
    if (this.failNext !== op) return;
    this.failNext = undefined;
    throw new Error(`${op} failed: storage reset`);
  }

  async get(key: string): Promise<unknown> {
    await Promise.resolve();
    this.fail('get');
    return structuredClone(this.data.get(key));
  }
  async put(key: string, value: unknown): Promise<void> {
    await Promise.resolve();
    this.fail('put');
    this.data.set(key, structuredClone(value));
  }
  async delete(key: string): Promise<boolean> {
    await Promise.resolve();
    return this.data.delete(key);
  }
  async list(options: { prefix: string; startAfter?: string; limit?: number }): Promise<Map<string, unknown>> {
    await Promise.resolve();
    this.fail('list');
    this.lists++;
    const keys = [...this.data.keys()]
      .filter((k) => k.startsWith(options.prefix) && (options.startAfter === undefined || k > options.startAfter))
      .sort()
      .slice(0, options.limit ?? Infinity);
    return new Map(keys.map((k) => [k, structuredClone(this.data.get(k))]));
  }
}

const AGENT = 'http://127.0.0.1:1/';
const key = (taskId: string, agentUrl = AGENT): string => taskKey(agentUrl, taskId);

function record(taskId: string, fields: Partial<TaskRecord> = {}): TaskRecord {
  return { schemaVersion: 1, taskId, contextId: `ctx-${taskId}`, agentUrl: AGENT, state: 'working', createdAt: 1, updatedAt: 1, ...fields } as TaskRecord;
}

describe('createDurableObjectTaskStore', () => {
  const storages = new WeakMap<TaskStore, FakeStorage>();
  const reports = new WeakMap<TaskStore, unknown[]>();
  runTaskStoreContract(
    () => {
      const storage = new FakeStorage();
      const reported: unknown[] = [];
      const store = createDurableObjectTaskStore(storage, { onCorrupt: (error) => reported.push(error) });
      storages.set(store, storage);
      reports.set(store, reported);
      return store;
    },
    { describe, it },
    {
      corruption: {
        async plant(store, key, raw) {
          let value: unknown = raw;
          try {
            value = JSON.parse(raw);
          } catch {
            // not JSON: stored as the string itself
          }
          storages.get(store as TaskStore)?.data.set(`tether:task:${key}`, value);
        },
        reported: (store) => reports.get(store as TaskStore) ?? [],
      },
    },
  );

  it('lists in pages: 1,201 records come back whole, in three reads of the storage', async () => {
    const storage = new FakeStorage();
    const store = createDurableObjectTaskStore(storage);
    for (let i = 0; i < 1_201; i++) storage.data.set(`tether:task:${key(`t${String(i).padStart(4, '0')}`)}`, record(`t${String(i).padStart(4, '0')}`));
    storage.data.set('other:x', { not: 'ours' });
    const listed = await store.list();
    expect(listed).toHaveLength(1_201);
    expect(new Set(listed.map((r) => r.taskId)).size).toBe(1_201);
    expect(storage.lists).toBe(3);
  });

  it('keeps to its prefix: two stores in one storage do not see each other', async () => {
    const storage = new FakeStorage();
    const a = createDurableObjectTaskStore(storage, { prefix: 'a:' });
    const b = createDurableObjectTaskStore(storage, { prefix: 'b:' });
    await a.put(record('t1'));
    expect(await b.get(key('t1'))).toBeUndefined();
    expect(await b.list()).toEqual([]);
    expect((await a.list()).map((r) => r.taskId)).toEqual(['t1']);
  });

  it('a failed write is STORE_WRITE_FAILED and leaves the previous record; a failed read is STORE_READ_FAILED', async () => {
    const storage = new FakeStorage();
    const store = createDurableObjectTaskStore(storage);
    await store.put(record('t1', { state: 'working' }));
    storage.failNext = 'put';
    const write = await store.update(key('t1'), (r) => (r ? { ...r, state: 'completed' } : r)).catch((e: unknown) => e);
    expect(write).toBeInstanceOf(TetherError);
    expect((write as TetherError).code).toBe('STORE_WRITE_FAILED');
    expect((write as TetherError).message).toContain('storage reset');
    expect((await store.get(key('t1')))?.state).toBe('working');
    storage.failNext = 'get';
    expect(((await store.get(key('t1')).catch((e: unknown) => e)) as TetherError).code).toBe('STORE_READ_FAILED');
    storage.failNext = 'list';
    expect(((await store.list().catch((e: unknown) => e)) as TetherError).code).toBe('STORE_READ_FAILED');
    // The failure did not wedge the task's queue: the next update goes through.
    await store.update(key('t1'), (r) => (r ? { ...r, state: 'completed' } : r));
    expect((await store.get(key('t1')))?.state).toBe('completed');
  });

  it('records of the layout before (under the task id alone) move under their key when listed; two agents’ "1" stay two', async () => {
    const storage = new FakeStorage();
    const other = 'http://127.0.0.1:2/';
    storage.data.set('tether:task:1', record('1', { state: 'working' }));
    const store = createDurableObjectTaskStore(storage);
    await store.put(record('1', { agentUrl: other, state: 'input-required' }));
    expect(await store.get(key('1'))).toBeUndefined(); // not moved until listed
    const listed = await store.list();
    expect(listed.map((r) => [r.agentUrl, r.taskId, r.state]).sort()).toEqual([
      [AGENT, '1', 'working'],
      [other, '1', 'input-required'],
    ]);
    expect([...storage.data.keys()].sort()).toEqual([`tether:task:${key('1')}`, `tether:task:${key('1', other)}`]);
    expect(await store.get(key('1'))).toEqual(record('1', { state: 'working' }));
    expect(await store.list({ agentUrl: AGENT })).toEqual([record('1', { state: 'working' })]);
  });
});
