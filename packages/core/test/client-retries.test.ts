import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TaskNotFoundError, TetherError, type A2AClient, type ConnectOptions, type Scheduler } from '../src/index.js';
import { json, RPC_ID, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

const taskJson = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };
const pushJson = { taskId: 't1', id: 'p1', url: 'https://hooks.example/a2a' };

/** A client on the scripted server's JSON-RPC interface only (no fallback to muddy the counts). */
function client(options: ConnectOptions = {}): Promise<A2AClient> {
  const card = v1Card(server.origin, { supportedInterfaces: [{ url: `${server.origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
  return connect(server.url, { cardCache: false, card, ...options });
}

/** Answers /rpc with `failures` in turn, then with `result`. */
function failThenAnswer(failures: ((res: ServerResponse) => void)[], result: unknown): void {
  let n = 0;
  server.on('POST /rpc', (_req, res) => {
    const fail = failures[n++];
    if (fail) fail(res);
    else json(res, 200, { jsonrpc: '2.0', id: RPC_ID, result });
  });
}

const status =
  (code: number, headers: Record<string, string> = {}) =>
  (res: ServerResponse): void => {
    res.writeHead(code, { 'content-type': 'text/plain', ...headers }).end(`status ${code}`);
  };

async function failure(promise: Promise<unknown>): Promise<TetherError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    return error as TetherError;
  }
  throw new Error('expected a failure');
}

/** A scheduler whose timers fire only when the test says so. */
function manualScheduler(): { scheduler: Scheduler; pending: () => number[]; fire: () => void } {
  const timers = new Map<number, { callback: () => void; ms: number }>();
  let next = 1;
  return {
    scheduler: {
      now: () => 0,
      setTimeout: (callback, ms) => {
        timers.set(next, { callback, ms });
        return next++;
      },
      clearTimeout: (handle) => {
        timers.delete(handle as number);
      },
    },
    pending: () => [...timers.values()].map((t) => t.ms),
    fire: () => {
      for (const [id, timer] of [...timers]) {
        timers.delete(id);
        timer.callback();
      }
    },
  };
}

describe('idempotent unary calls are retried after transient failures', () => {
  it('GetTask: a 503, then 200 → the task, after 2 requests', async () => {
    failThenAnswer([status(503)], taskJson);
    const c = await client();
    expect((await c.getTask('t1')).id).toBe('t1');
    expect(server.requests).toHaveLength(2);
  });

  it.each([
    ['listTasks', (c: A2AClient) => c.listTasks(), { tasks: [] }],
    ['getPushConfig', (c: A2AClient) => c.getPushConfig('t1', 'p1'), pushJson],
    ['listPushConfigs', (c: A2AClient) => c.listPushConfigs('t1'), { configs: [pushJson] }],
    ['deletePushConfig', (c: A2AClient) => c.deletePushConfig('t1', 'p1'), {}],
  ] as const)('%s: a reset, a 502, then 200 → 3 requests', async (_name, call, result) => {
    failThenAnswer([(res) => res.socket?.destroy(), status(502)], result);
    const c = await client();
    await call(c);
    expect(server.requests).toHaveLength(3);
  });

  it('the card fetch in connect(): a 503, then the card', async () => {
    let n = 0;
    server.on('GET /.well-known/agent-card.json', (_req, res) => (n++ === 0 ? status(503)(res) : json(res, 200, v1Card(server.origin))));
    const c = await connect(server.url, { cardCache: false });
    expect(c.card.name).toBe('scripted');
    expect(server.requests.map((r) => r.path)).toEqual(['/.well-known/agent-card.json', '/.well-known/agent-card.json']);
  });

  it('timeoutMs bounds each attempt: a request left unanswered, then an answer', async () => {
    let n = 0;
    server.on('POST /rpc', (_req, res) => {
      if (n++ > 0) json(res, 200, { jsonrpc: '2.0', id: RPC_ID, result: taskJson });
    });
    const c = await client();
    expect((await c.getTask('t1', { timeoutMs: 300 })).id).toBe('t1');
    expect(server.requests).toHaveLength(2);
  });

  it('gives up after maxRetries (default 2) with the last error', async () => {
    failThenAnswer([status(502), status(503), status(504), status(500)], taskJson);
    const c = await client();
    expect(await failure(c.getTask('t1'))).toMatchObject({ code: 'HTTP_STATUS', status: 504 });
    expect(server.requests).toHaveLength(3);
  });
});

describe('Retry-After', () => {
  it('is waited out on the client clock before the retry', async () => {
    const clock = manualScheduler();
    failThenAnswer([status(503, { 'retry-after': '30' })], taskJson);
    const c = await client({ scheduler: clock.scheduler });
    const pending = c.getTask('t1');
    await expect.poll(() => clock.pending()).toEqual([30_000]);
    expect(server.requests).toHaveLength(1);
    clock.fire();
    expect((await pending).id).toBe('t1');
    expect(server.requests).toHaveLength(2);
  });

  it('longer than DEFAULTS.maxRetryAfterMs: not waited for, the error says how long', async () => {
    failThenAnswer([status(429, { 'retry-after': '3600' })], taskJson);
    const c = await client();
    expect(await failure(c.getTask('t1'))).toMatchObject({ status: 429, retryAfterMs: 3_600_000 });
    expect(server.requests).toHaveLength(1);
  });
});

describe('what is not retried', () => {
  it.each([
    ['a 404 without an A2A body', status(404)],
    ['a 400', status(400)],
    ['a 401', status(401)],
    ['an A2A error (TaskNotFound)', (res: ServerResponse) => json(res, 200, { jsonrpc: '2.0', id: RPC_ID, error: { code: -32001, message: 'gone' } })],
    ['an invalid answer', (res: ServerResponse) => json(res, 200, { jsonrpc: '2.0', id: RPC_ID, result: { id: 7 } })],
  ])('%s', async (_name, fail) => {
    failThenAnswer([fail], taskJson);
    const c = await client();
    await failure(c.getTask('t1'));
    expect(server.requests).toHaveLength(1);
  });

  it('an A2A error keeps its class', async () => {
    failThenAnswer([(res) => json(res, 200, { jsonrpc: '2.0', id: RPC_ID, error: { code: -32001, message: 'gone' } })], taskJson);
    const c = await client();
    expect(await failure(c.getTask('t1'))).toBeInstanceOf(TaskNotFoundError);
  });

  it('maxRetries: 0 per call, or per client, makes one request', async () => {
    failThenAnswer([status(503), status(503)], taskJson);
    const c = await client();
    expect(await failure(c.getTask('t1', { maxRetries: 0 }))).toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
    const once = await client({ maxRetries: 0 });
    expect(await failure(once.getTask('t1'))).toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(2);
  });

  it('a maxRetries that is not a non-negative integer → INVALID_ARGUMENT, nothing sent', async () => {
    const c = await client();
    for (const maxRetries of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(await failure(c.getTask('t1', { maxRetries }))).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    }
    expect(await failure(client({ maxRetries: -1 }))).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    ['sendMessage', (c: A2AClient) => c.sendMessage('hi')],
    ['cancelTask', (c: A2AClient) => c.cancelTask('t1')],
    ['createPushConfig', (c: A2AClient) => c.createPushConfig(pushJson)],
    [
      'streamMessage',
      async (c: A2AClient) => {
        for await (const _ of c.streamMessage('hi')) {
          /* drain */
        }
      },
    ],
    [
      'subscribe',
      async (c: A2AClient) => {
        for await (const _ of c.subscribe('t1')) {
          /* drain */
        }
      },
    ],
  ] as const)('%s, whatever maxRetries says', async (_name, call) => {
    failThenAnswer([status(503), status(503)], taskJson);
    const c = await client({ maxRetries: 5 });
    expect(await failure(call(c))).toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
  });

  it("the task engine's calls: its own budget alone decides (as many requests with maxRetries 0 as with 5)", async () => {
    server.on('POST /rpc', (_req, res) => status(503)(res));
    const requestsWith = async (maxRetries: number): Promise<number> => {
      const before = server.requests.length;
      const c = await client({ maxRetries, random: () => 0, resilience: { maxAttempts: 2, initialDelayMs: 1, maxDelayMs: 1 } });
      const handle = await c.resume('t1', { delivery: 'poll' });
      expect(await failure(handle.done())).toMatchObject({ code: 'RETRY_EXHAUSTED' });
      return server.requests.length - before;
    };
    const without = await requestsWith(0);
    expect(without).toBeGreaterThan(0);
    expect(await requestsWith(5)).toBe(without);
  });
});

describe('abort', () => {
  it('between attempts: stops at once with ABORTED, nothing more is sent', async () => {
    const clock = manualScheduler();
    failThenAnswer([status(503, { 'retry-after': '30' })], taskJson);
    const c = await client({ scheduler: clock.scheduler });
    const controller = new AbortController();
    const pending = c.getTask('t1', { signal: controller.signal });
    await expect.poll(() => clock.pending()).toEqual([30_000]);
    controller.abort(new Error('user left'));
    const error = await failure(pending);
    expect(error).toMatchObject({ code: 'ABORTED', operation: 'GetTask', maybeDelivered: false });
    expect((error.cause as Error).message).toBe('user left');
    expect(clock.pending()).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('during the backoff: ABORTED, one request', async () => {
    failThenAnswer([status(502), status(502)], taskJson);
    const c = await client();
    const controller = new AbortController();
    const pending = c.getTask('t1', { signal: controller.signal });
    await expect.poll(() => server.requests.length).toBe(1);
    controller.abort();
    expect(await failure(pending)).toMatchObject({ code: 'ABORTED' });
    expect(server.requests).toHaveLength(1);
  });
});
