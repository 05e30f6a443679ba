import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_DIST, chromiumAvailable, launchChromium, servePage, type TestSite } from './helpers/chromium.js';

const available = chromiumAvailable('real-browser tests');

// The page imports the BUILT browser package (dist), bundled by esbuild for the browser platform.
const PAGE_SCRIPT = `
import { connect, TetherError, createIndexedDbTaskStore, taskKey } from '${BROWSER_DIST}';
import { taskStoreContract } from '@a2a-tether/testkit/store-contract';
import { createStore, keys, set } from 'idb-keyval';
let dbs = 0;
const dbNames = new WeakMap();
const reports = new WeakMap();
// Bad records are planted with idb-keyval directly, as an older or newer page might have left them.
const corruption = {
  async plant(store, taskId, raw) {
    let value;
    try { value = JSON.parse(raw); } catch { value = raw; }
    await set(taskId, value, createStore(dbNames.get(store), 'tasks'));
  },
  reported: (store) => reports.get(store) ?? [],
};
window.tether = {
  async storeContract() {
    const cases = taskStoreContract(() => {
      const reported = [];
      const dbName = 'contract-' + ++dbs;
      const store = createIndexedDbTaskStore({ dbName, fallback: 'none', onCorrupt: (e) => reported.push(e) });
      dbNames.set(store, dbName);
      reports.set(store, reported);
      return store;
    }, { corruption });
    const failures = [];
    for (const c of cases) {
      try { await c.run(); } catch (e) { failures.push(c.name + ': ' + (e && e.message)); }
    }
    return { count: cases.length, failures };
  },
  async writeRecord(taskId) {
    const store = createIndexedDbTaskStore({ dbName: 'reload' });
    await store.put({ schemaVersion: 1, taskId, contextId: 'c', agentUrl: 'a', state: 'working', createdAt: 1, updatedAt: 1 });
  },
  async twoAgents(urls) {
    // Two agents that both name their task "1", one IndexedDB store: started, cut, taken up by resumeAll().
    const store = createIndexedDbTaskStore({ dbName: 'two-agents', fallback: 'none' });
    const first = await Promise.all(urls.map((url) => connect(url, { store, cardCache: false })));
    const started = [];
    for (const client of first) started.push(await client.start('slow steps=3 delayMs=300'));
    const listedAfterStart = (await store.list()).map((r) => [r.agentUrl, r.taskId]).sort();
    const tasks = await Promise.all(first.map(async (client) => (await client.tasks()).map((r) => [r.agentUrl, r.taskId])));
    await Promise.all(started.map(async (handle) => {
      let seen = 0;
      for await (const e of handle.events()) if ((e.type === 'status' && e.state === 'working') || ++seen > 200) break;
      handle.detach();
    }));
    const second = await Promise.all(urls.map((url) => connect(url, { store, cardCache: false })));
    const resumed = await Promise.all(second.map((client) => client.resumeAll()));
    const done = await Promise.all(resumed.map(async ([handle]) => {
      const task = await handle.done();
      await handle.flush();
      return task.status.state + ' ' + task.artifacts.flatMap((a) => a.parts).map((p) => p.text).join('');
    }));
    const records = (await store.list()).map((r) => [r.agentUrl, r.taskId, r.state, r.outcome && r.outcome.kind]).sort();
    return { ids: started.map((h) => h.taskId), listedAfterStart, tasks, resumed: resumed.map((hs) => hs.map((h) => h.taskId)), done, records };
  },
  async migrate() {
    // A record an earlier version keyed by its task id alone, as it was left in the database.
    const old = { schemaVersion: 1, taskId: '1', contextId: 'c', agentUrl: 'http://a.test/', state: 'working', createdAt: 1, updatedAt: 1 };
    await set('1', old, createStore('migrate', 'tasks'));
    const store = createIndexedDbTaskStore({ dbName: 'migrate', fallback: 'none' });
    const got = await store.get(taskKey('http://a.test/', '1'));
    await store.put({ ...old, agentUrl: 'http://b.test/', state: 'input-required' });
    await set('late', { ...old, taskId: 'late' }, createStore('migrate', 'tasks'));
    const listed = (await store.list()).map((r) => [r.agentUrl, r.taskId, r.state]).sort();
    return { got, listed, keys: (await keys(createStore('migrate', 'tasks'))).map(String).sort() };
  },
  async readRecords() {
    return (await createIndexedDbTaskStore({ dbName: 'reload' }).list({ active: true })).map((r) => r.taskId);
  },
  async stream(url, prefs) {
    const client = await connect(url, { ...prefs, cardCache: false });
    const events = [];
    for await (const e of client.streamMessage('stream updates=2 chunks=4 delayMs=5')) events.push(e);
    const task = await client.getTask(events[0].id);
    return { iface: client.interface, events, task };
  },
  async missing(url) {
    const client = await connect(url, { cardCache: false });
    try { await client.getTask('no-such-task'); return 'no error'; }
    catch (e) { return { isTether: e instanceof TetherError, name: e.name, code: e.code, a2aCode: e.a2aCode, message: e.message }; }
  },
  async unavailable(url) {
    // IndexedDB refuses (private mode, a blocked database): the store falls back to memory, the page works.
    const open = indexedDB.open;
    indexedDB.open = () => { throw new DOMException('the database is not available', 'InvalidStateError'); };
    try {
      const told = [];
      const store = createIndexedDbTaskStore({ dbName: 'unavailable', onFallback: (e) => told.push({ code: e.code, message: e.message }) });
      // Calls already on their way when the database fails go to memory as well (told once).
      await Promise.all([store.get('x'), store.list(), store.get('y')]);
      const client = await connect(url, { store, cardCache: false });
      const handle = await client.start('stream updates=1 chunks=3 delayMs=5');
      const task = await handle.done();
      const strict = createIndexedDbTaskStore({ dbName: 'unavailable-strict', fallback: 'none' });
      let strictError;
      try { await strict.list(); } catch (e) { strictError = { isTether: e instanceof TetherError, code: e.code }; }
      return { mode: store.mode, told, state: task.status.state, records: (await store.list()).map((r) => r.state), strictError };
    } finally {
      indexedDB.open = open;
    }
  },
  async abortMidStream(url) {
    const client = await connect(url, { cardCache: false });
    const controller = new AbortController();
    let n = 0;
    try {
      for await (const _ of client.streamMessage('slow steps=100 delayMs=10', { signal: controller.signal })) {
        if (++n === 2) controller.abort();
      }
      return 'not aborted';
    } catch (e) { return { code: e.code, n }; }
  },
};
`;

describe.skipIf(!available)('@a2a-tether/browser in real Chromium', () => {
  let browser: Browser;
  let page: Page;
  let site: TestSite;
  let agent: TestAgent;

  beforeAll(async () => {
    site = await servePage(PAGE_SCRIPT);
    agent = await startTestAgent();
    browser = await launchChromium();
    page = await browser.newPage();
    // The page is on another origin than the agent: every call crosses CORS.
    await page.goto(`${site.origin}/`);
    await page.waitForFunction(() => 'tether' in window);
  });

  afterAll(async () => {
    await browser?.close();
    await agent?.close();
    await site?.close();
  });

  it.each([
    ['JSONRPC', '1.0'],
    ['HTTP+JSON', '1.0'],
    ['JSONRPC', '0.3'],
    ['HTTP+JSON', '0.3'],
  ])('streams a chunked task over %s v%s and the chunks equal the final artifact', async (binding, version) => {
    const result = await page.evaluate(
      ([url, b, v]) => (window as unknown as { tether: { stream: (u: string, p: object) => Promise<unknown> } }).tether.stream(url, { preferredBindings: [b], protocolVersions: [v] }),
      [agent.url, binding, version] as const,
    );
    const { iface, events, task } = result as {
      iface: { binding: string; protocolVersion: string };
      events: { kind: string; append?: boolean; artifact?: { parts: { text: string }[] }; status?: { state: string } }[];
      task: { status: { state: string }; artifacts: { parts: { text: string }[] }[] };
    };
    expect(iface).toMatchObject({ binding, protocolVersion: version });
    expect(events[0]?.kind).toBe('task');
    expect(events.at(-1)?.status?.state).toBe('completed');
    const streamed = events.filter((e) => e.kind === 'artifact-update').map((e) => e.artifact?.parts.map((p) => p.text).join('')).join('');
    expect(streamed).toBe('chunk-1;chunk-2;chunk-3;chunk-4;');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts[0]?.parts.map((p) => p.text).join('')).toBe(streamed);
  });

  it('throws typed errors that survive in the page (instanceof, code, message)', async () => {
    const result = await page.evaluate((url) => (window as unknown as { tether: { missing: (u: string) => Promise<unknown> } }).tether.missing(url), agent.url);
    expect(result).toMatchObject({ isTether: true, name: 'TaskNotFoundError', code: 'A2A_ERROR', a2aCode: -32001 });
    expect((result as { message: string }).message).toMatch(/^GetTask POST http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc → HTTP 200: TaskNotFoundError -32001/);
  });

  it('the IndexedDB task store passes the testkit store contract in the page', async () => {
    const result = (await page.evaluate(() => (window as unknown as { tether: { storeContract: () => Promise<unknown> } }).tether.storeContract())) as {
      count: number;
      failures: string[];
    };
    expect(result.failures).toEqual([]);
    expect(result.count).toBeGreaterThan(10);
  });

  it('two agents that both name their task "1": two IndexedDB records, both followed to the end and taken up by resumeAll()', async () => {
    const naive = [await startTestAgent({ taskId: () => '1' }), await startTestAgent({ taskId: () => '1' })];
    try {
      const cards = naive.map((a) => a.cardUrl);
      const result = (await page.evaluate((urls) => (window as unknown as { tether: { twoAgents: (u: string[]) => Promise<unknown> } }).tether.twoAgents(urls), cards)) as Record<string, unknown>;
      expect(result).toEqual({
        ids: ['1', '1'],
        listedAfterStart: cards.map((c) => [c, '1']).sort(),
        tasks: cards.map((c) => [[c, '1']]),
        resumed: [['1'], ['1']],
        done: ['completed chunk-1;chunk-2;chunk-3;', 'completed chunk-1;chunk-2;chunk-3;'],
        records: cards.map((c) => [c, '1', 'completed', 'finished']).sort(),
      });
    } finally {
      for (const a of naive) await a.close();
    }
  });

  it('IndexedDB records of the layout before (keyed by the task id alone) move to their keys', async () => {
    const result = await page.evaluate(() => (window as unknown as { tether: { migrate: () => Promise<unknown> } }).tether.migrate());
    const old = { schemaVersion: 1, taskId: '1', contextId: 'c', agentUrl: 'http://a.test/', state: 'working', createdAt: 1, updatedAt: 1 };
    expect(result).toEqual({
      got: old,
      listed: [
        ['http://a.test/', '1', 'working'],
        ['http://a.test/', 'late', 'working'],
        ['http://b.test/', '1', 'input-required'],
      ],
      keys: [JSON.stringify(['http://a.test/', '1']), JSON.stringify(['http://a.test/', 'late']), JSON.stringify(['http://b.test/', '1'])].sort(),
    });
  });

  it('IndexedDB records survive a reload of the page', async () => {
    type Page = { tether: { writeRecord: (id: string) => Promise<void>; readRecords: () => Promise<string[]> } };
    await page.evaluate(() => (window as unknown as Page).tether.writeRecord('survivor'));
    await page.reload();
    await page.waitForFunction(() => 'tether' in window);
    expect(await page.evaluate(() => (window as unknown as Page).tether.readRecords())).toEqual(['survivor']);
  });

  it('IndexedDB unavailable: a typed error, told once, and the client keeps working from memory', async () => {
    const result = (await page.evaluate((url) => (window as unknown as { tether: { unavailable: (u: string) => Promise<unknown> } }).tether.unavailable(url), agent.url)) as {
      mode: string;
      told: { code: string; message: string }[];
      state: string;
      records: string[];
      strictError: unknown;
    };
    expect(result.mode).toBe('memory');
    expect(result.told).toHaveLength(1);
    expect(result.told[0]?.code).toMatch(/^STORE_(READ|WRITE)_FAILED$/);
    expect(result.told[0]?.message).toMatch(/IndexedDB task store: .* failed \(the database is blocked, closed or unavailable/);
    expect(result.state).toBe('completed');
    expect(result.records).toEqual(['completed']);
    expect(result.strictError).toEqual({ isTether: true, code: 'STORE_READ_FAILED' });
  });

  it('an AbortSignal ends the stream with ABORTED', async () => {
    const result = await page.evaluate((url) => (window as unknown as { tether: { abortMidStream: (u: string) => Promise<unknown> } }).tether.abortMidStream(url), agent.url);
    expect(result).toEqual({ code: 'ABORTED', n: 2 });
  });
});
