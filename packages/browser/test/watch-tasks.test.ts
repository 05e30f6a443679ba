import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROWSER_DIST, chromiumAvailable, launchChromium, servePage, type TestSite } from './helpers/chromium.js';

// Issue 19, point 1 in real Chromium: the task list is shared by every tab of an origin. A task started
// in one tab shows in the others' `watchTasks()` within a second, without a reload; the others attach to
// it over the one connection the starting tab holds; every tab ends with the same final state.

const available = chromiumAvailable('the real-browser watchTasks tests');

const PAGE_SCRIPT = `
import { connect, createIndexedDbTaskStore } from '${BROWSER_DIST}';
let client;
const lists = [];
const ends = {};
window.tab = {
  async init(url, tab) {
    const tagged = (input, init = {}) => { const headers = new Headers(init.headers); headers.set('x-tab', tab); return fetch(input, { ...init, headers }); };
    client = await connect(url, { store: createIndexedDbTaskStore({ dbName: 'watch-test' }), tabs: true, cardCache: false, preferredBindings: ['JSONRPC'], fetch: tagged });
    // No polling to fall back on (a store that could not say when it changed would be read only every minute).
    client.watchTasks((records) => lists.push({ at: Date.now(), tasks: records.map((r) => r.taskId + ':' + r.state + ':' + (r.outcome ? r.outcome.kind : '-')) }), { intervalMs: 60_000 });
    return true;
  },
  async start(text) { const h = await client.start(text); h.done().then((t) => (ends[h.taskId] = t.status.state), (e) => (ends[h.taskId] = 'error ' + e.code)); return { id: h.taskId, at: Date.now() }; },
  async attach(id) { const h = await client.resume(id); h.done().then((t) => (ends[id] = t.status.state), (e) => (ends[id] = 'error ' + e.code)); return true; },
  lists() { return lists; },
  end(id) { return ends[id]; },
};
// The test's page functions call api(), as the test file names it.
window.api = () => window.tab;
`;

type Told = { at: number; tasks: string[] };
type TabApi = {
  tab: {
    init(url: string, tab: string): Promise<boolean>;
    start(text: string): Promise<{ id: string; at: number }>;
    attach(id: string): Promise<boolean>;
    lists(): Told[];
    end(id: string): string | undefined;
  };
};
/** In the page: its tab API (the page script defines `window.api` the same way). */
const api = (): TabApi['tab'] => (window as unknown as TabApi).tab;

describe.skipIf(!available)('watchTasks() across tabs in real Chromium', () => {
  let browser: Browser;
  let context: BrowserContext;
  let site: TestSite;
  let agent: TestAgent;

  beforeAll(async () => {
    site = await servePage(PAGE_SCRIPT);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });
  beforeEach(async () => {
    agent = await startTestAgent();
    context = await browser.newContext();
  });
  afterEach(async () => {
    await context?.close();
    await agent?.close();
  });

  let tabs = 0;
  async function openTab(): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${site.origin}/`);
    await page.waitForFunction(() => 'tab' in window);
    await page.evaluate(([url, tab]) => (window as unknown as TabApi).tab.init(url, tab), [agent.url, `tab-${++tabs}`] as const);
    return page;
  }

  async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs: number): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (ok(value)) return value;
      if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms; last: ${JSON.stringify(value)?.slice(0, 600)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Requests that opened a stream for the task (its streaming send, or a subscription to it). */
  function streamsFor(taskId: string): number {
    return agent.requests.filter((r) => {
      const body = r.body as { method?: string; params?: { id?: string } } | undefined;
      if (body?.method === 'SubscribeToTask') return body.params?.id === taskId;
      return body?.method === 'SendStreamingMessage';
    }).length;
  }

  it('a task started in one tab shows in two others within 1 s, without a reload; they attach; all end the same; the agent sees one stream', async () => {
    const [one, two, three] = [await openTab(), await openTab(), await openTab()];
    // Every tab has been told its (empty) list.
    for (const page of [one, two, three]) await waitFor(() => page.evaluate(() => api().lists()), (lists) => lists.length >= 1, 5_000);
    const { id, at } = await one.evaluate(() => api().start('stream updates=2 chunks=30 delayMs=40'));
    for (const page of [two, three]) {
      const lists = await waitFor(() => page.evaluate(() => api().lists()), (ls) => ls.some((l) => l.tasks.some((t) => t.startsWith(`${id}:`))), 3_000);
      const first = lists.find((l) => l.tasks.some((t) => t.startsWith(`${id}:`))) as Told;
      expect(first.at - at).toBeLessThan(1_000);
      await page.evaluate((taskId) => api().attach(taskId), id);
    }
    for (const page of [one, two, three]) await waitFor(() => page.evaluate((taskId) => api().end(taskId), id), (end) => end !== undefined, 30_000);
    for (const page of [one, two, three]) {
      expect(await page.evaluate((taskId) => api().end(taskId), id)).toBe('completed');
      const lists = await waitFor(() => page.evaluate(() => api().lists()), (ls) => ls.at(-1)?.tasks.includes(`${id}:completed:finished`) === true, 3_000);
      expect(lists.at(-1)?.tasks).toEqual([`${id}:completed:finished`]);
    }
    expect(streamsFor(id)).toBe(1);
  });
});
