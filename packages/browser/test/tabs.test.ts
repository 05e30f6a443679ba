import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_DIST, chromiumAvailable, launchChromium, servePage, type TestSite } from './helpers/chromium.js';

// Issue 8's must-shows in real Chromium: several tabs on one task over one connection, the driving tab
// closing, a reload in the middle of a task, and 30 s offline. Each tab is a page of one browser context
// (one origin: shared IndexedDB, Web Locks and BroadcastChannel); the agent is on another origin.

const available = chromiumAvailable('the real-browser tabs tests');
const OUT = fileURLToPath(new URL('../test-output/', import.meta.url));

// The page renders as an app would: per artifact, `append` adds parts, otherwise the artifact is replaced;
// every part written to the "screen" is counted, so a chunk rendered twice shows.
const PAGE_SCRIPT = `
import { connect, createIndexedDbTaskStore } from '${BROWSER_DIST}';
let client;
const tasks = {};
const handles = {};
function watch(handle) {
  handles[handle.taskId] = handle;
  const t = (tasks[handle.taskId] = { state: handle.view.state, connection: handle.view.connection, artifacts: {}, writes: {}, log: [], connections: [], done: undefined, error: undefined });
  (async () => {
    for await (const e of handle.events()) {
      if (e.type === 'artifact') {
        const texts = e.parts.map((p) => p.text ?? '');
        t.artifacts[e.artifactId] = (e.append ? (t.artifacts[e.artifactId] ?? '') : '') + texts.join('');
        for (const x of texts) t.writes[x] = (t.writes[x] ?? 0) + 1;
        t.log.push('a:' + (e.append ? '+' : '=') + texts.join(''));
      } else if (e.type === 'status') {
        t.state = e.state;
        t.log.push('s:' + e.state);
      } else if (e.type === 'connection') {
        t.connection = e.state;
        t.connections.push({ state: e.state, at: Date.now() });
      }
    }
  })();
  handle.done().then((task) => { t.done = task.status.state; t.final = task.artifacts.map((a) => a.parts.map((p) => p.text ?? '').join('')); }, (e) => { t.error = e.code + ': ' + e.message; });
}
window.tab = {
  async init(url, tab = '') {
    // Each request says which tab sent it (x-tab), so the test can tell whose streams the agent saw.
    const tagged = (input, init = {}) => { const headers = new Headers(init.headers); headers.set('x-tab', tab); return fetch(input, { ...init, headers }); };
    client = await connect(url, { store: createIndexedDbTaskStore({ dbName: 'tabs-test' }), tabs: true, cardCache: false, preferredBindings: ['JSONRPC'], fetch: tagged });
    return true;
  },
  async start(text) { const h = await client.start(text); watch(h); return h.taskId; },
  async resumeAll() { const hs = await client.resumeAll(); hs.forEach(watch); return hs.map((h) => h.taskId); },
  async reply(id, text) { await handles[id].reply(text); return true; },
  async cancel(id) { return handles[id].cancel({ waitMs: 5000 }); },
  withoutLocks() { Object.defineProperty(Navigator.prototype, 'locks', { get: () => undefined, configurable: true }); return true; },
  get(id) { return JSON.parse(JSON.stringify(tasks[id] ?? null)); },
  online() { return navigator.onLine; },
};
`;

type TabView = {
  state: string;
  connection: string;
  artifacts: Record<string, string>;
  writes: Record<string, number>;
  log: string[];
  connections: { state: string; at: number }[];
  done?: string;
  final?: string[];
  error?: string;
};
type TabApi = { tab: { reply(id: string, text: string): Promise<boolean>; cancel(id: string): Promise<{ confirmed: boolean; state: string }>; withoutLocks(): boolean; init(u: string, tab?: string): Promise<boolean>; start(t: string): Promise<string>; resumeAll(): Promise<string[]>; get(id: string): TabView | null } };

const chunks = (n: number): string => Array.from({ length: n }, (_, i) => `chunk-${i + 1};`).join('');

describe.skipIf(!available)('tabs and page lifecycle in real Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let site: TestSite;
  let siteUrl: string;
  let agent: TestAgent;

  beforeAll(async () => {
    site = await servePage(PAGE_SCRIPT);
    siteUrl = `${site.origin}/`;
    browser = await launchChromium();
    mkdirSync(OUT, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  beforeEach(async () => {
    agent = await startTestAgent();
    context = await browser.newContext(); // a fresh origin state: its own IndexedDB, locks and channels
  });

  afterEach(async () => {
    await context?.close();
    await agent?.close();
  });

  let tabs = 0;
  async function openTab(): Promise<Page> {
    const page = await context.newPage();
    await page.goto(siteUrl);
    await page.waitForFunction(() => 'tab' in window);
    await page.evaluate(([url, tab]) => (window as unknown as TabApi).tab.init(url, tab), [agent.url, `tab-${++tabs}`] as const);
    return page;
  }

  const view = (page: Page, id: string): Promise<TabView | null> => page.evaluate((taskId) => (window as unknown as TabApi).tab.get(taskId), id);

  async function until(page: Page, id: string, ok: (v: TabView) => boolean, timeoutMs: number): Promise<TabView> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const v = await view(page, id);
      if (v && ok(v)) return v;
      if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms; last view: ${JSON.stringify(v)?.slice(0, 600)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Requests that opened a stream for the task (a streaming send or a subscription), from one tab or all. */
  function streamsFor(taskId: string, tab?: string): number {
    return agent.requests.filter((r) => {
      if (tab !== undefined && r.headers['x-tab'] !== tab) return false;
      const body = r.body as { method?: string; params?: { id?: string; message?: { taskId?: string } } } | undefined;
      if (body?.method === 'SubscribeToTask') return body.params?.id === taskId;
      return body?.method === 'SendStreamingMessage';
    }).length;
  }

  const noChunkTwice = (v: TabView): string[] => Object.entries(v.writes).filter(([, n]) => n > 1).map(([chunk]) => chunk);

  it('three tabs on one task: the agent sees one stream; every tab shows the same events and the same final state', async () => {
    const [one, two, three] = [await openTab(), await openTab(), await openTab()];
    const id = await one.evaluate(() => (window as unknown as TabApi).tab.start('stream updates=2 chunks=40 delayMs=40'));
    await until(one, id, (v) => (v.artifacts['result']?.length ?? 0) > 0, 10_000);
    expect(await two.evaluate(() => (window as unknown as TabApi).tab.resumeAll())).toEqual([id]);
    expect(await three.evaluate(() => (window as unknown as TabApi).tab.resumeAll())).toEqual([id]);
    const views = await Promise.all([one, two, three].map((p) => until(p, id, (v) => v.done !== undefined || v.error !== undefined, 30_000)));
    for (const v of views) {
      expect(v.error).toBeUndefined();
      expect(v.done).toBe('completed');
      expect(v.artifacts['result']).toBe(chunks(40));
      expect(v.final).toEqual([chunks(40)]);
      expect(noChunkTwice(v)).toEqual([]);
    }
    // One connection for the task, the first tab's: the mirrors opened none. (The first tab's send stream,
    // and a resubscription of its own if that stream broke on a loaded machine — never two at once.)
    expect(streamsFor(id, `tab-${tabs - 1}`)).toBe(0);
    expect(streamsFor(id, `tab-${tabs}`)).toBe(0);
    expect(streamsFor(id, `tab-${tabs - 2}`)).toBeGreaterThanOrEqual(1);
    expect(streamsFor(id)).toBe(streamsFor(id, `tab-${tabs - 2}`));
    if (streamsFor(id) > 1) {
      const calls = agent.requests.map((r) => `${r.headers['x-tab']} ${(r.body as { method?: string } | undefined)?.method ?? r.method + ' ' + r.path}`);
      console.log(`three tabs: the driving tab opened ${streamsFor(id)} streams (its own reconnects): ${calls.join(' | ')}`);
    }
    // After the mirrors' first snapshot, their events are the driver's, in order.
    const [a, b, c] = views as [TabView, TabView, TabView];
    expect(b.log.slice(-12)).toEqual(a.log.slice(-12));
    expect(c.log.slice(-12)).toEqual(a.log.slice(-12));
    await two.screenshot({ path: `${OUT}tabs-three.png` });
  });

  it('without Web Locks every tab streams its own copy (documented degradation), and each completes', async () => {
    const pages: Page[] = [];
    for (let i = 0; i < 2; i++) {
      const page = await context.newPage();
      await page.goto(siteUrl);
      await page.waitForFunction(() => 'tab' in window);
      await page.evaluate(() => (window as unknown as TabApi).tab.withoutLocks());
      await page.evaluate(([url, tab]) => (window as unknown as TabApi).tab.init(url, tab), [agent.url, `unlocked-${i}`] as const);
      pages.push(page);
    }
    const [one, two] = pages as [Page, Page];
    const id = await one.evaluate(() => (window as unknown as TabApi).tab.start('stream updates=1 chunks=20 delayMs=40'));
    expect(await two.evaluate(() => (window as unknown as TabApi).tab.resumeAll())).toEqual([id]);
    for (const page of pages) {
      const done = await until(page, id, (v) => v.done !== undefined || v.error !== undefined, 30_000);
      expect(done.done).toBe('completed');
      expect(done.artifacts['result']).toBe(chunks(20));
    }
    expect(streamsFor(id, 'unlocked-0')).toBeGreaterThanOrEqual(1);
    expect(streamsFor(id, 'unlocked-1')).toBeGreaterThanOrEqual(1);
  });

  it('a mirroring tab answers input-required: the driving tab sends it (one send), both tabs see the task complete', async () => {
    const [one, two] = [await openTab(), await openTab()];
    const id = await one.evaluate(() => (window as unknown as TabApi).tab.start('input'));
    expect(await two.evaluate(() => (window as unknown as TabApi).tab.resumeAll())).toEqual([id]);
    await until(two, id, (v) => v.state === 'input-required', 15_000);
    const sends = (): number => agent.requests.filter((r) => /^(SendMessage|SendStreamingMessage)$/.test(String((r.body as { method?: string } | undefined)?.method))).length;
    const before = sends();
    expect(await two.evaluate((taskId) => (window as unknown as TabApi).tab.reply(taskId, 'yes'), id)).toBe(true);
    for (const page of [one, two]) {
      const done = await until(page, id, (v) => v.done !== undefined || v.error !== undefined, 15_000);
      expect(done.done).toBe('completed');
      expect(done.artifacts['answer']).toBe('got: yes');
    }
    expect(sends() - before).toBe(1);
    // The creating send's stream, then the reply's: both the first tab's; the mirror opened none.
    expect(streamsFor(id, `tab-${tabs}`)).toBe(0);
    expect(streamsFor(id, `tab-${tabs - 1}`)).toBeGreaterThanOrEqual(2);
  });

  it('a mirroring tab cancels: the agent confirms, both tabs show canceled once', async () => {
    const [one, two] = [await openTab(), await openTab()];
    const id = await one.evaluate(() => (window as unknown as TabApi).tab.start('slow steps=300 delayMs=40'));
    expect(await two.evaluate(() => (window as unknown as TabApi).tab.resumeAll())).toEqual([id]);
    await until(two, id, (v) => (v.artifacts['result']?.length ?? 0) > 0, 15_000);
    const outcome = await two.evaluate((taskId) => (window as unknown as TabApi).tab.cancel(taskId), id);
    expect(outcome).toMatchObject({ confirmed: true, state: 'canceled' });
    for (const page of [one, two]) {
      const done = await until(page, id, (v) => v.done !== undefined || v.error !== undefined, 15_000);
      expect(done.done).toBe('canceled');
      expect(done.log.filter((l) => l === 's:canceled')).toHaveLength(1);
      expect(noChunkTwice(done)).toEqual([]);
    }
  });

  it('closing the driving tab: another tab takes over from what it mirrored — complete, nothing twice', async () => {
    const [one, two] = [await openTab(), await openTab()];
    const id = await one.evaluate(() => (window as unknown as TabApi).tab.start('stream updates=1 chunks=40 delayMs=80'));
    expect(await two.evaluate(() => (window as unknown as TabApi).tab.resumeAll())).toEqual([id]);
    await until(two, id, (v) => (v.artifacts['result']?.length ?? 0) >= chunks(10).length, 15_000);
    expect(streamsFor(id, `tab-${tabs}`)).toBe(0); // while the driver lives, the mirror opens nothing
    const closedAt = Date.now();
    await one.close();
    const done = await until(two, id, (v) => v.done !== undefined || v.error !== undefined, 30_000);
    expect(done.error).toBeUndefined();
    expect(done.done).toBe('completed');
    expect(done.artifacts['result']).toBe(chunks(40));
    expect(noChunkTwice(done)).toEqual([]);
    // The second tab opened a stream of its own only once it drove the task: the subscription it took over with.
    expect(streamsFor(id, `tab-${tabs}`)).toBeGreaterThanOrEqual(1);
    const takeover = agent.requests.find((r) => (r.body as { method?: string } | undefined)?.method === 'SubscribeToTask' && r.headers['x-tab'] === `tab-${tabs}`);
    expect(takeover?.at ?? 0).toBeGreaterThanOrEqual(closedAt);
    // Measured, not asserted (timings belong to benchmarks): from the close to the new tab's subscription.
    const ms = (takeover?.at ?? Number.NaN) - closedAt;
    writeFileSync(`${OUT}takeover.json`, JSON.stringify({ closeToSubscribeMs: ms }));
    console.log(`takeover: the follower subscribed ${ms} ms after the driving tab closed`);
    expect(takeover).toBeDefined();
  });

  it('a reload in the middle of a 40-chunk task: the page resumes from IndexedDB; the artifact is complete, no chunk rendered twice', async () => {
    const page = await openTab();
    const id = await page.evaluate(() => (window as unknown as TabApi).tab.start('stream updates=1 chunks=40 delayMs=60'));
    await until(page, id, (v) => (v.artifacts['result']?.length ?? 0) >= chunks(12).length, 15_000);
    await page.reload();
    await page.waitForFunction(() => 'tab' in window);
    await page.evaluate((url) => (window as unknown as TabApi).tab.init(url), agent.url);
    // The task comes back from the store: nothing else in the page knows it.
    expect(await page.evaluate(() => (window as unknown as TabApi).tab.resumeAll())).toEqual([id]);
    const done = await until(page, id, (v) => v.done !== undefined || v.error !== undefined, 30_000);
    expect(done.error).toBeUndefined();
    expect(done.done).toBe('completed');
    expect(done.artifacts['result']).toBe(chunks(40));
    expect(noChunkTwice(done)).toEqual([]);
    await page.screenshot({ path: `${OUT}reload.png` });
  });

  it('offline for 30 s (network emulation), then online: the task is resumed and complete', { timeout: 90_000 }, async () => {
    const page = await openTab();
    const id = await page.evaluate(() => (window as unknown as TabApi).tab.start('stream updates=1 chunks=50 delayMs=900'));
    await until(page, id, (v) => (v.artifacts['result']?.length ?? 0) >= chunks(3).length, 15_000);
    // Offline as a real outage is: the browser says so (navigator.onLine, the offline event), new requests
    // fail, and the open connection dies with the link (emulation alone keeps an open stream alive).
    const attempts: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(agent.origin)) attempts.push(r.url());
    });
    await context.setOffline(true);
    await agent.stop();
    expect(await page.evaluate(() => navigator.onLine)).toBe(false);
    await new Promise((r) => setTimeout(r, 30_000));
    // While offline the engine made no attempt (no retries burning its budget) and did not give up.
    expect(attempts).toEqual([]);
    const during = await view(page, id);
    expect(during?.done).toBeUndefined();
    expect(during?.error).toBeUndefined();
    expect(during?.connections.map((c) => c.state)).toContain('reconnecting');
    await agent.start();
    await context.setOffline(false);
    const done = await until(page, id, (v) => v.done !== undefined || v.error !== undefined, 60_000);
    expect(done.error).toBeUndefined();
    expect(done.done).toBe('completed');
    expect(done.artifacts['result']).toBe(chunks(50));
    expect(noChunkTwice(done)).toEqual([]);
  });
});
