import { STRICT_CORS, startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_DIST, chromiumAvailable, launchChromium, servePage, type TestSite } from './helpers/chromium.js';

const available = chromiumAvailable('real-browser CORS tests');

// The page (one origin) imports the BUILT browser package and calls agents on other origins.
const PAGE_SCRIPT = `
import { connect, TetherError } from '${BROWSER_DIST}';
const textOf = (parts) => parts.map((p) => p.text ?? '').join('');
function rebuild(events, into) {
  for (const e of events) if (e.type === 'artifact') into[e.artifactId] = (e.append ? into[e.artifactId] ?? '' : '') + textOf(e.parts);
  return into;
}
window.tether = {
  // Start a chunked task, stop watching after a few chunks, resume it, follow it to the end.
  async streamAndResume(url, prefs) {
    const client = await connect(url, { ...prefs, cardCache: false });
    const first = await client.start('slow steps=12 delayMs=30');
    const before = [];
    for await (const e of first.events()) {
      before.push(e);
      if (before.filter((x) => x.type === 'artifact').length === 3) break;
    }
    first.detach();
    const second = await client.resume(first.taskId);
    const after = [];
    for await (const e of second.events()) after.push(e);
    const final = await second.done();
    const seen = rebuild(after, rebuild(before, {}));
    return {
      iface: client.interface,
      seen: seen.result,
      finalText: textOf(final.artifacts[0].parts),
      state: final.status.state,
      live: [...before, ...after].some((e) => e.type === 'connection' && e.state === 'live'),
    };
  },
  // A send the browser refuses at its preflight: how long it took and what it said.
  async sendError(url) {
    const client = await connect(url, { cardCache: false, preferredBindings: ['JSONRPC'], protocolVersions: ['1.0'] });
    const started = performance.now();
    try { await client.start('hello'); return 'no error'; }
    catch (e) { return { ms: performance.now() - started, isTether: e instanceof TetherError, code: e.code, message: e.message, maybeDelivered: e.maybeDelivered }; }
  },
  async connectError(url) {
    try { await connect(url, { cardCache: false, maxRetries: 0 }); return 'no error'; }
    catch (e) { return { isTether: e instanceof TetherError, code: e.code, message: e.message }; }
  },
};
`;

type Tether = {
  sendError: (url: string) => Promise<unknown>;
  streamAndResume: (url: string, prefs: object) => Promise<unknown>;
  connectError: (url: string) => Promise<unknown>;
};

describe.skipIf(!available)('CORS in real Chromium: a strict agent on another origin', () => {
  let browser: Browser;
  let page: Page;
  let site: TestSite;
  let siteOrigin: string;
  let strict: TestAgent;

  beforeAll(async () => {
    site = await servePage(PAGE_SCRIPT);
    siteOrigin = site.origin;
    // Numbered SSE events: resuming sends Last-Event-ID, the header allow-lists most often forget.
    strict = await startTestAgent({ cors: { ...STRICT_CORS, origins: [siteOrigin] }, behaviour: { sseIds: true } });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${siteOrigin}/`);
    await page.waitForFunction(() => 'tether' in window);
  });

  afterAll(async () => {
    await browser?.close();
    await strict?.close();
    await site?.close();
  });

  it.each([
    ['JSONRPC', '1.0'],
    ['HTTP+JSON', '1.0'],
    ['JSONRPC', '0.3'],
    ['HTTP+JSON', '0.3'],
  ])('streams and resumes a task over %s v%s with only the strict allow-list', async (binding, version) => {
    strict.requests.length = 0;
    const result = (await page.evaluate(
      ([url, b, v]) => (window as unknown as { tether: Tether }).tether.streamAndResume(url, { preferredBindings: [b], protocolVersions: [v] }),
      [strict.url, binding, version] as const,
    )) as { iface: { binding: string; protocolVersion: string }; seen: string; finalText: string; state: string; live: boolean };
    const expected = Array.from({ length: 12 }, (_, i) => `chunk-${i + 1};`).join('');
    expect(result.iface).toMatchObject({ binding, protocolVersion: version });
    expect(result.state).toBe('completed');
    expect(result.finalText).toBe(expected);
    expect(result.seen).toBe(expected);
    expect(result.live).toBe(true);
    // The resume really crossed CORS with Last-Event-ID: a preflight asked for it and the subscribe sent it.
    const preflights = strict.requests.filter((r) => r.method === 'OPTIONS').map((r) => String(r.headers['access-control-request-headers']));
    expect(preflights.some((h) => h.split(',').includes('last-event-id'))).toBe(true);
    expect(strict.requests.some((r) => r.method !== 'OPTIONS' && typeof r.headers['last-event-id'] === 'string')).toBe(true);
  });

  it('an agent that does not allow A2A-Version: connect fails with a CORS_REFUSED TetherError that names the header', async () => {
    await using forgetful = await startTestAgent({
      cors: { ...STRICT_CORS, allowHeaders: STRICT_CORS.allowHeaders.filter((h) => h !== 'A2A-Version') },
    });
    const result = (await page.evaluate(
      (url) => (window as unknown as { tether: Tether }).tether.connectError(url),
      forgetful.url,
    )) as { isTether: boolean; code: string; message: string };
    expect(result).toMatchObject({ isTether: true, code: 'CORS_REFUSED' });
    expect(result.message).toContain(`GetAgentCard GET ${forgetful.cardUrl}`);
    expect(result.message).toContain(`CORS refused: the agent answers, but not to this page: ${forgetful.origin} must allow origin ${siteOrigin}, method GET and request headers a2a-version — or call it through a relay`);
    // The agent saw only the refused preflight (the browser never sent the request itself) and the probe's opaque HEAD.
    expect(forgetful.requests.map((r) => r.method)).toEqual(['OPTIONS', 'HEAD']);
  });

  it('a send the agent refuses at the preflight fails within 2 s as CORS_REFUSED, naming CORS and the relay, known not delivered', async () => {
    // The card (GET) is allowed; the send (POST) is not.
    await using getOnly = await startTestAgent({ cors: { ...STRICT_CORS, allowMethods: ['GET'] } });
    const result = (await page.evaluate((url) => (window as unknown as { tether: Tether }).tether.sendError(url), getOnly.url)) as {
      ms: number;
      isTether: boolean;
      code: string;
      message: string;
      maybeDelivered: boolean;
    };
    expect(result).toMatchObject({ isTether: true, code: 'CORS_REFUSED', maybeDelivered: false });
    expect(result.message).toContain('CORS refused');
    expect(result.message).toContain(`must allow origin ${siteOrigin}, method POST`);
    expect(result.message).toContain('relay');
    expect(result.message).toContain('nothing was delivered');
    expect(result.ms).toBeLessThan(2000);
    // The agent never got the message: only preflights (refused) and the probe's HEAD besides the card.
    expect(getOnly.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('an agent that is not there: NETWORK, not CORS_REFUSED (the probe gets no answer)', async () => {
    const gone = await startTestAgent({ cors: STRICT_CORS });
    const url = gone.url;
    await gone.close();
    const result = (await page.evaluate((u) => (window as unknown as { tether: Tether }).tether.connectError(u), url)) as { code: string; message: string };
    expect(result.code).toBe('NETWORK');
    expect(result.message).toContain('or the agent is unreachable');
  });

  it('an agent that does not allow the page origin fails the same way, before any request is sent', async () => {
    await using elsewhere = await startTestAgent({ cors: { ...STRICT_CORS, origins: ['http://127.0.0.1:1'] } });
    const result = (await page.evaluate(
      (url) => (window as unknown as { tether: Tether }).tether.connectError(url),
      elsewhere.url,
    )) as { isTether: boolean; code: string; message: string };
    expect(result).toMatchObject({ isTether: true, code: 'CORS_REFUSED' });
    expect(result.message).toMatch(/CORS refused: .* must allow origin http:\/\/127\.0\.0\.1:\d+/);
  });
});
