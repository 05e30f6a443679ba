import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFaultProxy, startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, TaskNotFoundError, TetherError, type A2AClient, type Binding, type FetchLike, type ProtocolVersion } from '@a2a-tether/core';
import { createRelay, toNodeHandler, type RelayOptions } from '../src/relay-entry.js';

// The relay as a web app mounts it: a node:http server on port 0 (toNodeHandler), the agent behind it
// with a bearer the browser never holds, and "browsers" that are core clients whose fetch carries a
// session cookie and records every byte they receive.

const BEARER = 'relay-test-bearer-7f3a9c';

interface Browser {
  readonly client: A2AClient;
  /** Every response the "browser" received so far: status, headers and body text. */
  readonly seen: string[];
  /** Waits until every body received so far is read to its end (at most 5 s: a stream may still be open). */
  settled(): Promise<void>;
}

interface Site {
  readonly origin: string;
  readonly url: (agent: string) => string;
  close(): Promise<void>;
}

async function serveRelay(options: RelayOptions): Promise<Site> {
  const relay = createRelay(options);
  const server: Server = createServer(toNodeHandler(relay));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (agent) => `${origin}/api/a2a/${agent}`,
    close: () => new Promise((resolve) => server.closeAllConnections() ?? server.close(() => resolve())),
  };
}

/** A fetch that carries `user`'s session cookie and records what comes back (streams read to their end). */
function browserFetch(user: string, seen: string[], reading: Promise<unknown>[]): FetchLike {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('cookie', `session=${user}`);
    const response = await fetch(input, { ...init, headers });
    const copy = response.clone();
    const head = `${response.status} ${[...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}`;
    reading.push(
      copy.text().then(
        (text) => seen.push(`${head}\n\n${text}`),
        () => seen.push(head),
      ),
    );
    return response;
  };
}

async function browser(site: Site, agent: string, user: string, binding: Binding, version: ProtocolVersion): Promise<Browser> {
  const seen: string[] = [];
  const reading: Promise<unknown>[] = [];
  const client = await connect(site.url(agent), {
    fetch: browserFetch(user, seen, reading),
    cardCache: false,
    preferredBindings: [binding],
    protocolVersions: [version],
    maxRetries: 0,
  });
  const settled = async (): Promise<void> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.allSettled(reading), new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
    clearTimeout(timer);
  };
  return { client, seen, settled };
}

const owner = (request: Request): string | undefined => /(?:^|; )session=(\w+)/.exec(request.headers.get('cookie') ?? '')?.[1];

const COMBOS: [Binding, ProtocolVersion][] = [
  ['JSONRPC', '1.0'],
  ['HTTP+JSON', '1.0'],
  ['JSONRPC', '0.3'],
  ['HTTP+JSON', '0.3'],
];

describe('the relay route: one agent under the app origin, whose task is whose', () => {
  let agent: TestAgent;
  let site: Site;

  beforeAll(async () => {
    agent = await startTestAgent({ auth: { bearer: [BEARER] }, cors: false });
    site = await serveRelay({ basePath: '/api/a2a', agents: { helper: { url: agent.url, headers: { authorization: `Bearer ${BEARER}` } } }, owner });
  });
  afterAll(async () => {
    await site?.close();
    await agent?.close();
  });

  it("serves the card with the relay's own URLs, no security schemes and no signatures", async () => {
    const response = await fetch(`${site.url('helper')}/.well-known/agent-card.json`, { headers: { cookie: 'session=alice', 'a2a-version': '1.0' } });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(agent.origin);
    expect(text).not.toContain(BEARER);
    const card = JSON.parse(text) as { supportedInterfaces: { url: string; protocolBinding: string }[]; securitySchemes?: object };
    expect(card.supportedInterfaces.length).toBeGreaterThanOrEqual(2);
    for (const iface of card.supportedInterfaces) expect(iface.url.startsWith(`${site.url('helper')}/`)).toBe(true);
    expect(card.securitySchemes ?? {}).toEqual({});
  });

  it.each(COMBOS)('over %s v%s: a second user gets not-found for the first user task on every operation', async (binding, version) => {
    const alice = await browser(site, 'helper', 'alice', binding, version);
    const bob = await browser(site, 'helper', 'bob', binding, version);
    expect(alice.client.interface.url.startsWith(site.origin)).toBe(true);
    const task = await alice.client.start('input');
    await expect.poll(() => task.view.state).toBe('input-required');
    const { taskId, contextId } = task.view;
    expect(contextId).not.toBe('');
    const notFound = async (what: string, call: () => Promise<unknown>): Promise<void> => {
      const error = await call().then(
        () => new Error(`${what}: no error`),
        (e: unknown) => e,
      );
      expect(error, what).toBeInstanceOf(TaskNotFoundError);
    };
    await notFound('get', () => bob.client.getTask(taskId));
    await notFound('cancel', () => bob.client.cancelTask(taskId));
    await notFound('subscribe', async () => {
      for await (const _ of bob.client.subscribe(taskId)) break;
    });
    await notFound('reply (taskId)', () => bob.client.sendMessage({ text: 'mine now', taskId, contextId }));
    await notFound('reply (contextId)', () => bob.client.sendMessage({ text: 'mine now', contextId }));
    // v0.3's HTTP+JSON (proto) message has no referenceTaskIds.
    if (binding === 'JSONRPC' || version === '1.0') await notFound('a new task referring to it', () => bob.client.sendMessage({ text: 'summarise it', referenceTaskIds: [taskId] }));
    if (version === '1.0') {
      const page = await bob.client.listTasks({});
      expect(page.tasks.map((t) => t.id)).not.toContain(taskId);
      expect((await bob.client.listTasks({ contextId })).tasks).toEqual([]);
      expect((await alice.client.listTasks({ contextId })).tasks.map((t) => t.id)).toEqual([taskId]);
    }
    // The owner does all of it.
    expect((await alice.client.getTask(taskId)).id).toBe(taskId);
    await task.reply('yes');
    expect((await task.done()).status.state).toBe('completed');
    // Nothing bob sent reached the task: the agent saw alice's two messages only.
    expect(agent.tasks.get(taskId)?.history.filter((m) => m.role === 'user').length).toBe(2);
    await Promise.all([alice.settled(), bob.settled()]);
    expect(alice.seen.length).toBeGreaterThan(3);
    for (const text of [...alice.seen, ...bob.seen]) expect(text).not.toContain(BEARER);
  });

  it('refuses a request without a session (401) and push-config calls (not allowed by default)', async () => {
    const noSession = await fetch(`${site.url('helper')}/.well-known/agent-card.json`);
    expect(noSession.status).toBe(401);
    const alice = await browser(site, 'helper', 'alice', 'JSONRPC', '1.0');
    const task = await alice.client.start('input');
    const error = await alice.client.createPushConfig({ taskId: task.view.taskId, url: 'https://hooks.example/x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(String((error as Error).message)).toMatch(/push/i);
    await task.cancel();
  });
});

describe('the relay route: credentials never reach the browser', () => {
  let agent: TestAgent;
  let quoting: Server;
  let quotingUrl: string;
  let site: Site;

  beforeAll(async () => {
    agent = await startTestAgent({ auth: { bearer: [BEARER] }, cors: false });
    // An agent that quotes the Authorization header back in its errors (unary and inside a stream).
    quoting = createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      if (req.method === 'GET') {
        const upstream = `http://127.0.0.1:${(quoting.address() as AddressInfo).port}`;
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: `quoting agent (${auth})`,
            description: `you sent ${auth}`,
            version: '1',
            supportedInterfaces: [{ url: `${upstream}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
            capabilities: { streaming: true },
            defaultInputModes: ['text/plain'],
            defaultOutputModes: ['text/plain'],
            skills: [],
          }),
        );
        return;
      }
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        const error = { jsonrpc: '2.0', id, error: { code: -32603, message: `bad credentials: ${auth} (token ${auth.slice(7)})` } };
        if (method === 'SendStreamingMessage') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(`event: error\ndata: ${JSON.stringify(error)}\n\n`);
        } else {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(error));
        }
      });
    });
    await new Promise<void>((resolve) => quoting.listen(0, '127.0.0.1', resolve));
    quotingUrl = `http://127.0.0.1:${(quoting.address() as AddressInfo).port}`;
    site = await serveRelay({
      basePath: '/api/a2a',
      agents: {
        helper: { url: agent.url, headers: { authorization: `Bearer ${BEARER}` } },
        quoting: { url: quotingUrl, headers: { authorization: `Bearer ${BEARER}` } },
      },
      owner,
    });
  });
  afterAll(async () => {
    await site?.close();
    await new Promise((resolve) => quoting?.close(resolve));
    await agent?.close();
  });

  it('an agent that quotes the bearer in its card and its errors: the browser receives none of it', async () => {
    const b = await browser(site, 'quoting', 'alice', 'JSONRPC', '1.0');
    expect(b.client.card.name).toContain('[redacted]');
    const unary = await b.client.sendMessage('hi').catch((e: unknown) => e);
    expect(unary).toBeInstanceOf(TetherError);
    expect(String(unary)).not.toContain(BEARER);
    expect(String(unary)).toContain('[redacted]');
    const streamed = await (async () => {
      for await (const _ of b.client.streamMessage('hi')) break;
    })().catch((e: unknown) => e);
    expect(streamed).toBeInstanceOf(TetherError);
    expect(String(streamed)).not.toContain(BEARER);
    await b.settled();
    expect(b.seen.length).toBeGreaterThanOrEqual(3);
    for (const text of b.seen) expect(text).not.toContain(BEARER);
  });

  it('a stream cut between the relay and the agent resumes: the browser follows the task to its end', async () => {
    await using proxy = await startFaultProxy({ target: agent.origin });
    await using cutSite = await (async () => {
      const s = await serveRelay({ basePath: '/api/a2a', agents: { helper: { url: proxy.url, headers: { authorization: `Bearer ${BEARER}` } } }, owner });
      return { ...s, [Symbol.asyncDispose]: () => s.close() };
    })();
    proxy.addFault({ kind: 'cut', match: { sse: true, rpcMethod: 'SendStreamingMessage' }, afterEvents: 3, mode: 'reset' });
    const b = await browser(cutSite, 'helper', 'alice', 'JSONRPC', '1.0');
    const task = await b.client.start('slow steps=8 delayMs=20');
    const final = await task.done();
    expect(final.status.state).toBe('completed');
    expect(final.artifacts[0]?.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')).toBe(
      Array.from({ length: 8 }, (_, i) => `chunk-${i + 1};`).join(''),
    );
    // The cut happened, and the browser came back through the relay with a subscribe (or a poll).
    expect(proxy.stats.cuts.reset).toBe(1);
    expect(proxy.log.some((e) => e.rpcMethod === 'SubscribeToTask')).toBe(true);
  });
});

describe("the relay route: the card's interfaces", () => {
  it('leaves out gRPC and interfaces on other origins (no credentials go there); rewrites a v0.3 card (url, additionalInterfaces)', async () => {
    await using v1 = await startTestAgent({
      cors: false,
      cardOverride: (card) => ({
        ...card,
        supportedInterfaces: [
          { url: 'https://elsewhere.example/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: '127.0.0.1:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' },
          ...(card['supportedInterfaces'] as unknown[]),
        ],
        signatures: [{ protected: 'x', signature: 'y' }],
      }),
    });
    await using v03 = await startTestAgent({ cors: false, versions: ['0.3'] });
    const site = await serveRelay({ basePath: '/api/a2a', agents: { one: v1.url, old: v03.url }, owner });
    try {
      const card = async (agent: string, version?: string): Promise<Record<string, unknown>> =>
        (await (await fetch(`${site.url(agent)}/.well-known/agent-card.json`, { headers: { cookie: 'session=alice', ...(version ? { 'a2a-version': version } : {}) } })).json()) as Record<string, unknown>;
      const one = await card('one', '1.0');
      const urls = (one['supportedInterfaces'] as { url: string; protocolBinding: string }[]).map((i) => i.url);
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) expect(url.startsWith(`${site.url('one')}/`)).toBe(true);
      expect((one['supportedInterfaces'] as { protocolBinding: string }[]).some((i) => i.protocolBinding === 'GRPC')).toBe(false);
      expect(one['signatures']).toBeUndefined();
      // elsewhere.example's JSON-RPC 1.0 is gone, not rewritten: the relay's JSON-RPC 1.0 is the agent's.
      expect((one['supportedInterfaces'] as { protocolBinding: string; protocolVersion: string }[]).filter((i) => i.protocolBinding === 'JSONRPC' && i.protocolVersion === '1.0')).toHaveLength(1);
      const first = await browser(site, 'one', 'alice', 'JSONRPC', '1.0');
      expect((await (await first.client.start('stream updates=1 chunks=2 delayMs=5')).done()).status.state).toBe('completed');
      const old = await card('old');
      expect(old['url']).toBe(`${site.url('old')}/jsonrpc-0.3`);
      expect((old['additionalInterfaces'] as { url: string }[]).map((i) => i.url).sort()).toEqual([`${site.url('old')}/jsonrpc-0.3`, `${site.url('old')}/rest-0.3`]);
      // And the client speaks v0.3 through it.
      const b = await browser(site, 'old', 'alice', 'HTTP+JSON', '0.3');
      expect((await (await b.client.start('stream updates=1 chunks=2 delayMs=5')).done()).status.state).toBe('completed');
    } finally {
      await site.close();
    }
  });
});

describe('the relay route: push configs when allowed', () => {
  it("the owner may set and read its task's push config, its token and credentials cut from the answers; another user gets not-found", async () => {
    await using pushy = await startTestAgent({ auth: { bearer: [BEARER] }, cors: false });
    const site = await serveRelay({ basePath: '/api/a2a', agents: { helper: { url: pushy.url, headers: { authorization: `Bearer ${BEARER}` }, allowPush: true } }, owner });
    try {
      const alice = await browser(site, 'helper', 'alice', 'JSONRPC', '1.0');
      const bob = await browser(site, 'helper', 'bob', 'JSONRPC', '1.0');
      expect(alice.client.card.capabilities.pushNotifications).toBe(true);
      const task = await alice.client.start('input');
      await expect.poll(() => task.view.state).toBe('input-required');
      const taskId = task.view.taskId;
      const config = { taskId, id: 'c1', url: 'https://hooks.example/a2a', token: 'push-token-5e8a1d', authentication: { schemes: ['Bearer'], credentials: 'push-credentials-77c2' } };
      const created = await alice.client.createPushConfig(config);
      expect(created).toMatchObject({ taskId, url: config.url });
      expect(created.token).toBeUndefined();
      expect(created.authentication?.credentials).toBeUndefined();
      const read = await alice.client.getPushConfig(taskId, 'c1');
      expect(read.token).toBeUndefined();
      await expect(bob.client.getPushConfig(taskId, 'c1')).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(bob.client.createPushConfig({ ...config, url: 'https://bob.example/steal' })).rejects.toBeInstanceOf(TaskNotFoundError);
      await alice.settled();
      expect(alice.seen.length).toBeGreaterThan(3);
      for (const text of alice.seen) {
        expect(text).not.toContain('push-token-5e8a1d');
        expect(text).not.toContain('push-credentials-77c2');
      }
      await task.cancel();
    } finally {
      await site.close();
    }
  });
});

describe('the relay route: Last-Event-ID', () => {
  it("an agent that numbers its events: the browser's resume after a cut carries Last-Event-ID through the relay", async () => {
    await using numbered = await startTestAgent({ auth: { bearer: [BEARER] }, cors: false, behaviour: { sseIds: true } });
    await using proxy = await startFaultProxy({ target: numbered.origin });
    const site = await serveRelay({ basePath: '/api/a2a', agents: { helper: { url: proxy.url, headers: { authorization: `Bearer ${BEARER}` } } }, owner });
    try {
      proxy.addFault({ kind: 'cut', match: { sse: true, rpcMethod: 'SendStreamingMessage' }, afterEvents: 3, mode: 'reset' });
      const b = await browser(site, 'helper', 'alice', 'JSONRPC', '1.0');
      const task = await b.client.start('slow steps=8 delayMs=20');
      expect((await task.done()).status.state).toBe('completed');
      expect(proxy.stats.cuts.reset).toBe(1);
      const resumed = numbered.requests.filter((r) => typeof r.headers['last-event-id'] === 'string');
      expect(resumed.length).toBeGreaterThan(0);
      expect(String(resumed[0]?.headers['last-event-id'])).toMatch(new RegExp(`^${task.view.taskId}:\\d+$`));
    } finally {
      await site.close();
    }
  });
});

describe('the relay route: bounds per owner, and the browser going away', () => {
  let upstream: Server;
  let closed: number;
  let site: Site;

  beforeAll(async () => {
    closed = 0;
    // An agent whose streams tick until the client goes away (and counts those that went away).
    upstream = createServer((req, res) => {
      const port = (upstream.address() as AddressInfo).port;
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({ name: 'ticker', description: '', version: '1', supportedInterfaces: [{ url: `http://127.0.0.1:${port}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }], capabilities: { streaming: true }, defaultInputModes: [], defaultOutputModes: [], skills: [] }),
        );
        return;
      }
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const status = { jsonrpc: '2.0', id: 1, result: { statusUpdate: { taskId: `t-${port}-${closed}`, contextId: `c-${port}-${closed}`, status: { state: 'TASK_STATE_WORKING' } } } };
      const timer = setInterval(() => res.write(`data: ${JSON.stringify(status)}\n\n`), 10);
      res.on('close', () => {
        clearInterval(timer);
        closed++;
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    site = await serveRelay({
      basePath: '/api/a2a',
      agents: { ticker: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
      owner,
      limits: { maxBodyBytes: 2048, requestsPerMinute: 30, streamsPerOwner: 2 },
    });
  });
  afterAll(async () => {
    await site?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  const rpc = (user: string, method: string, params: unknown = {}, signal?: AbortSignal): Promise<Response> =>
    fetch(`${site.url('ticker')}/jsonrpc-1.0`, {
      method: 'POST',
      headers: { cookie: `session=${user}`, 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      ...(signal ? { signal } : {}),
    });

  it('a body over maxBodyBytes is refused (413); a call not listed gets MethodNotFound', async () => {
    const big = await rpc('carol', 'SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x'.repeat(4096) }] } });
    expect(big.status).toBe(413);
    const denied = (await (await rpc('carol', 'GetExtendedAgentCard')).json()) as { error: { code: number } };
    expect(denied.error.code).toBe(-32601);
  });

  it('the browser going away aborts the agent stream; open streams per owner are bounded (429)', async () => {
    const first = new AbortController();
    const a = await rpc('dave', 'SendStreamingMessage', { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] } }, first.signal);
    const b = await rpc('dave', 'SendStreamingMessage', { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await rpc('dave', 'SendStreamingMessage', { message: { messageId: 'm3', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    // Another owner is not bounded by dave's streams.
    const other = await rpc('erin', 'SendStreamingMessage', { message: { messageId: 'm4', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
    expect(other.status).toBe(200);
    await other.body?.cancel();
    const closedBefore = closed;
    await a.body?.getReader().read();
    first.abort();
    await expect.poll(() => closed, { timeout: 5000 }).toBeGreaterThan(closedBefore);
    // Its slot is free again.
    await expect
      .poll(async () => {
        const again = await rpc('dave', 'SendStreamingMessage', { message: { messageId: 'm5', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
        await again.body?.cancel();
        return again.status;
      })
      .toBe(200);
    await b.body?.cancel();
  });

  it('more than requestsPerMinute requests of one owner: 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await fetch(`${site.url('ticker')}/.well-known/agent-card.json`, { headers: { cookie: 'session=frank' } })).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    const last = await fetch(`${site.url('ticker')}/.well-known/agent-card.json`, { headers: { cookie: 'session=frank' } });
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
