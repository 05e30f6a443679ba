import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connect, MemoryTaskStore, TetherError, type TaskRecord, type TaskStore } from '../src/index.js';

// Issue 19, point 1: the task list is observable. `client.watchTasks(listener)` is told the records now and
// again whenever a task starts, changes state or outcome, or is removed — also when another client on the
// same store did it — and never the same list twice.

const agents: TestAgent[] = [];
const stops: (() => void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await Promise.all(agents.splice(0).map((a) => a.close()));
  vi.restoreAllMocks();
});

async function agent(): Promise<TestAgent> {
  const started = await startTestAgent({ versions: ['1.0'] });
  agents.push(started);
  return started;
}

/** Waits until `check` holds (every 10 ms), at most `ms`; returns how long it took. */
async function until(check: () => boolean, ms = 2_000): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

/** What a listener was told, as `taskId:state:outcome` lists. */
function recorder(): { lists: string[][]; listener: (records: TaskRecord[]) => void } {
  const lists: string[][] = [];
  return { lists, listener: (records) => void lists.push(records.map((r) => `${r.taskId}:${r.state}:${r.outcome?.kind ?? '-'}`)) };
}

describe('client.watchTasks()', () => {
  it('a task another client on the same store starts shows within 1 s, then its states; each list told once; nothing after stop', async () => {
    const a = await agent();
    const store = new MemoryTaskStore();
    const [starter, watcher] = await Promise.all([connect(a.url, { cardCache: false, store }), connect(a.url, { cardCache: false, store })]);
    const seen = recorder();
    const stop = watcher.watchTasks(seen.listener);
    stops.push(stop);
    await until(() => seen.lists.length === 1);
    expect(seen.lists[0]).toEqual([]);
    const handle = await starter.start('stream updates=3 chunks=3 delayMs=20');
    const id = handle.taskId as string;
    const took = await until(() => seen.lists.some((list) => list.some((entry) => entry.startsWith(`${id}:`))), 1_000);
    expect(took).toBeLessThan(1_000);
    await handle.done();
    await until(() => seen.lists.at(-1)?.includes(`${id}:completed:finished`) === true);
    // Never the same list twice in a row (a write that changes no state, such as a stream position, is not news).
    for (let i = 1; i < seen.lists.length; i++) expect(seen.lists[i]).not.toEqual(seen.lists[i - 1]);
    stop();
    const told = seen.lists.length;
    await (await starter.start('stream updates=1 chunks=1')).done();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(seen.lists.length).toBe(told);
  });

  it('a store that cannot say when it changes is read every intervalMs', async () => {
    const a = await agent();
    const memory = new MemoryTaskStore();
    // The same records, without `watch`.
    const plain: TaskStore = {
      get: (id) => memory.get(id),
      put: (r) => memory.put(r),
      update: (id, change) => memory.update(id, change),
      list: (filter) => memory.list(filter),
      delete: (id) => memory.delete(id),
    };
    const client = await connect(a.url, { cardCache: false, store: plain });
    const seen = recorder();
    stops.push(client.watchTasks(seen.listener, { intervalMs: 100 }));
    const handle = await client.start('stream updates=1 chunks=1 delayMs=5');
    await handle.done();
    await until(() => seen.lists.at(-1)?.includes(`${handle.taskId}:completed:finished`) === true, 1_000);
  });

  it('a store that fails to list: onError with a typed error; the next change reads again', async () => {
    const a = await agent();
    const memory = new MemoryTaskStore();
    let failing = true;
    const flaky = Object.assign(Object.create(memory) as MemoryTaskStore, {
      list: (filter?: Parameters<TaskStore['list']>[0]) => (failing ? Promise.reject(new Error('disk on fire')) : memory.list(filter)),
    });
    const client = await connect(a.url, { cardCache: false, store: flaky });
    const errors: TetherError[] = [];
    const seen = recorder();
    stops.push(client.watchTasks(seen.listener, { onError: (error) => void errors.push(error) }));
    await until(() => errors.length === 1);
    expect(errors[0]).toBeInstanceOf(TetherError);
    expect(errors[0]?.code).toBe('STORE_READ_FAILED');
    expect(errors[0]?.message).toContain('disk on fire');
    failing = false;
    const handle = await client.start('stream updates=1 chunks=1 delayMs=5');
    await until(() => seen.lists.some((list) => list.some((entry) => entry.startsWith(`${handle.taskId}:`))));
  });

  it('a listener that throws is said once on the console and still told what changes', async () => {
    const a = await agent();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const client = await connect(a.url, { cardCache: false });
    let calls = 0;
    stops.push(
      client.watchTasks(() => {
        calls++;
        throw new Error('render failed');
      }),
    );
    await until(() => calls === 1);
    await (await client.start('stream updates=1 chunks=1 delayMs=5')).done();
    await until(() => calls >= 2);
    expect(warn.mock.calls.some((c) => String(c[0]).includes('render failed'))).toBe(true);
  });

  it('refuses what is not a listener', async () => {
    const a = await agent();
    const client = await connect(a.url, { cardCache: false });
    expect(() => client.watchTasks(undefined as unknown as () => void)).toThrow(/listener/);
  });
});

describe('tags: the app\'s labels on a task', () => {
  it('are kept in the record, listed by watchTasks, kept when the task is resumed, and never sent to the agent', async () => {
    const a = await agent();
    const store = new MemoryTaskStore();
    const client = await connect(a.url, { cardCache: false, store });
    const handle = await client.start('slow steps=3 delayMs=5', { tags: { prompt: 'Summarise the report', chat: 'c-1' } });
    const taskId = handle.taskId as string;
    expect((await store.get(client.taskKey(taskId)))?.tags).toEqual({ prompt: 'Summarise the report', chat: 'c-1' });
    const seen: TaskRecord[][] = [];
    stops.push(client.watchTasks((records) => void seen.push(records)));
    await handle.done();
    await until(() => seen.at(-1)?.[0]?.outcome !== undefined);
    expect(seen.at(-1)?.[0]?.tags).toEqual({ prompt: 'Summarise the report', chat: 'c-1' });
    const bodies = a.requests.filter((r) => r.method === 'POST').map((r) => JSON.stringify(r.body ?? ''));
    expect(bodies.join('\n')).toContain('slow steps=3');
    expect(bodies.join('\n')).not.toContain('Summarise the report');
  });

  it('bad tags are INVALID_ARGUMENT and nothing is sent', async () => {
    const a = await agent();
    const client = await connect(a.url, { cardCache: false });
    const before = a.requests.length;
    const bad = [
      Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])),
      { prompt: 'x'.repeat(1025) },
      { '': 'empty key' },
      { n: 3 as unknown as string },
    ];
    for (const tags of bad) {
      const error = await client.start('slow steps=1', { tags }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(TetherError);
      expect((error as TetherError).code).toBe('INVALID_ARGUMENT');
      expect((error as TetherError).message).toMatch(/^tags: /);
    }
    expect(a.requests.length).toBe(before);
  });
});

describe('a finished task shown again (a task list after a reload)', () => {
  it('resume() of a task its record says finished asks the agent once (GetTask), opens no stream, and hands the final task', async () => {
    const a = await agent();
    const store = new MemoryTaskStore();
    const first = await connect(a.url, { cardCache: false, store });
    const done = await (await first.start('stream updates=1 chunks=3 delayMs=1')).done();
    const taskId = done.id;
    expect((await store.get(first.taskKey(taskId)))?.outcome?.kind).toBe('finished');
    const reloaded = await connect(a.url, { cardCache: false, store });
    a.requests.length = 0;
    const handle = await reloaded.resume(taskId);
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    expect(handle.view.artifacts.map((x) => x.artifactId)).toEqual(done.artifacts.map((x) => x.artifactId));
    const methods = a.requests.filter((r) => r.method === 'POST').map((r) => (r.body as { method?: string }).method);
    expect(methods).toEqual(['GetTask']);
  });
});
