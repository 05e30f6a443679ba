import { fileURLToPath } from 'node:url';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type * as RelayModule from '../../node/dist/relay.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_DIST, chromiumAvailable, launchChromium, servePage, type TestSite } from './helpers/chromium.js';

// The relay route as a web app serves it: the page and /api/a2a/* on one origin, the BUILT relay of
// @a2a-tether/node in front of an agent that sends no CORS headers and wants a bearer the page never has.
// Two users (two browser contexts with their own session cookie).

const available = chromiumAvailable('real-browser relay tests');
const RELAY_DIST = fileURLToPath(new URL('../../node/dist/relay.js', import.meta.url));
const BEARER = 'browser-relay-bearer-93d1f0';

const PAGE_SCRIPT = `
import { connect } from '${BROWSER_DIST}';
const textOf = (parts) => parts.map((p) => p.text ?? '').join('');
window.tether = {
  async run() {
    // No option: the card's URLs are the relay's.
    const client = await connect(new URL('/api/a2a/helper', location.href), { cardCache: false });
    const handle = await client.start('slow steps=6 delayMs=20');
    const task = await handle.done();
    return { url: client.interface.url, taskId: task.id, state: task.status.state, text: textOf(task.artifacts[0].parts) };
  },
  async peek(taskId) {
    const client = await connect(new URL('/api/a2a/helper', location.href), { cardCache: false, maxRetries: 0 });
    try { await client.getTask(taskId); return 'found'; } catch (e) { return e.name; }
  },
};
`;

type Tether = {
  run: () => Promise<{ url: string; taskId: string; state: string; text: string }>;
  peek: (taskId: string) => Promise<string>;
};

describe.skipIf(!available)('the relay route in real Chromium: an agent without CORS, under the page origin', () => {
  let agent: TestAgent;
  let site: TestSite;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  async function pageOf(user: string): Promise<Page> {
    const context = await browser.newContext();
    contexts.push(context);
    await context.addCookies([{ name: 'session', value: user, url: site.origin }]);
    const page = await context.newPage();
    await page.goto(`${site.origin}/`);
    await page.waitForFunction(() => 'tether' in window);
    return page;
  }

  beforeAll(async () => {
    agent = await startTestAgent({ cors: false, auth: { bearer: [BEARER] } });
    const { createRelay, toNodeHandler } = (await import(RELAY_DIST)) as typeof RelayModule;
    const relay = createRelay({
      basePath: '/api/a2a',
      agents: { helper: { url: agent.url, headers: { authorization: `Bearer ${BEARER}` } } },
      owner: (request) => /(?:^|; )session=(\w+)/.exec(request.headers.get('cookie') ?? '')?.[1],
    });
    site = await servePage(PAGE_SCRIPT, { api: toNodeHandler(relay) });
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await site?.close();
    await agent?.close();
  });

  it('connect() with no option streams a task through the relay; another user finds nothing of it', async () => {
    const alice = await pageOf('alice');
    const bodies: string[] = [];
    alice.on('response', (response) => {
      // Unary answers (a stream's body is not kept by the browser for this).
      if (!/event-stream/.test(response.headers()['content-type'] ?? '')) void response.text().then((t) => bodies.push(t), () => undefined);
    });
    const result = await alice.evaluate(() => (window as unknown as { tether: Tether }).tether.run());
    expect(result.url.startsWith(`${site.origin}/api/a2a/helper/`)).toBe(true);
    expect(result.state).toBe('completed');
    expect(result.text).toBe(Array.from({ length: 6 }, (_, i) => `chunk-${i + 1};`).join(''));
    // The agent got the bearer from the relay, and no browser preflight (same origin: there is none).
    expect(agent.requests.some((r) => r.method === 'OPTIONS')).toBe(false);
    expect(agent.requests.filter((r) => r.method === 'POST').every((r) => r.headers['authorization'] === `Bearer ${BEARER}`)).toBe(true);
    const bob = await pageOf('bob');
    expect(await bob.evaluate((id) => (window as unknown as { tether: Tether }).tether.peek(id), result.taskId)).toBe('TaskNotFoundError');
    expect(await alice.evaluate((id) => (window as unknown as { tether: Tether }).tether.peek(id), result.taskId)).toBe('found');
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) expect(body).not.toContain(BEARER);
  });
});
