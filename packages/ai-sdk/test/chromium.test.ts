import { fileURLToPath } from 'node:url';
import { startTestAgent, type ScenarioFn, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium, servePage, type TestSite } from '../../browser/test/helpers/chromium.js';

// Issue 34, point 2: useChat (@ai-sdk/react) over A2AChatTransport in real Chromium, React's development
// build under StrictMode (effects mount, unmount, mount), with the docs' setup: the IndexedDB task store
// and the IndexedDB chat store. What must hold: a reload mid-answer continues the same answer (one send,
// no CancelTask); Stop sends exactly one CancelTask; after a reload the user's messages, the answers and
// a pause's question are back. The page is bundled from the web example, the workspace package that
// depends on @ai-sdk/react and react-dom; the packages are the BUILT ones (what users get).

const available = chromiumAvailable('the useChat tests');

// playwright-core's types, through the helper (this package does not depend on it).
type Browser = Awaited<ReturnType<typeof launchChromium>>;
type BrowserContext = Awaited<ReturnType<Browser['newContext']>>;
type Page = Awaited<ReturnType<BrowserContext['newPage']>>;

const PAGE_SCRIPT = `
import { createElement as h, StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { useChat } from '@ai-sdk/react';
import { connect, createIndexedDbTaskStore } from '@a2a-tether/browser';
import { createIndexedDbChatStore } from '@a2a-tether/browser/chats';
import { A2AChatTransport } from '@a2a-tether/ai-sdk';

let connecting;
const transportFor = (url) => (connecting ??= connect(url, { store: createIndexedDbTaskStore({ dbName: 'chat-test' }), cardCache: false, preferredBindings: ['JSONRPC'] })
  .then((client) => new A2AChatTransport({ client, messages: createIndexedDbChatStore({ dbName: 'chat-test' }) })));

let chat;
function Chat({ id, transport, initial }) {
  chat = useChat({ id, messages: initial, transport, resume: true });
  return h('main', { 'data-status': chat.status }, chat.messages.map((m) => h('p', { key: m.id, 'data-role': m.role }, m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''))));
}
function Page({ url, id }) {
  const [ready, setReady] = useState();
  useEffect(() => {
    let live = true;
    void transportFor(url).then(async (transport) => { const initial = await transport.loadMessages(id); if (live) setReady({ transport, initial }); });
    return () => { live = false; };
  }, [url, id]);
  return ready ? h(Chat, { id, ...ready }) : h('p', null, 'loading');
}
let root;
window.chatTest = {
  mount(url) { root = createRoot(document.body.appendChild(document.createElement('div'))); root.render(h(StrictMode, null, h(Page, { url, id: 'chat-1' }))); return true; },
  ready() { return chat !== undefined; },
  status() { return chat?.status ?? null; },
  messages() { return (chat?.messages ?? []).map((m) => ({ id: m.id, role: m.role, text: m.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''), pause: m.parts.some((p) => p.type === 'data-a2a-pause') })); },
  send(text) { void chat.sendMessage({ text }); return true; },
  stop() { void chat.stop(); return true; },
};
window.api = () => window.chatTest;
`;

type Shown = { id: string; role: string; text: string; pause: boolean };
type ChatTest = { mount(url: string): boolean; ready(): boolean; status(): string | null; messages(): Shown[]; send(text: string): boolean; stop(): boolean };
const api = (): ChatTest => (window as unknown as { chatTest: ChatTest }).chatTest;

/** `gated`: 5 chunks, then waits for the test's gate (or a cancel), then 5 more and completes. */
function gated(wait: Promise<void>): ScenarioFn {
  return async (ctx) => {
    const cancelled = new Promise<void>((resolve) => ctx.cancelled.addEventListener('abort', () => resolve(), { once: true }));
    ctx.status('working', 'thinking');
    for (let i = 1; i <= 10; i++) {
      if (i === 6) {
        await Promise.race([wait, cancelled]);
        await ctx.sleep(0);
      }
      ctx.artifact({ artifactId: 'answer', name: 'answer', text: `part-${i}; `, append: i > 1, lastChunk: i === 10 });
      await ctx.sleep(1);
    }
    ctx.status('completed');
  };
}
const FULL = Array.from({ length: 10 }, (_, i) => `part-${i + 1}; `).join('');

describe.skipIf(!available)('useChat over A2AChatTransport in real Chromium (React 19 development build, StrictMode)', () => {
  let browser: Browser;
  let context: BrowserContext;
  let site: TestSite;
  let agent: TestAgent;
  let open: () => void;

  beforeAll(async () => {
    site = await servePage(PAGE_SCRIPT, { resolveDir: fileURLToPath(new URL('../../../examples/web-assistant', import.meta.url)), define: { 'process.env.NODE_ENV': '"development"' } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });
  beforeEach(async () => {
    const wait = new Promise<void>((resolve) => (open = resolve));
    agent = await startTestAgent({ scenarios: { gated: gated(wait) } });
    context = await browser.newContext();
  });
  afterEach(async () => {
    open();
    await context?.close();
    await agent?.close();
  });

  const methodOf = (body: unknown): string => ((body as { method?: string } | undefined)?.method ?? '');
  const cancels = (): number => agent.requests.filter((r) => methodOf(r.body) === 'CancelTask').length;
  const sends = (): number => agent.requests.filter((r) => ['SendMessage', 'SendStreamingMessage'].includes(methodOf(r.body))).length;

  async function waitFor<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (ok(value)) return value;
      if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(value)?.slice(0, 600)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Opens (or reloads) the page and mounts the chat; resolves once useChat has its chat. */
  async function mount(page: Page): Promise<void> {
    await page.waitForFunction(() => 'chatTest' in window);
    await page.evaluate((url) => api().mount(url), agent.url);
    await waitFor(() => page.evaluate(() => api().ready()), (r) => r, 'the chat to mount');
  }
  async function openPage(): Promise<Page> {
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error('page error:', error.message));
    await page.goto(`${site.origin}/`);
    await mount(page);
    return page;
  }
  const shown = (page: Page): Promise<Shown[]> => page.evaluate(() => api().messages());
  const answer = (page: Page): Promise<string> => shown(page).then((m) => m.at(-1)?.text ?? '');

  it('a reload mid-answer: the same answer continues (one send, no CancelTask), the user\'s message is back; Stop then sends one CancelTask', async () => {
    const page = await openPage();
    await page.evaluate(() => api().send('gated'));
    await waitFor(() => answer(page), (t) => t.includes('part-5; '), 'the answer to reach the gate');
    await page.reload();
    await mount(page);
    await waitFor(() => shown(page), (m) => m.length === 2 && m[1]!.text.includes('part-5; '), 'the answer shown again after the reload');
    expect((await shown(page))[0]).toMatchObject({ role: 'user', text: 'gated' });
    open();
    await waitFor(() => page.evaluate(() => api().status()), (s) => s === 'ready', 'the answer to end');
    expect(await answer(page)).toBe(FULL);
    expect(sends()).toBe(1);
    expect(cancels()).toBe(0);
    const taskId = agent.tasks.list()[0]?.id as string;
    expect(agent.tasks.get(taskId)?.state).toBe('completed');

    // Stop: exactly one CancelTask. (The gate is open: a long answer to stop.)
    await page.evaluate(() => api().send('stream updates=2 chunks=200 delayMs=30'));
    await waitFor(() => answer(page), (t) => t.includes('chunk-3;'), 'the second answer to stream');
    await page.evaluate(() => api().stop());
    const second = await waitFor(async () => agent.tasks.list().find((t) => t.id !== taskId), (t) => t?.state === 'canceled', 'the second task canceled');
    expect(second?.state).toBe('canceled');
    expect(cancels()).toBe(1);
    expect(sends()).toBe(2);
  }, 30_000);

  it('after a reload the user\'s messages, the answers and a pause\'s question are back; the pause is answered after it', async () => {
    const page = await openPage();
    await page.evaluate(() => api().send('input'));
    await waitFor(() => shown(page), (m) => m.length === 2 && m[1]!.pause, 'the pause');
    expect(await answer(page)).toBe('need input');
    await page.reload();
    await mount(page);
    const restored = await waitFor(() => shown(page), (m) => m.length === 2, 'the chat back after the reload');
    expect(restored.map(({ role, text, pause }) => ({ role, text, pause }))).toEqual([
      { role: 'user', text: 'input', pause: false },
      { role: 'assistant', text: 'need input', pause: true },
    ]);
    await waitFor(() => page.evaluate(() => api().status()), (s) => s === 'ready', 'the chat ready at the pause');
    await page.evaluate(() => api().send('blue'));
    await waitFor(() => shown(page), (m) => m.length === 4 && m[3]!.text === 'got: blue', 'the answer after the pause');
    await waitFor(() => page.evaluate(() => api().status()), (s) => s === 'ready', 'the chat ready');
    await page.reload();
    await mount(page);
    const all = await waitFor(() => shown(page), (m) => m.length === 4, 'the whole chat after a second reload');
    expect(all.map(({ role, text }) => ({ role, text }))).toEqual([
      { role: 'user', text: 'input' },
      { role: 'assistant', text: 'need input' },
      { role: 'user', text: 'blue' },
      { role: 'assistant', text: 'got: blue' },
    ]);
    expect(sends()).toBe(2);
    expect(cancels()).toBe(0);
  }, 30_000);
});
