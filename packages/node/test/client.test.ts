import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestAgent, type TestAgent, type TestAgentOptions } from '@a2a-tether/testkit';
import { Agent, getGlobalDispatcher } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connect,
  createNodeFetch,
  TaskNotFoundError,
  TetherError,
  type A2AClient,
  type Binding,
  type ProtocolVersion,
  type StreamEvent,
  type Task,
} from '../src/index.js';

const agents: TestAgent[] = [];
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function agent(options: TestAgentOptions = {}): Promise<TestAgent> {
  const a = await startTestAgent(options);
  agents.push(a);
  return a;
}

function text(parts: { kind: string; text?: string }[]): string {
  return parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const COMBOS: [string, Binding, ProtocolVersion][] = [
  ['v1 JSON-RPC', 'JSONRPC', '1.0'],
  ['v1 HTTP+JSON', 'HTTP+JSON', '1.0'],
  ['v0.3 JSON-RPC', 'JSONRPC', '0.3'],
  ['v0.3 HTTP+JSON', 'HTTP+JSON', '0.3'],
];

describe.each(COMBOS)('against the testkit agent over %s (undici fetch)', (_name, binding, version) => {
  async function client(options: TestAgentOptions = {}): Promise<{ c: A2AClient; a: TestAgent }> {
    const a = await agent(options);
    const c = await connect(a.url, { preferredBindings: [binding], protocolVersions: [version], cardCache: false });
    expect(c.interface).toMatchObject({ binding, protocolVersion: version });
    return { c, a };
  }

  it('streams a chunked task to completion and the chunks equal the final artifact', async () => {
    const { c } = await client();
    const events = await collect(c.streamMessage('stream updates=3 chunks=5 delayMs=2'));
    expect(events[0]?.kind).toBe('task');
    const states = events.flatMap((e) => (e.kind === 'status-update' ? [e.status.state] : []));
    expect(states.at(-1)).toBe('completed');
    expect(states.filter((s) => s === 'working').length).toBeGreaterThanOrEqual(3);
    const chunks = events.flatMap((e) => (e.kind === 'artifact-update' ? [e] : []));
    expect(chunks).toHaveLength(5);
    expect(chunks.map((e) => e.append)).toEqual([false, true, true, true, true]);
    expect(chunks.map((e) => e.lastChunk)).toEqual([false, false, false, false, true]);
    const streamed = chunks.map((e) => text(e.artifact.parts)).join('');
    const taskId = (events[0] as Task).id;
    const final = await c.getTask(taskId);
    expect(final.status.state).toBe('completed');
    expect(text(final.artifacts[0]?.parts ?? [])).toBe(streamed);
    expect(streamed).toBe('chunk-1;chunk-2;chunk-3;chunk-4;chunk-5;');
  });

  it('pauses at input-required and continues the same task on a follow-up', async () => {
    const { c } = await client();
    const first = await collect(c.streamMessage('input'));
    const task = first[0] as Task;
    const last = first.at(-1);
    expect(last?.kind === 'status-update' ? last.status.state : (last as Task).status.state).toBe('input-required');
    const done = await c.sendMessage({ text: 'blue', taskId: task.id, contextId: task.contextId });
    expect(done.kind).toBe('task');
    expect((done as Task).status.state).toBe('completed');
    expect((done as Task).id).toBe(task.id);
    expect(text((done as Task).artifacts.at(-1)?.parts ?? [])).toBe('got: blue');
  });

  it('gets a direct message reply for echo, and a typed error for an unknown task', async () => {
    const { c } = await client();
    const reply = await c.sendMessage('echo hello');
    expect(reply).toMatchObject({ kind: 'message', role: 'agent' });
    expect(text(reply.kind === 'message' ? reply.parts : [])).toBe('echo: echo hello');
    await expect(c.getTask('nope')).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('sends a bearer token from a function, refreshes it once after a 401', async () => {
    const { a } = await client({ auth: { bearer: ['first'] } });
    let calls = 0;
    let refreshes = 0;
    const c = await connect(a.url, {
      preferredBindings: [binding],
      protocolVersions: [version],
      cardCache: false,
      auth: {
        bearer: ({ forceRefresh }) => {
          calls++;
          if (forceRefresh) refreshes++;
          return forceRefresh ? 'second' : 'first';
        },
      },
    });
    expect((await c.sendMessage('echo a')).kind).toBe('message');
    a.rotateBearer('second');
    expect((await c.sendMessage('echo b')).kind).toBe('message');
    expect(refreshes).toBe(1);
    expect(calls).toBeGreaterThanOrEqual(3);
    a.rotateBearer('third');
    const error = await c.sendMessage('echo c').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).code).toBe('UNAUTHENTICATED');
    expect((error as TetherError).message).toMatch(/credentials were rejected \(WWW-Authenticate: Bearer/);
  });
});

describe.each(COMBOS.filter(([, , v]) => v === '1.0'))('v1 tenant over %s', (_name, binding) => {
  it('echoes the tenant exactly', async () => {
    const a = await agent({ tenant: 'acme/west' });
    const c = await connect(a.url, { preferredBindings: [binding], protocolVersions: ['1.0'], cardCache: false });
    expect(c.interface.tenant).toBe('acme/west');
    const task = (await c.sendMessage('stream updates=1 chunks=1 delayMs=1')) as Task;
    expect(task.status.state).toBe('completed');
    const seen = a.requests.filter((r) => r.method === 'POST' && !r.path.includes('.well-known'));
    if (binding === 'HTTP+JSON') expect(seen[0]?.path).toMatch(/^\/a2a\/rest\/acme%2Fwest\/message:send$/);
    else expect((seen[0]?.body as { params: { tenant: string } }).params.tenant).toBe('acme/west');
  });

});

describe('auth schemes chosen from the card', () => {
  it('puts an API key in the header the card names, even when a query scheme exists', async () => {
    const a = await agent({ auth: { apiKey: { header: 'X-Key', query: 'key', values: ['k1'] } } });
    const c = await connect(a.url, { cardCache: false, auth: { apiKey: 'k1' } });
    expect((await c.sendMessage('echo x')).kind).toBe('message');
    const call = a.requests.find((r) => r.method === 'POST');
    expect(call?.headers['x-key']).toBe('k1');
    expect(call?.search ?? '').not.toContain('key=');
  });

  it('uses HTTP Basic when the card asks for it', async () => {
    const a = await agent({ auth: { basic: { username: 'ann', password: 's3cret' } } });
    const c = await connect(a.url, { cardCache: false, auth: { basic: { username: 'ann', password: 's3cret' } } });
    expect((await c.sendMessage('echo x')).kind).toBe('message');
    const bad = await connect(a.url, { cardCache: false, auth: { basic: { username: 'ann', password: 'nope' } } });
    await expect(bad.sendMessage('echo x')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('calls the custom-header hook per request, and again with forceRefresh after a 401', async () => {
    const a = await agent({ auth: { bearer: ['signed-1'] } });
    const calls: { method: string; url: string; forceRefresh: boolean }[] = [];
    const c = await connect(a.url, {
      cardCache: false,
      auth: {
        headers: ({ method, url, forceRefresh }) => {
          calls.push({ method, url, forceRefresh });
          return { Authorization: `Bearer ${forceRefresh ? 'signed-2' : 'signed-1'}`, 'X-Signature': 'sig' };
        },
      },
    });
    expect((await c.sendMessage('echo x')).kind).toBe('message');
    const post = a.requests.find((r) => r.method === 'POST');
    expect(post?.headers['x-signature']).toBe('sig');
    a.rotateBearer('signed-2');
    expect((await c.sendMessage('echo y')).kind).toBe('message');
    expect(calls.filter((x) => x.forceRefresh)).toEqual([{ method: 'POST', url: a.jsonRpcUrl, forceRefresh: true }]);
  });

  it('without credentials the error says so', async () => {
    const a = await agent({ auth: { bearer: ['t'] } });
    const c = await connect(a.url, { cardCache: false });
    await expect(c.sendMessage('echo x')).rejects.toThrow(/no credentials were sent; pass `auth` to connect\(\)/);
  });
});

describe('credentials stay on their origin (G7)', () => {
  it('follows a cross-origin redirect without the credentials, a same-origin one with them', async () => {
    const target = await agent({ auth: { bearer: ['tok'] } });
    const seen: { path: string; auth: string | undefined }[] = [];
    const redirector = createServer((req, res) => {
      seen.push({ path: req.url ?? '', auth: req.headers.authorization });
      if (req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            name: 'redirecting',
            url: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/rpc`,
            protocolVersion: '0.3.0',
            capabilities: { streaming: true },
          }),
        );
      } else if (req.url === '/rpc') {
        res.writeHead(307, { location: '/rpc2' }).end();
      } else {
        res.writeHead(307, { location: target.jsonRpcUrl }).end();
      }
    });
    servers.push(redirector);
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
    const c = await connect(origin, { cardCache: false, auth: { bearer: 'tok' } });
    const error = await c.sendMessage('echo x').catch((e: unknown) => e);
    // The same-origin hop kept the token; the hop to the other origin dropped it, so the agent refused.
    expect(seen.find((s) => s.path === '/rpc')?.auth).toBe('Bearer tok');
    expect(seen.find((s) => s.path === '/rpc2')?.auth).toBe('Bearer tok');
    const atTarget = target.requests.filter((r) => r.method === 'POST');
    expect(atTarget).toHaveLength(1);
    expect(atTarget[0]?.headers['authorization']).toBeUndefined();
    expect((error as TetherError).code).toBe('UNAUTHENTICATED');
    expect((error as TetherError).message).toMatch(/not an allowed origin .*add it to auth\.origins/);
  });

  it('sends credentials to another origin only when listed in auth.origins', async () => {
    const a = await agent({ auth: { bearer: ['tok'] } });
    const card = { name: 'elsewhere', url: a.jsonRpcUrl, protocolVersion: '0.3.0', capabilities: { streaming: true } };
    const denied = await connect('http://localhost:1/card.json', { card, auth: { bearer: 'tok' } });
    await expect(denied.sendMessage('echo x')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    const allowed = await connect('http://localhost:1/card.json', { card, auth: { bearer: 'tok', origins: [a.origin] } });
    expect((await allowed.sendMessage('echo x')).kind).toBe('message');
  });
});

describe('negotiation and fallback', () => {
  it('plain connect(url) talks to a v0.3-only agent and a v1.0 agent alike', async () => {
    const old = await agent({ versions: ['0.3'] });
    const modern = await agent({ versions: ['1.0'] });
    const c03 = await connect(old.url, { cardCache: false });
    const c10 = await connect(modern.url, { cardCache: false });
    expect(c03.interface.protocolVersion).toBe('0.3');
    expect(c10.interface.protocolVersion).toBe('1.0');
    for (const c of [c03, c10]) {
      const task = (await c.sendMessage('stream updates=1 chunks=2 delayMs=1')) as Task;
      expect(task.status.state).toBe('completed');
      expect(text(task.artifacts[0]?.parts ?? [])).toBe('chunk-1;chunk-2;');
    }
  });

  it('moves on to the next interface when the first cannot be reached', async () => {
    const a = await agent({ versions: ['1.0'], bindings: ['HTTP+JSON'] });
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/rpc`;
    await new Promise((r) => dead.close(r));
    const card = {
      name: 'two doors',
      supportedInterfaces: [
        { url: deadUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: a.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
      capabilities: { streaming: true },
    };
    const c = await connect(a.origin, { card });
    expect(c.interface.binding).toBe('JSONRPC');
    const reply = await c.sendMessage('echo over the second door');
    expect(reply.kind).toBe('message');
    expect(c.interface).toMatchObject({ binding: 'HTTP+JSON', url: a.restUrl });
    // Streams fall back too.
    const c2 = await connect(a.origin, { card });
    const events = await collect(c2.streamMessage('stream updates=1 chunks=1 delayMs=1'));
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
  });

  it('finds the card under a base path and through the legacy agent.json name', async () => {
    const based = await agent({ basePath: '/agents/x' });
    expect((await connect(`${based.origin}/agents/x`, { cardCache: false })).cardUrl).toBe(`${based.origin}/agents/x/.well-known/agent-card.json`);
    const legacy = await agent({ cardPath: 'agent.json' });
    expect((await connect(legacy.url, { cardCache: false })).cardUrl).toBe(`${legacy.origin}/.well-known/agent.json`);
  });

  it('caches the card by max-age and revalidates with the ETag (304)', async () => {
    const a = await agent({ cardMaxAgeSeconds: 1 });
    const { MemoryCardCache } = await import('../src/index.js');
    const cache = new MemoryCardCache();
    let now = 1_000_000;
    const cardHits = (): number => a.requests.filter((r) => r.path.endsWith('agent-card.json')).length;
    await connect(a.url, { cardCache: cache, now: () => now });
    await connect(a.url, { cardCache: cache, now: () => now });
    expect(cardHits()).toBe(1); // fresh: no request
    now += 5_000;
    await connect(a.url, { cardCache: cache, now: () => now });
    expect(cardHits()).toBe(2);
    const revalidation = a.requests.filter((r) => r.path.endsWith('agent-card.json')).at(-1);
    expect(revalidation?.headers['if-none-match']).toBeTruthy();
  });
});

describe('createNodeFetch', () => {
  it('streams through its own undici Agent and closes the socket on break', async () => {
    const a = await agent({
      scenarios: {
        // Three events, then nothing until the agent closes: only the client can end this stream.
        held: async (ctx) => {
          ctx.status('working');
          ctx.artifact({ artifactId: 'result', text: 'chunk-1;' });
          await new Promise((resolve) => ctx.cancelled.addEventListener('abort', resolve, { once: true }));
        },
      },
    });
    const fetch = createNodeFetch({ connections: 4 });
    const dispatcher = fetch.dispatcher;
    expect(dispatcher).toBeInstanceOf(Agent);
    expect(dispatcher).not.toBe(getGlobalDispatcher());
    const stats = (): { connected: number; running: number } => {
      const pool = (dispatcher as Agent).stats[a.origin];
      return { connected: Number(pool?.connected ?? 0), running: Number(pool?.running ?? 0) };
    };
    const opened: string[] = [];
    const closed: string[] = [];
    let streamClosed!: () => void;
    // A socket closed while no request runs any more: the stream's (an idle keep-alive socket may close too).
    const streamSocketClosed = new Promise<void>((resolve) => (streamClosed = resolve));
    dispatcher.on('connect', (origin) => opened.push(new URL(String(origin)).origin));
    dispatcher.on('disconnect', (origin) => {
      closed.push(new URL(String(origin)).origin);
      if (stats().running === 0) streamClosed();
    });

    const c = await connect(a.url, { fetch, cardCache: false });
    let n = 0;
    for await (const _ of c.streamMessage('held')) {
      if (++n === 3) {
        // The stream is open on one of this Agent's sockets.
        expect(stats().running).toBe(1);
        expect(closed).toEqual([]);
        break;
      }
    }
    expect(n).toBe(3);
    // The agent never ends this stream: only the break can close its socket.
    await Promise.race([
      streamSocketClosed,
      // A guard only: on a healthy run the socket closes right after the break.
      new Promise((_, reject) => setTimeout(() => reject(new Error(`the stream's socket is still open (${JSON.stringify(stats())})`)), 4_000).unref()),
    ]);
    expect(closed.length).toBeGreaterThanOrEqual(1);
    expect(new Set([...opened, ...closed])).toEqual(new Set([a.origin]));
    expect(stats()).toEqual({ connected: opened.length - closed.length, running: 0 });
    await dispatcher.close();
  });
});
