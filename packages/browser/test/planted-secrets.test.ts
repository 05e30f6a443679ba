import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_DIST, chromiumAvailable, launchChromium, servePage, type TestSite } from './helpers/chromium.js';

// Secrets in the browser (issue 10): a page follows tasks with a planted bearer token, an IndexedDB
// store and tabs coordination, meets an unknown task and wrong credentials; then everything the page
// could see is searched for the token: the raw IndexedDB contents (read past the store, straight from
// the database), localStorage and sessionStorage, what crossed the tabs' BroadcastChannel, events,
// errors (message, stack, fields, cause) and the console.

const available = chromiumAvailable('the browser planted-secret tests');
const MARK = 'PLANTED';
const TOKEN = `${MARK}-browser-bearer-5f1e`;

const PAGE_SCRIPT = `
import { connect, createIndexedDbTaskStore } from '${BROWSER_DIST}';

function describeError(e) {
  const fields = {};
  for (const key of Object.getOwnPropertyNames(e)) fields[key] = e[key];
  const causes = [];
  for (let c = e.cause, i = 0; c && i < 5; c = c.cause, i++) causes.push(String(c) + ' ' + (c.stack || '') + ' ' + JSON.stringify(c));
  return JSON.stringify({ text: String(e), stack: e.stack, fields, causes });
}

function dumpDatabase(name) {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name);
    request.onerror = () => reject(request.error);
    request.onsuccess = () => {
      const db = request.result;
      const names = [...db.objectStoreNames];
      const out = {};
      if (names.length === 0) return resolve(out);
      const tx = db.transaction(names, 'readonly');
      let left = names.length;
      for (const n of names) {
        const all = tx.objectStore(n).getAll();
        const keys = tx.objectStore(n).getAllKeys();
        all.onsuccess = () => {
          keys.onsuccess = () => {
            out[n] = { keys: keys.result, values: all.result };
            if (--left === 0) { db.close(); resolve(out); }
          };
        };
      }
    };
  });
}

window.planted = async (url, token) => {
  const logs = [];
  for (const m of ['log', 'info', 'warn', 'error', 'debug']) {
    const original = console[m];
    console[m] = (...args) => { logs.push(args.map((a) => (a instanceof Error ? describeError(a) : String(a))).join(' ')); original.apply(console, args); };
  }
  const broadcast = [];
  const listener = new BroadcastChannel('tether:' + url);
  listener.onmessage = (event) => broadcast.push(JSON.stringify(event.data));

  const store = createIndexedDbTaskStore({ dbName: 'planted', fallback: 'none' });
  const client = await connect(url, { cardCache: false, auth: { bearer: token }, store, tabs: true, resilience: { initialDelayMs: 5 } });
  const events = [];
  const errors = [];
  const follow = async (handle) => {
    for await (const e of handle.events()) events.push(JSON.stringify(e, (k, v) => (v instanceof Error ? describeError(v) : v)));
    try { events.push(JSON.stringify(await handle.done())); } catch (e) { errors.push(describeError(e)); }
  };
  await follow(await client.start('stream updates=2 chunks=2 delayMs=5', { pushNotification: { url: 'http://127.0.0.1:9/hook', token: token + '-config' } }));
  const canceled = await client.start('stream updates=20 chunks=1 delayMs=20');
  events.push(JSON.stringify(await canceled.cancel({ reason: 'user asked' })));
  await follow(canceled);
  for (const call of [() => client.getTask('no-such-task'), () => client.subscribe('no-such-task')[Symbol.asyncIterator]().next()]) {
    try { await call(); } catch (e) { errors.push(describeError(e)); }
  }
  const wrong = await connect(url, { cardCache: false, auth: { bearer: token + '-wrong' }, store });
  for (const call of [() => wrong.sendMessage('echo x'), () => wrong.start('stream')]) {
    try { await call(); } catch (e) { errors.push(describeError(e)); }
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  listener.close();
  return {
    records: (await store.list()).length,
    database: JSON.stringify(await dumpDatabase('planted')),
    storage: JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } }),
    broadcast,
    events,
    errors,
    logs,
  };
};
`;

describe.skipIf(!available)('planted secrets in real Chromium', () => {
  let browser: Browser;
  let page: Page;
  let site: TestSite;
  let agent: TestAgent;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    site = await servePage(PAGE_SCRIPT);
    agent = await startTestAgent({ auth: { bearer: [TOKEN] }, cancelWaitMs: 20 });
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (message) => pageErrors.push(message.text()));
    page.on('pageerror', (error) => pageErrors.push(`${error.message} ${error.stack ?? ''}`));
    await page.goto(`${site.origin}/`);
    await page.waitForFunction(() => 'planted' in window);
  });

  afterAll(async () => {
    await browser?.close();
    await agent?.close();
    await site?.close();
  });

  it('no bearer token in IndexedDB, web storage, the BroadcastChannel, events, errors or the console', async () => {
    type Planted = (url: string, token: string) => Promise<Record<string, unknown>>;
    const seen = await page.evaluate(([url, token]) => (window as unknown as { planted: Planted }).planted(url, token), [agent.url, TOKEN] as const);
    // The flows ran, authenticated, and wrote records.
    expect(seen['records']).toBe(2);
    expect(agent.requests.filter((r) => r.headers.authorization === `Bearer ${TOKEN}`).length).toBeGreaterThan(5);
    expect((seen['errors'] as string[]).length).toBe(4);
    expect(seen['database']).toContain('"taskId"');
    expect((seen['broadcast'] as string[]).length).toBeGreaterThan(0);
    expect((seen['events'] as string[]).length).toBeGreaterThan(5);
    const everything = { ...seen, console: pageErrors };
    const leaks = Object.entries(everything).filter(([, value]) => JSON.stringify(value).includes(MARK));
    expect(leaks.map(([where, value]) => `${where}: ${JSON.stringify(value).slice(0, 300)}`)).toEqual([]);
  });
});
