import { fileURLToPath } from 'node:url';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, servePage, type TestSite } from '../../browser/test/helpers/chromium.js';

// Issue 19, point 2: the React hooks in real Chromium, React 19 under StrictMode (effects mount, unmount
// and mount again), rendered with Testing Library. What must hold: one connection per task (counted at the
// agent), states rendered in the agent's order, a pause answered from the UI, and nothing left behind
// after unmount — pending timers, event listeners and BroadcastChannels are counted in the page.

const available = chromiumAvailable('the React hooks tests');

const REACT_DIST = fileURLToPath(new URL('../dist/index.js', import.meta.url));

const PAGE_SCRIPT = `
import { createElement as h, StrictMode, useEffect, useState } from 'react';
import { render, screen, fireEvent, act } from '@testing-library/react';
import { createIndexedDbTaskStore } from '@a2a-tether/browser';
import { useAgent, useTask, useTasks } from '${REACT_DIST}';

// What the page has running: timers not yet fired or cleared, event listeners, open BroadcastChannels.
const live = { timers: new Set(), listeners: 0, channels: 0 };
const { setTimeout: st, clearTimeout: ct, setInterval: si, clearInterval: ci } = window;
window.setTimeout = (fn, ms, ...args) => { const id = st(() => { live.timers.delete(id); typeof fn === 'function' && fn(...args); }, ms); live.timers.add(id); return id; };
window.clearTimeout = (id) => { live.timers.delete(id); ct(id); };
window.setInterval = (fn, ms, ...args) => { const id = si(fn, ms, ...args); live.timers.add(id); return id; };
window.clearInterval = (id) => { live.timers.delete(id); ci(id); };
const add = EventTarget.prototype.addEventListener, remove = EventTarget.prototype.removeEventListener;
const seen = new WeakMap(); // target → 'type:capture' → Map(listener → what was registered)
const keyOf = (type, opts) => type + ':' + (typeof opts === 'object' ? !!opts?.capture : !!opts);
// Listeners on DOM nodes are React's own (a root's container keeps its delegated listeners): not counted.
// A 'once' listener is removed by the browser when it fires, without removeEventListener: it is wrapped.
EventTarget.prototype.addEventListener = function (type, fn, opts) {
  if (this instanceof Node || !fn) return add.call(this, type, fn, opts);
  const byKey = seen.get(this) ?? new Map(); seen.set(this, byKey);
  const key = keyOf(type, opts);
  const fns = byKey.get(key) ?? new Map(); byKey.set(key, fns);
  if (fns.has(fn)) return;
  let registered = fn;
  if (typeof opts === 'object' && opts?.once) {
    registered = function (event) { if (fns.delete(fn)) live.listeners--; return typeof fn === 'function' ? fn.call(this, event) : fn.handleEvent(event); };
  }
  fns.set(fn, registered);
  live.listeners++;
  return add.call(this, type, registered, opts);
};
EventTarget.prototype.removeEventListener = function (type, fn, opts) {
  if (this instanceof Node || !fn) return remove.call(this, type, fn, opts);
  const fns = seen.get(this)?.get(keyOf(type, opts));
  const registered = fns?.get(fn);
  if (registered !== undefined) { fns.delete(fn); live.listeners--; }
  return remove.call(this, type, registered ?? fn, opts);
};
const BC = window.BroadcastChannel;
window.BroadcastChannel = class extends BC { constructor(n) { super(n); live.channels++; } close() { if (!this.closed) { this.closed = true; live.channels--; } return super.close(); } };

const log = {};          // taskId → states in the order rendered
const renders = {};      // taskId → render count
let agentRef;
const options = { store: createIndexedDbTaskStore({ dbName: 'react-test' }), tabs: true, cardCache: false, preferredBindings: ['JSONRPC'] };

function Task({ id }) {
  const task = useTask(id);
  const states = (log[id] ??= []);
  if (states.at(-1) !== task.state) states.push(task.state);
  renders[id] = (renders[id] ?? 0) + 1;
  const [answer, setAnswer] = useState('');
  return h('article', { 'data-task': id, 'data-state': task.state, 'data-connection': task.connection },
    h('span', null, task.state + ' ' + task.progress.parts + ' parts'),
    task.pause && h('form', { onSubmit: (e) => { e.preventDefault(); void task.reply(answer); } },
      h('label', null, task.pause.message?.parts[0]?.text ?? '?', h('input', { 'aria-label': 'answer ' + id, value: answer, onChange: (e) => setAnswer(e.target.value) })),
      h('button', { type: 'submit' }, 'Reply ' + id)),
    task.error && h('p', { role: 'alert' }, task.error.code),
    h('button', { type: 'button', onClick: () => void task.cancel() }, 'Cancel ' + id));
}

function App({ url, only }) {
  const agent = useAgent(url, options);
  agentRef = agent;
  const { records } = useTasks(agent.client);
  if (agent.status !== 'ready') return h('p', null, agent.status);
  if (only) return h('p', null, 'connected');
  return h(Provider, { client: agent.client }, h('ul', null, records.map((r) => h('li', { key: r.taskId }, h(Task, { id: r.taskId })))));
}
import { TetherProvider as Provider } from '${REACT_DIST}';

let mounted;
window.rt = {
  async mount(url, only) {
    mounted = render(h(StrictMode, null, h(App, { url, only })));
    while (agentRef?.status !== 'ready') await new Promise((r) => st(r, 20));
    return true;
  },
  async start(text) { const handle = await agentRef.start(text); return handle.taskId; },
  async answer(id, text) {
    const input = await screen.findByLabelText('answer ' + id, {}, { timeout: 10000 });
    fireEvent.change(input, { target: { value: text } });
    fireEvent.click(screen.getByText('Reply ' + id));
    return true;
  },
  state(id) { return document.querySelector('[data-task="' + id + '"]')?.getAttribute('data-state') ?? null; },
  log(id) { return log[id] ?? []; },
  renders(id) { return renders[id] ?? 0; },
  unmount() { act(() => mounted.unmount()); return true; },
  async cancel(id) { fireEvent.click(await screen.findByText('Cancel ' + id, {}, { timeout: 10000 })); return true; },
  live() { return { timers: live.timers.size, listeners: live.listeners, channels: live.channels }; },
};
window.api = () => window.rt;
`;

type Live = { timers: number; listeners: number; channels: number };
type Rt = {
  mount(url: string, only?: boolean): Promise<boolean>;
  start(text: string): Promise<string>;
  answer(id: string, text: string): Promise<boolean>;
  state(id: string): string | null;
  log(id: string): string[];
  renders(id: string): number;
  unmount(): boolean;
  cancel(id: string): Promise<boolean>;
  live(): Live;
};
/** In the page: the test API the page script defines. */
const api = (): Rt => (window as unknown as { rt: Rt }).rt;

describe.skipIf(!available)('React hooks in real Chromium (React 19, StrictMode, Testing Library)', () => {
  let browser: Browser;
  let context: BrowserContext;
  let site: TestSite;
  let agent: TestAgent;

  beforeAll(async () => {
    site = await servePage(PAGE_SCRIPT, { resolveDir: fileURLToPath(new URL('.', import.meta.url)), define: { 'process.env.NODE_ENV': '"development"' } });
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

  async function openTab(): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error('page error:', error.message));
    await page.goto(`${site.origin}/`);
    await page.waitForFunction(() => 'rt' in window);
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

  /** Requests that opened a stream for the task (a streaming send that created it, or a subscription to it). */
  function streamsFor(taskId: string, sends: number): number {
    const subscriptions = agent.requests.filter((r) => {
      const body = r.body as { method?: string; params?: { id?: string } } | undefined;
      return body?.method === 'SubscribeToTask' && body.params?.id === taskId;
    }).length;
    return sends + subscriptions;
  }
  const cancels = (): number => agent.requests.filter((r) => (r.body as { method?: string } | undefined)?.method === 'CancelTask').length;
  const sends = (): number => agent.requests.filter((r) => (r.body as { method?: string } | undefined)?.method === 'SendStreamingMessage').length;

  /** What the page has running, once it stops changing (a follow winds down over a few ticks). */
  async function settled(page: Page): Promise<Live> {
    let last = await page.evaluate(() => api().live());
    for (let i = 0; i < 40; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const now = await page.evaluate(() => api().live());
      if (JSON.stringify(now) === JSON.stringify(last) && i > 3) return now;
      last = now;
    }
    return last;
  }

  it('StrictMode: a task started from the hooks is followed over one connection, its states render in order, its pause is answered from the UI; unmount leaves nothing running', async () => {
    const page = await openTab();
    // The client alone (connected, shared for the page's life): what the page runs before any task.
    await page.evaluate((url) => api().mount(url, true), agent.url);
    await page.evaluate(() => api().unmount());
    const baseline = await settled(page);
    await page.evaluate((url) => api().mount(url), agent.url);
    const id = await page.evaluate(() => api().start('input'));
    await waitFor(() => page.evaluate((taskId) => api().state(taskId), id), (s) => s === 'input-required', 10_000);
    await page.evaluate((taskId) => api().answer(taskId, 'blue'), id);
    await waitFor(() => page.evaluate((taskId) => api().state(taskId), id), (s) => s === 'completed', 10_000);
    // The agent got the answer as the reply to this task.
    const replies = agent.requests.filter((r) => JSON.stringify(r.body ?? '').includes('"blue"'));
    expect(replies).toHaveLength(1);
    expect(JSON.stringify(replies[0]?.body)).toContain(id);
    // One connection at a time for the task, although StrictMode mounted everything twice: its streaming
    // send, then the reply's (which continues the stream); never a subscription beside them.
    expect(sends()).toBe(2);
    expect(streamsFor(id, 0)).toBe(0);
    // States in the agent's order, none repeated or going back.
    const order = ['unknown', 'submitted', 'working', 'input-required', 'working', 'completed'];
    const states = await page.evaluate((taskId) => api().log(taskId), id);
    expect(states.at(-1)).toBe('completed');
    expect(states).toContain('input-required');
    let at = -1;
    for (const state of states) {
      const next = order.indexOf(state, at + 1);
      expect(next, `${state} after ${order[at]} in ${states.join(' → ')}`).toBeGreaterThan(at);
      at = next;
    }
    await page.evaluate(() => api().unmount());
    expect(await settled(page)).toEqual(baseline);
  });

  it('StrictMode: an unmount mid-task and a reload mid-task never cancel — the task runs on and shows again to its end; useTask().cancel() sends one CancelTask', async () => {
    const page = await openTab();
    await page.evaluate((url) => api().mount(url), agent.url);
    const id = await page.evaluate(() => api().start('stream updates=2 chunks=40 delayMs=50'));
    await waitFor(() => page.evaluate((taskId) => api().state(taskId), id), (s) => s === 'working', 5_000);
    await page.evaluate(() => api().unmount());
    await page.reload();
    await page.waitForFunction(() => 'rt' in window);
    await page.evaluate((url) => api().mount(url), agent.url);
    await waitFor(() => page.evaluate((taskId) => api().state(taskId), id), (s) => s === 'completed', 20_000);
    expect(cancels()).toBe(0);
    expect(sends()).toBe(1);

    const slow = await page.evaluate(() => api().start('slow steps=300 delayMs=100'));
    await waitFor(() => page.evaluate((taskId) => api().state(taskId), slow), (s) => s === 'working', 5_000);
    await page.evaluate((taskId) => api().cancel(taskId), slow);
    await waitFor(() => page.evaluate((taskId) => api().state(taskId), slow), (s) => s === 'canceled', 10_000);
    expect(cancels()).toBe(1);
  });

  it('StrictMode: a task another tab started shows here by id, mirrored (the agent sees one stream); unmounting mid-task stops this tab\'s follow and leaves nothing running', async () => {
    const [one, two] = [await openTab(), await openTab()];
    await two.evaluate((url) => api().mount(url, true), agent.url);
    await two.evaluate(() => api().unmount());
    const baseline = await settled(two);
    await one.evaluate((url) => api().mount(url), agent.url);
    await two.evaluate((url) => api().mount(url), agent.url);
    const id = await one.evaluate(() => api().start('stream updates=2 chunks=60 delayMs=50'));
    // Tab two lists it (useTasks) and follows it by id (useTask): it renders the task working.
    await waitFor(() => two.evaluate((taskId) => api().state(taskId), id), (s) => s === 'working', 5_000);
    await waitFor(() => two.evaluate((taskId) => api().renders(taskId), id), (n) => n >= 3, 5_000);
    await two.evaluate(() => api().unmount());
    expect(await settled(two)).toEqual(baseline);
    // Tab one's follow carries on to the end; the agent saw one stream for the task throughout.
    await waitFor(() => one.evaluate((taskId) => api().state(taskId), id), (s) => s === 'completed', 20_000);
    expect(streamsFor(id, sends())).toBe(1);
  });
});
