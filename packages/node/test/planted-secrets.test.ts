// Secrets never leak (issue 10): clients are configured with planted credentials (a bearer token, a
// token provider, an API key in a header and in the query, HTTP Basic, a header hook, push tokens and
// secrets), run realistic flows against the testkit agent — through the fault proxy for 401/403/5xx,
// cut streams and lost answers — and against agents that echo what they were sent or redirect to
// another origin. Then everything observable is searched for the planted values: every error (message,
// stack, fields, cause chain), every task event and view, every record written to the memory, file and
// Redis task stores (what the engine writes is what the browser's IndexedDB store gets too), the push
// receiver's notices and refusals, the workflow records, and the console.
import { Buffer } from 'node:buffer';
import { createHmac } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { readdir, readFile, rm, mkdtemp } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFaultProxy, startTestAgent, type FaultProxy, type TestAgent, type TestAgentAuth } from '@a2a-tether/testkit';
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connect,
  createFileTaskStore,
  createPushReceiver,
  MemoryTaskStore,
  TetherError,
  type A2AClient,
  type AuthOptions,
  type NodeConnectOptions,
  type PushNotice,
} from '../src/index.js';
import { createFileWorkflowStore, startWorkflow, type WorkflowRecord, type WorkflowStore } from '../src/orchestrate-entry.js';
import { createRedisTaskStore } from '../src/redis-entry.js';
import { Exposure, MARK, PLANTED, RecordingStore, securedCard as card, watchLogs } from './helpers/planted.js';
import { available as redisAvailable, requireRedis, startRedis } from './helpers/redis.js';

const FAST = {
  initialDelayMs: 5,
  maxDelayMs: 20,
  maxAttempts: 3,
  pollMinMs: 20,
  pollMaxMs: 40,
  streamRetryMs: 50,
  maxRequestsPerWindow: 1_000,
};

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function agent(auth: TestAgentAuth | undefined, options: Parameters<typeof startTestAgent>[0] = {}): Promise<TestAgent> {
  const a = await startTestAgent({ versions: ['1.0'], cancelWaitMs: 20, ...options, auth });
  cleanups.push(() => a.close());
  return a;
}

async function proxy(target: TestAgent): Promise<FaultProxy> {
  const p = await startFaultProxy({ target: target.origin, seed: 10 });
  cleanups.push(() => p.close());
  return p;
}

async function tempDir(name: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `tether-planted-${name}-`));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Every file under `dir`, as text (a temporary file renamed meanwhile is skipped: its record is read under its name). */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (text !== undefined) out[path] = text;
  }
  return out;
}

/** What a flow observed. */
class Observed {
  readonly errors: unknown[] = [];
  readonly events: unknown[] = [];

  /** Awaits `promise`, which must fail; keeps the error. */
  async failure(promise: Promise<unknown>): Promise<TetherError> {
    try {
      await promise;
    } catch (error) {
      this.errors.push(error);
      expect(error).toBeInstanceOf(TetherError);
      return error as TetherError;
    }
    throw new Error('expected a failure');
  }

  async drain(stream: AsyncIterable<unknown>): Promise<void> {
    for await (const event of stream) this.events.push(event);
  }

  scanInto(exposure: Exposure): void {
    exposure.scan('errors', this.errors);
    exposure.scan('events', this.events);
  }
}

interface AuthCase {
  name: string;
  agent: TestAgentAuth;
  auth: () => AuthOptions;
  wrong: AuthOptions;
  /** The secret as the agent must have seen it (proves it was sent). */
  sent: (request: TestAgent['requests'][number]) => string | undefined;
  /** `client.credentialsInQuery`. */
  query?: string[];
  /** The agent starts accepting another token mid-run (a provider is asked again after the 401). */
  rotateTo?: string;
}

const authorization = (r: TestAgent['requests'][number]): string | undefined => r.headers.authorization;

const AUTH_CASES: AuthCase[] = [
  {
    name: 'a bearer token',
    agent: { bearer: [PLANTED.bearer] },
    auth: () => ({ bearer: PLANTED.bearer }),
    wrong: { bearer: PLANTED.wrongBearer },
    sent: authorization,
  },
  {
    name: 'a token provider, asked again after a 401',
    agent: { bearer: [PLANTED.bearer] },
    auth: () => ({ bearer: async ({ forceRefresh }) => (forceRefresh ? PLANTED.refreshed : PLANTED.bearer) }),
    wrong: { bearer: () => PLANTED.wrongBearer },
    sent: authorization,
    rotateTo: PLANTED.refreshed,
  },
  {
    name: 'an API key in a header',
    agent: { apiKey: { values: [PLANTED.apiKey] } },
    auth: () => ({ apiKey: PLANTED.apiKey }),
    wrong: { apiKey: PLANTED.wrongBearer },
    sent: (r) => r.headers['x-api-key'] as string | undefined,
  },
  {
    name: 'an API key the card puts in the query string',
    agent: { apiKey: { query: 'api_key', values: [PLANTED.apiKey] } },
    auth: () => ({ apiKey: PLANTED.apiKey }),
    wrong: { apiKey: PLANTED.wrongBearer },
    sent: (r) => new URLSearchParams(r.search).get('api_key') ?? undefined,
    query: ['api_key'],
  },
  {
    name: 'HTTP Basic credentials',
    agent: { basic: { username: PLANTED.basicUser, password: PLANTED.basicPassword } },
    auth: () => ({ basic: { username: PLANTED.basicUser, password: PLANTED.basicPassword } }),
    wrong: { basic: { username: PLANTED.basicUser, password: PLANTED.wrongBearer } },
    sent: authorization,
  },
  {
    name: 'a custom header hook',
    agent: { bearer: [PLANTED.hookSignature] },
    auth: () => ({ headers: () => ({ Authorization: `Bearer ${PLANTED.hookSignature}` }) }),
    wrong: { headers: () => ({ Authorization: `Bearer ${PLANTED.wrongBearer}` }) },
    sent: authorization,
  },
];

describe.each(AUTH_CASES)('with $name', (c) => {
  it('no planted secret reaches an error, an event, a task record (as written, and as files) or the console, through faults', async () => {
    const logs = watchLogs();
    cleanups.push(logs.stop);
    const a = await agent(c.agent);
    const p = await proxy(a);
    const dir = await tempDir('store');
    const fileStore = new RecordingStore(createFileTaskStore(dir));
    const options: NodeConnectOptions = { cardCache: false, resilience: FAST, maxRetries: 1, preferredBindings: ['JSONRPC'] };
    const client = await connect(p.url, { ...options, auth: c.auth(), store: fileStore });
    expect(client.credentialsInQuery).toEqual(c.query ?? []);
    const seen = new Observed();

    // A followed task whose stream is cut twice: resumed, completed.
    p.addFault({ kind: 'cut', afterEvents: 2, mode: 'reset', times: 2 });
    const handle = await client.start('stream updates=2 chunks=3 delayMs=5');
    await seen.drain(handle.events());
    seen.events.push(await handle.done(), handle.view);
    const taskId = handle.taskId as string;
    if (c.rotateTo !== undefined) a.rotateBearer(c.rotateTo);

    // Unary calls meeting 503 (retried), 500, 403, a dropped request, a lost answer, an unknown task.
    p.addFault({ kind: 'status', status: 503, retryAfter: 0, match: { rpcMethod: /GetTask/ } });
    seen.events.push(await client.getTask(taskId));
    p.addFault({ kind: 'status', status: 500, times: 2, match: { rpcMethod: /GetTask/ } });
    expect((await seen.failure(client.getTask(taskId))).status).toBe(500);
    p.addFault({ kind: 'status', status: 403, body: 'forbidden', contentType: 'text/plain', match: { rpcMethod: /GetTask/ } });
    expect((await seen.failure(client.getTask(taskId, { maxRetries: 0 }))).code).toBe('UNAUTHENTICATED');
    p.addFault({ kind: 'dropRequest', match: { rpcMethod: /GetTask/ } });
    expect((await seen.failure(client.getTask(taskId, { maxRetries: 0 }))).code).toBe('NETWORK');
    p.addFault({ kind: 'loseAnswer', match: { rpcMethod: /SendMessage/ } });
    expect((await seen.failure(client.sendMessage('echo lost'))).code).toBe('NETWORK');
    await seen.failure(client.getTask('no-such-task'));

    // A stream that ends early, and a followed task that gives up (its record keeps the last error).
    p.addFault({ kind: 'cut', afterEvents: 1, mode: 'end' });
    // (Under load the proxy's clean end can reach the client as a reset: NETWORK.)
    expect((await seen.failure(seen.drain(client.streamMessage('stream updates=2 chunks=2 delayMs=5')))).code).toMatch(/^(STREAM_INTERRUPTED|NETWORK)$/);
    p.addFault({ kind: 'cut', afterEvents: 1, mode: 'reset' });
    p.addFault({ kind: 'status', status: 503, times: Infinity, match: { rpcMethod: /GetTask|SubscribeToTask/ } });
    const doomed = await client.start('stream updates=3 chunks=1 delayMs=50');
    // A failed follow: events() throws the error done() rejects with, after its last event (issue 16).
    const drained = seen.failure(seen.drain(doomed.events()));
    expect((await seen.failure(doomed.done())).code).toBe('RETRY_EXHAUSTED');
    expect((await drained).code).toBe('RETRY_EXHAUSTED');
    p.clearFaults();
    expect((await fileStore.get(client.taskKey(doomed.taskId as string)))?.lastError?.code).toBe('RETRY_EXHAUSTED');

    // The app's own webhook token, given to start() and to createPushConfig(), is sent but not kept.
    const hook = { url: 'http://127.0.0.1:9/hook', token: PLANTED.configToken };
    const withHook = await client.start('stream updates=1 chunks=1 delayMs=5', { pushNotification: hook });
    await seen.drain(withHook.events());
    await client.createPushConfig({ taskId, ...hook });
    const canceled = await client.start('stream updates=20 chunks=1 delayMs=20');
    seen.events.push(await canceled.cancel({ reason: 'user asked' }));
    await seen.drain(canceled.events());

    // Wrong credentials: a 401.
    const wrong = await connect(p.url, { ...options, auth: c.wrong, store: new MemoryTaskStore() });
    expect((await seen.failure(wrong.sendMessage('echo x'))).code).toBe('UNAUTHENTICATED');
    expect((await seen.failure(wrong.start('stream'))).code).toBe('UNAUTHENTICATED');

    // The secrets were sent (the flows were authenticated) …
    const sent = a.requests.filter((r) => r.method === 'POST').map(c.sent);
    expect(sent.filter((s) => s?.includes(MARK) || s?.startsWith('Basic ')).length).toBeGreaterThan(10);
    expect(JSON.stringify(a.requests.map((r) => r.body))).toContain(PLANTED.configToken);
    // … and are nowhere else.
    const exposure = new Exposure();
    seen.scanInto(exposure);
    exposure.scan('store writes', fileStore.writes);
    exposure.scan('store files', await filesOf(dir));
    exposure.scan('client.tasks()', await client.tasks());
    exposure.scan('console', logs.lines);
    expect(fileStore.writes.length).toBeGreaterThan(5);
    expect(exposure.found).toEqual([]);
    // A task through faults with every write on the file store (a lock per write since D45): 1–4 s alone,
    // over 5 s beside the other suites on two cores.
  }, 30_000);
});

/** A server that answers through `handler`; its URL is the origin. */
async function server(handler: (req: IncomingMessage, res: ServerResponse, body: string, origin: string) => void): Promise<{ origin: string; requests: { url: string; headers: IncomingMessage['headers'] }[] }> {
  const requests: { url: string; headers: IncomingMessage['headers'] }[] = [];
  let origin = '';
  const s: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', headers: req.headers });
      handler(req, res, body, origin);
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  );
  return { origin, requests };
}


/** Everything the request carried, as an agent that echoes it would show it. */
function echoOf(req: IncomingMessage, body: string): string {
  return JSON.stringify({ url: req.url, headers: req.headers, body });
}

describe('an agent that echoes the credentials back', () => {
  describe.each([
    ['a bearer token', 'bearer', { bearer: PLANTED.bearer }],
    ['an API key in the query string', 'query', { apiKey: PLANTED.apiKey }],
  ] as const)('with %s', (_name, scheme, auth) => {
    it('in error pages, JSON errors, response headers, cookies and redirects: errors and records stay clean', async () => {
      const logs = watchLogs();
      cleanups.push(logs.stop);
      let rpcCalls = 0;
      const echo = await server((req, res, body, origin) => {
        const url = new URL(req.url ?? '/', origin);
        if (url.pathname === '/.well-known/agent-card.json') {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card(`${origin}/rpc`, scheme)));
          return;
        }
        const echoed = echoOf(req, body);
        const headers = {
          'set-cookie': `sid=${PLANTED.cookie}; HttpOnly`,
          'x-echo-authorization': req.headers.authorization ?? '',
          'x-echo-url': req.url ?? '',
        };
        rpcCalls += 1;
        if (url.pathname === '/rpc' && rpcCalls === 1) {
          // A same-origin redirect whose location repeats the query.
          res.writeHead(307, { ...headers, location: `/rpc2${url.search}&echo=${encodeURIComponent(req.headers.authorization ?? '')}` }).end();
          return;
        }
        switch (rpcCalls % 4) {
          case 2:
            res.writeHead(500, { ...headers, 'content-type': 'text/html' }).end(`<h1>Error</h1><pre>${echoed}</pre>`);
            return;
          case 3:
            res.writeHead(401, { ...headers, 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="echo"' }).end(
              JSON.stringify({ error: { code: 401, status: 'UNAUTHENTICATED', message: `not accepted: ${echoed}` } }),
            );
            return;
          case 0:
            res.writeHead(400, { ...headers, 'content-type': 'application/json' }).end(
              JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: `bad params from ${echoed}`, data: { echoed } } }),
            );
            return;
          default:
            res.writeHead(200, { ...headers, 'content-type': 'text/html' }).end(`<p>not an event stream: ${echoed}</p>`);
        }
      });
      const store = new RecordingStore(new MemoryTaskStore());
      const client = await connect(echo.origin, { cardCache: false, auth, store, resilience: FAST, maxRetries: 0 });
      expect(client.credentialsInQuery).toEqual(scheme === 'query' ? ['token'] : []);
      const seen = new Observed();
      for (let i = 0; i < 4; i++) await seen.failure(client.sendMessage('hello'));
      await seen.failure(seen.drain(client.streamMessage('hello')));
      await seen.failure(client.start('hello', { delivery: 'poll' }));

      // The echo server was sent the secret and put it in every answer.
      expect(echo.requests.filter((r) => JSON.stringify(r).includes(MARK)).length).toBeGreaterThanOrEqual(6);
      const exposure = new Exposure();
      seen.scanInto(exposure);
      exposure.scan('store writes', store.writes);
      exposure.scan('console', logs.lines);
      expect(exposure.found).toEqual([]);
      // What was redacted is still recognizable.
      const first = seen.errors[0] as TetherError;
      expect(first.headers?.['set-cookie']).toBe('[REDACTED]');
      expect(first.bodySnippet).toContain('[REDACTED]');
    });
  });

  it('a redirect to another origin carries no credentials there, and what that origin answers stays clean', async () => {
    const other = await server((req, res, body) => {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="other"' }).end(`other origin saw ${echoOf(req, body)}`);
    });
    const first = await server((req, res, _body, origin) => {
      if (req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card(`${origin}/rpc`, 'bearer')));
        return;
      }
      res.writeHead(307, { location: `${other.origin}/rpc?from=${encodeURIComponent(req.headers.authorization ?? '')}` }).end();
    });
    const client = await connect(first.origin, { cardCache: false, auth: { bearer: PLANTED.bearer }, maxRetries: 0 });
    const seen = new Observed();
    const error = await seen.failure(client.sendMessage('hello'));
    expect(error.code).toBe('UNAUTHENTICATED');
    expect(error.message).toContain('is not an allowed origin');
    const exposure = new Exposure();
    seen.scanInto(exposure);
    exposure.scan('requests the other origin received', other.requests.map((r) => r.headers));
    expect(exposure.found).toEqual([]);
  });
});

describe('credentials that cannot be sent, and providers that fail', () => {
  it('a token with a line break is refused before any request, without repeating it', async () => {
    const a = await agent({ bearer: [PLANTED.bearer] });
    const seen = new Observed();
    for (const bearer of [`${PLANTED.bearer}\nX-Injected: 1`, `${PLANTED.bearer}\u0000`, `${PLANTED.bearer}\u2026`]) {
      // With the card given, the first request is the send; without it, the card request.
      const client = await connect(a.url, { cardCache: false, auth: { bearer }, maxRetries: 0, card: await (await fetch(a.cardUrl)).json() });
      for (const refused of [await seen.failure(client.sendMessage('echo x')), await seen.failure(connect(a.url, { cardCache: false, auth: { bearer } }))]) {
        expect(refused.code).toBe('INVALID_ARGUMENT');
        expect(refused.maybeDelivered).toBe(false);
        expect(refused.message).toMatch(/the value for the Authorization header has a character HTTP headers cannot carry/);
      }
    }
    const exposure = new Exposure();
    seen.scanInto(exposure);
    expect(exposure.found).toEqual([]);
    expect(a.requests.filter((r) => r.method === 'POST' || r.headers.authorization !== undefined)).toEqual([]);
  });

  it('a URL with a password in it is refused by connect() without repeating it', async () => {
    const seen = new Observed();
    const error = await seen.failure(connect(`http://ann:${PLANTED.basicPassword}@127.0.0.1:9/`, { cardCache: false }));
    expect(error.code).toBe('INVALID_ARGUMENT');
    const exposure = new Exposure();
    seen.scanInto(exposure);
    expect(exposure.found).toEqual([]);
  });

  it('a token provider that throws fails the call with a TetherError (nothing sent)', async () => {
    const a = await agent({ bearer: [PLANTED.bearer] });
    const bearer = (): string => {
      throw new Error('the identity provider is down');
    };
    const seen = new Observed();
    const card: unknown = await (await fetch(a.cardUrl)).json();
    const client = await connect(a.url, { cardCache: false, maxRetries: 0, auth: { bearer }, card });
    for (const error of [await seen.failure(client.sendMessage('echo x')), await seen.failure(connect(a.url, { cardCache: false, auth: { bearer } }))]) {
      expect(error.code).toBe('UNAUTHENTICATED');
      expect(error.maybeDelivered).toBe(false);
      expect(error.message).toContain('the credentials could not be obtained (auth): the identity provider is down');
    }
    expect(a.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('a key the app puts in the URL it passes to connect()', () => {
  it('is redacted from the records (agentUrl) and from card errors', async () => {
    const a = await agent(undefined);
    const store = new RecordingStore(new MemoryTaskStore());
    const client = await connect(`${a.cardUrl}?api_key=${PLANTED.apiKey}`, { cardCache: false, store, resilience: FAST });
    const handle = await client.start('stream updates=1 chunks=1 delayMs=5');
    await handle.done();
    expect(store.writes[0]?.agentUrl).toBe(`${a.cardUrl}?api_key=[REDACTED]`);
    const seen = new Observed();
    expect((await seen.failure(connect(`${a.url}/.well-known/missing.json?api_key=${PLANTED.apiKey}`, { cardCache: false, maxRetries: 0 }))).code).toBe(
      'CARD_NOT_FOUND',
    );
    const exposure = new Exposure();
    seen.scanInto(exposure);
    exposure.scan('store writes', store.writes);
    exposure.scan('client.tasks()', await client.tasks());
    expect(exposure.found).toEqual([]);
  });
});

describe('push delivery', () => {
  it("no receiver token, HMAC secret, config token or the engine's own webhook token reaches notices, refusals, records or logs", async () => {
    const logs = watchLogs();
    cleanups.push(logs.stop);
    const refusals: TetherError[] = [];
    const listenerErrors: unknown[] = [];
    // JWTs are verified with the agent's public keys (JWKS); a JWT itself is a credential.
    const signing = await generateKeyPair('ES256');
    const stranger = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const jwks = await server((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
    const audience = 'https://client.example/hook';
    const receiver = createPushReceiver({
      token: PLANTED.receiverToken,
      hmac: { secret: PLANTED.hmacSecret },
      jwt: { jwks: `${jwks.origin}/jwks.json`, audience, issuer: 'agent' },
      onRefused: (error) => void refusals.push(error),
      onListenerError: (error) => void listenerErrors.push(error),
    });
    cleanups.push(() => receiver.close());
    const receiverServer = createServer(receiver.nodeHandler);
    await new Promise<void>((resolve) => receiverServer.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => receiverServer.close(() => resolve())));
    const hookUrl = `http://127.0.0.1:${(receiverServer.address() as AddressInfo).port}/hook`;

    const a = await agent({ bearer: [PLANTED.bearer] });
    const store = new RecordingStore(new MemoryTaskStore());
    const client = await connect(a.url, {
      cardCache: false,
      auth: { bearer: PLANTED.bearer },
      store,
      resilience: FAST,
      push: { receiver, url: hookUrl, safetyPollMs: 200 },
    });
    const seen = new Observed();
    const handle = await client.start('stream updates=2 chunks=2 delayMs=30');
    const notices: PushNotice[] = [];
    receiver.subscribe(handle.taskId as string, (notice) => void notices.push(notice));
    await seen.drain(handle.events());
    seen.events.push(await handle.done());

    // The engine's webhook token, as the agent received it.
    const engineToken = a.requests.map((r) => /"token":"([^"]+)"/.exec(String(JSON.stringify(r.body)))?.[1]).find((t) => t !== undefined);
    expect(engineToken).toBeDefined();

    // Pushes that must be refused: a planted wrong token, the receiver token for a task with its own,
    // a forged HMAC signature, a task nobody expects.
    const taskId = handle.taskId as string;
    receiver.expect('t-other');
    const status = JSON.stringify({ statusUpdate: { taskId: 't-other', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } });
    const post = (headers: Record<string, string>, body = status): Promise<Response> =>
      fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/a2a+json', ...headers }, body });
    await post({ authorization: `Bearer ${PLANTED.wrongBearer}` });
    await post({ 'x-a2a-notification-token': PLANTED.configToken });
    await post({ authorization: `Bearer ${PLANTED.receiverToken}` }, status.replace('t-other', taskId)); // finished: forgotten
    const id = 'msg-1';
    const ts = String(Math.floor(Date.now() / 1000));
    const forged = createHmac('sha256', Buffer.from(PLANTED.wrongBearer)).update(`${id}.${ts}.${status}`).digest('base64');
    await post({ 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': `v1,${forged}` });
    const sign = (key: CryptoKey, claims: Record<string, unknown>): Promise<string> =>
      new SignJWT({ aud: audience, iss: 'agent', iat: Math.floor(Date.now() / 1000), jti: `jti-${Math.random()}`, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .sign(key);
    const jwts = [await sign(stranger.privateKey, {}), await sign(signing.privateKey, { taskId: 't-elsewhere' })];
    for (const jwt of jwts) await post({ authorization: `Bearer ${jwt}` });
    const unexpected = status.replace('t-other', 't-unexpected');
    await post({ authorization: `Bearer ${PLANTED.receiverToken}` }, unexpected);
    // An accepted push whose listener throws.
    receiver.subscribe('t-other', () => {
      throw new Error('listener failed');
    });
    await post({ authorization: `Bearer ${PLANTED.receiverToken}` });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // 401: a wrong token, the config token of no task, two JWTs, a forged signature; 404: the
    // unexpected task, and the finished one (forgotten by then; an early push of the agent may add one).
    expect(refusals.filter((r) => r.status === 401)).toHaveLength(5);
    expect(refusals.filter((r) => r.status === 404).length).toBeGreaterThanOrEqual(2);

    const exposure = new Exposure();
    exposure.also(engineToken as string, ...jwts);
    seen.scanInto(exposure);
    exposure.scan('notices', notices);
    exposure.scan('refusals', refusals);
    exposure.scan('listener errors', listenerErrors);
    exposure.scan('store writes', store.writes);
    exposure.scan('receiver stats', receiver.stats());
    exposure.scan('console', logs.lines);
    expect(store.writes.some((w) => w.pushConfigId !== undefined)).toBe(true);
    expect(exposure.found).toEqual([]);
  });
});

describe('workflow records', () => {
  it('a workflow over authenticated agents keeps no credential in its records, events or summary', async () => {
    const logs = watchLogs();
    cleanups.push(logs.stop);
    const a = await agent({ bearer: [PLANTED.bearer] });
    const direct = await proxy(a);
    // A gateway in front of the second agent answers 401 and echoes the token it was sent.
    const gateway = await proxy(a);
    gateway.addFault({
      kind: 'status',
      status: 401,
      times: Infinity,
      contentType: 'text/plain',
      body: `token ${PLANTED.wrongBearer} is not valid here`,
      match: { rpcMethod: /SendStreamingMessage/ },
    });
    const dir = await tempDir('workflows');
    const saves: WorkflowRecord[] = [];
    const files = createFileWorkflowStore(dir);
    const store: WorkflowStore = {
      load: (id) => files.load(id),
      list: () => files.list(),
      save: async (record) => {
        saves.push(structuredClone(record));
        await files.save(record);
      },
    };
    const good = await connect(direct.url, { cardCache: false, auth: { bearer: PLANTED.bearer }, resilience: FAST });
    const bad = await connect(gateway.url, { cardCache: false, auth: { bearer: PLANTED.wrongBearer }, resilience: FAST });
    const flow = await startWorkflow({
      id: 'wf-planted',
      goal: 'two hops',
      store,
      agents: { good, bad },
      hops: [
        { id: 'first', agent: 'good', input: () => 'stream updates=1 chunks=1 delayMs=5' },
        { id: 'second', agent: 'bad', dependsOn: ['first'], required: false, input: () => 'stream updates=1 chunks=1 delayMs=5' },
      ],
    });
    const events: unknown[] = [];
    for await (const event of flow.events()) events.push(event);
    expect(flow.snapshot.nodes['first']?.state).toBe('completed');
    // The send was refused (401): failed, or unresolved where a 401 cannot show it was not acted on.
    expect(flow.snapshot.nodes['second']?.state).toMatch(/^(failed|unresolved)$/);
    const exposure = new Exposure();
    exposure.scan('workflow saves', saves);
    exposure.scan('workflow files', await filesOf(dir));
    exposure.scan('workflow events', events);
    exposure.scan('workflow snapshot', flow.snapshot);
    exposure.scan('console', logs.lines);
    expect(saves.length).toBeGreaterThan(2);
    expect(exposure.found).toEqual([]);
  });
});

requireRedis('the planted-secret test of the Redis task store');

describe.skipIf(!redisAvailable)('the Redis task store', () => {
  it('holds no credential after authenticated flows', async () => {
    const redis = await startRedis();
    cleanups.push(() => redis.process.kill());
    const store = await createRedisTaskStore({ url: redis.url });
    cleanups.push(() => store.close());
    const a = await agent({ apiKey: { query: 'api_key', values: [PLANTED.apiKey] } });
    const client: A2AClient = await connect(a.url, { cardCache: false, auth: { apiKey: PLANTED.apiKey }, store, resilience: FAST });
    const handle = await client.start('stream updates=2 chunks=2 delayMs=5', { pushNotification: { url: 'http://127.0.0.1:9/hook', token: PLANTED.configToken } });
    await handle.done();
    const raw = createClient({ url: redis.url });
    await raw.connect();
    cleanups.push(() => raw.close());
    const dump: Record<string, unknown> = {};
    for (const key of await raw.keys('*')) {
      const type = await raw.type(key);
      dump[key] = type === 'string' ? await raw.get(key) : type === 'set' ? await raw.sMembers(key) : type;
    }
    expect(Object.keys(dump).length).toBeGreaterThan(0);
    const exposure = new Exposure();
    exposure.scan('redis', dump);
    expect(exposure.found).toEqual([]);
  });
});
