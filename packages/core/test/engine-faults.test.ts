import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, MemoryTaskStore, type A2AClient, type ConnectOptions, type Part, type Task, type TaskEvent, type TaskHandle } from '../src/index.js';
import { ManualScheduler } from '@a2a-tether/testkit';
import { json, rpcFrame, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

type Rpc = { id: number; method: string; params: Record<string, unknown> };
type RpcHandler = (rpc: Rpc, res: ServerResponse, req: IncomingMessage) => void;

let server: ScriptedServer;
let handlers: Record<string, RpcHandler>;
let calls: string[];
const open: ServerResponse[] = [];

beforeEach(async () => {
  server = await startScriptedServer();
  handlers = {};
  calls = [];
  server.on('GET /.well-known/agent-card.json', (_req, res) =>
    json(res, 200, v1Card(server.origin, { supportedInterfaces: [{ url: `${server.origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] })),
  );
  server.on('POST /rpc', (req, res) => {
    const rpc = JSON.parse(req.body) as Rpc;
    calls.push(rpc.method);
    const handler = handlers[rpc.method];
    if (!handler) return json(res, 200, { jsonrpc: '2.0', id: rpc.id, error: { code: -32601, message: `no ${rpc.method}` } });
    handler(rpc, res, req);
  });
});
afterEach(async () => {
  for (const res of open.splice(0)) res.destroy();
  await server.close();
});

const T = 'task-1';
const text = (t: string): Part => ({ kind: 'text', text: t });
const task = (state: string, chunks: string[], n = 0) => ({
  id: T,
  contextId: 'ctx',
  status: { state: `TASK_STATE_${state}`, timestamp: new Date(1_700_000_000_000 + n).toISOString() },
  artifacts: chunks.length ? [{ artifactId: 'a', parts: chunks.map((c) => ({ text: c })) }] : [],
});
const chunkFrame = (c: string, append: boolean, last = false) =>
  rpcFrame({ artifactUpdate: { taskId: T, contextId: 'ctx', artifact: { artifactId: 'a', parts: [{ text: c }] }, append, lastChunk: last } });
const statusFrame = (state: string, n: number) =>
  rpcFrame({ statusUpdate: { taskId: T, contextId: 'ctx', status: { state: `TASK_STATE_${state}`, timestamp: new Date(1_700_000_000_000 + n).toISOString() } } });

function sseOpen(res: ServerResponse, frames: string[], end: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const f of frames) res.write(f);
  if (end) res.end();
  else open.push(res);
}
const rpcResult = (res: ServerResponse, rpc: Rpc, result: unknown) => json(res, 200, { jsonrpc: '2.0', id: rpc.id, result });
const rpcError = (res: ServerResponse, rpc: Rpc, code: number, message: string) => json(res, 200, { jsonrpc: '2.0', id: rpc.id, error: { code, message } });

async function client(clock: ManualScheduler, extra: ConnectOptions = {}): Promise<A2AClient> {
  return connect(server.url, {
    cardCache: false,
    scheduler: clock,
    random: () => 0.5,
    ...extra,
    resilience: { idleProbeMs: 30_000, initialDelayMs: 1_000, maxDelayMs: 8_000, ...extra.resilience },
  });
}

function record(handle: TaskHandle): TaskEvent[] {
  const events: TaskEvent[] = [];
  void (async () => {
    for await (const e of handle.events()) events.push(e);
  })().catch(() => undefined); // a failed follow throws after its last event: done() reports it
  return events;
}

function rebuild(events: TaskEvent[]): string {
  let out = '';
  for (const e of events) if (e.type === 'artifact' && e.artifactId === 'a') out = (e.append ? out : '') + e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
  return out;
}

/** Advances virtual time until the promise settles (bounded). */
async function settle<T>(clock: ManualScheduler, promise: Promise<T>, stepMs = 1_000, maxSteps = 2_000): Promise<T> {
  let state: 'pending' | 'done' = 'pending';
  promise.then(() => (state = 'done'), () => (state = 'done'));
  for (let i = 0; i < maxSteps && state === 'pending'; i++) await clock.advance(stepMs, 2);
  return promise;
}

describe('half-open connections and silence (idle probe)', () => {
  it('detects a stalled stream whose task moved on, and reconnects', async () => {
    const clock = new ManualScheduler();
    handlers['SendStreamingMessage'] = (rpc, res) => sseOpen(res, [rpcFrame({ task: task('WORKING', []) }, rpc.id), chunkFrame('c1', false)], false);
    let gets = 0;
    // The probe finds the agent ahead but still working; the final check finds it completed.
    handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, ++gets === 1 ? task('WORKING', ['c1', 'c2'], 2) : task('COMPLETED', ['c1', 'c2', 'c3'], 5));
    handlers['SubscribeToTask'] = (rpc, res) =>
      sseOpen(res, [rpcFrame({ task: task('WORKING', ['c1', 'c2'], 2) }, rpc.id), chunkFrame('c3', true, true), statusFrame('COMPLETED', 5)], true);
    const c = await client(clock);
    const handle = await c.start('go');
    const events = record(handle);
    await clock.advance(29_000);
    expect(calls.filter((m) => m === 'GetTask')).toHaveLength(0);
    const final = (await settle(clock, handle.done())) as Task;
    expect(final.artifacts[0]?.parts).toEqual([text('c1'), text('c2'), text('c3')]);
    expect(rebuild(events)).toBe('c1c2c3');
    expect(events.some((e) => e.type === 'artifact' && e.recovered)).toBe(true);
    expect(events.some((e) => e.type === 'connection' && e.state === 'reconnecting')).toBe(true);
  });

  it('leaves a healthy task that is silent for 10 minutes alone (probes only, no reconnect)', async () => {
    const clock = new ManualScheduler();
    let stream: ServerResponse | undefined;
    handlers['SendStreamingMessage'] = (rpc, res) => {
      stream = res;
      sseOpen(res, [rpcFrame({ task: task('WORKING', []) }, rpc.id), chunkFrame('c1', false)], false);
    };
    handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', ['c1']));
    const c = await client(clock);
    const handle = await c.start('go');
    const events = record(handle);
    for (let minute = 0; minute < 10; minute++) await clock.advance(60_000);
    expect(calls.filter((m) => m === 'SubscribeToTask')).toHaveLength(0);
    expect(calls.filter((m) => m === 'GetTask').length).toBe(20); // one probe per 30 s of silence
    expect(events.filter((e) => e.type === 'connection').map((e) => (e as { state: string }).state)).toEqual(['live']);
    stream?.write(chunkFrame('c2', true, true));
    stream?.end(statusFrame('COMPLETED', 9));
    const final = (await settle(clock, handle.done())) as Task;
    expect(final.status.state).toBe('completed');
    expect(rebuild(events)).toBe('c1c2');
  });
});

describe('retries: budgets, Retry-After, what is never retried', () => {
  function prematureClose(): void {
    handlers['SendStreamingMessage'] = (rpc, res) => sseOpen(res, [rpcFrame({ task: task('WORKING', []) }, rpc.id)], true);
  }

  it('honours Retry-After and gives up exactly at the attempt budget, with the task id; the task stays resumable', async () => {
    const clock = new ManualScheduler();
    const store = new MemoryTaskStore();
    prematureClose();
    handlers['SubscribeToTask'] = (_rpc, res) => {
      res.writeHead(503, { 'retry-after': '7', 'content-type': 'text/plain' }).end('busy');
    };
    const c = await client(clock, { store, resilience: { maxAttempts: 4, maxElapsedMs: 10 * 60_000, emptyConnectionsBeforePolling: 99 } });
    const handle = await c.start('go');
    const events = record(handle);
    const error = await settle(clock, handle.done()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RETRY_EXHAUSTED', taskId: T });
    expect((error as Error).message).toMatch(/4 failed attempts in a row/);
    expect(calls.filter((m) => m === 'SubscribeToTask')).toHaveLength(4); // four reconnects, then it stops
    const delays = events.flatMap((e) => (e.type === 'connection' && e.delayMs !== undefined ? [e.delayMs] : []));
    // The reconnect after the early close, then one wait after each 503 but the last: each at least its Retry-After.
    expect(delays).toHaveLength(4);
    const afterBusy = delays.slice(1);
    for (const delay of afterBusy) expect(delay).toBeGreaterThanOrEqual(7_000);
    expect(await store.get(c.taskKey(T))).toMatchObject({ taskId: T, state: 'working' });
  });

  it('gives up at the time budget', async () => {
    const clock = new ManualScheduler();
    prematureClose();
    handlers['SubscribeToTask'] = (_rpc, res) => res.destroy();
    const c = await client(clock, { resilience: { maxAttempts: 1_000, maxElapsedMs: 20_000, emptyConnectionsBeforePolling: 99 } });
    const handle = await c.start('go');
    const started = clock.now();
    const error = await settle(clock, handle.done(), 500).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RETRY_EXHAUSTED', taskId: T });
    expect(clock.now() - started).toBeLessThanOrEqual(20_500);
    expect((error as Error).message).toMatch(/20000 ms of failures/);
  });

  it('never retries a 4xx or an A2A protocol error', async () => {
    for (const answer of [
      (_rpc: Rpc, res: ServerResponse) => res.writeHead(400, { 'content-type': 'text/plain' }).end('bad'),
      (rpc: Rpc, res: ServerResponse) => rpcError(res, rpc, -32603, 'internal'),
    ]) {
      calls = [];
      const clock = new ManualScheduler();
      prematureClose();
      handlers['SubscribeToTask'] = answer;
      const c = await client(clock);
      const handle = await c.start('go');
      const error = await settle(clock, handle.done()).catch((e: unknown) => e);
      expect(error).toMatchObject({ isRetryable: false });
      expect(calls.filter((m) => m === 'SubscribeToTask')).toHaveLength(1);
    }
  });

  it('retries a 401 once after refreshing the credentials, then stops', async () => {
    const clock = new ManualScheduler();
    prematureClose();
    handlers['SubscribeToTask'] = (_rpc, res) => {
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    };
    let refreshes = 0;
    const c = await client(clock, { auth: { bearer: ({ forceRefresh }) => (forceRefresh && ++refreshes, 'tok') } });
    const handle = await c.start('go');
    const error = await settle(clock, handle.done()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(calls.filter((m) => m === 'SubscribeToTask')).toHaveLength(2);
    expect(refreshes).toBe(1);
  });

  it('makes no request after detach, even with a reconnect pending', async () => {
    const clock = new ManualScheduler();
    prematureClose();
    handlers['SubscribeToTask'] = (_rpc, res) => res.destroy();
    const c = await client(clock);
    const handle = await c.start('go');
    await clock.advance(10);
    handle.detach();
    const before = calls.length;
    await clock.advance(10 * 60_000);
    expect(calls.length).toBe(before);
    expect(clock.pending).toBe(0);
  });
});

describe('recovery paths', () => {
  it('resumes a clean early close and never reports it as success', async () => {
    const clock = new ManualScheduler();
    handlers['SendStreamingMessage'] = (rpc, res) => sseOpen(res, [rpcFrame({ task: task('WORKING', []) }, rpc.id), chunkFrame('c1', false)], true);
    handlers['SubscribeToTask'] = (rpc, res) =>
      sseOpen(res, [rpcFrame({ task: task('WORKING', ['c1', 'c2'], 2) }, rpc.id), chunkFrame('c3', true, true), statusFrame('COMPLETED', 3)], true);
    handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', ['c1', 'c2', 'c3'], 3));
    const c = await client(clock);
    const handle = await c.start('go');
    const events = record(handle);
    const final = (await settle(clock, handle.done())) as Task;
    expect(final.status.state).toBe('completed');
    expect(rebuild(events)).toBe('c1c2c3');
    const statuses = events.flatMap((e) => (e.type === 'status' ? [e.state] : []));
    expect(statuses).toEqual(['working', 'completed']);
    expect(events.find((e) => e.type === 'connection' && e.state === 'reconnecting')).toMatchObject({ error: { code: 'STREAM_INTERRUPTED' } });
  });

  it('keepArtifacts: false — events still rebuild the artifact across a cut; the view keeps no parts; done() has the final snapshot', async () => {
    const clock = new ManualScheduler();
    handlers['SendStreamingMessage'] = (rpc, res) => sseOpen(res, [rpcFrame({ task: task('WORKING', []) }, rpc.id), chunkFrame('c1', false), chunkFrame('c2', true)], true);
    // The subscription replays the artifact from its start (a replay the digest must recognize), then goes on.
    handlers['SubscribeToTask'] = (rpc, res) =>
      sseOpen(res, [rpcFrame({ task: task('WORKING', ['c1', 'c2'], 2) }, rpc.id), chunkFrame('c1', false), chunkFrame('c2', true), chunkFrame('c3', true, true), statusFrame('COMPLETED', 3)], true);
    handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', ['c1', 'c2', 'c3'], 3));
    const c = await client(clock);
    const handle = await c.start('go', { keepArtifacts: false });
    const events = record(handle);
    const final = (await settle(clock, handle.done())) as Task;
    expect(rebuild(events)).toBe('c1c2c3');
    expect(events.filter((e) => e.type === 'artifact').flatMap((e) => (e.type === 'artifact' ? e.parts : []))).toEqual([text('c1'), text('c2'), text('c3')]);
    expect(handle.view.artifacts).toEqual([{ artifactId: 'a', parts: [] }]);
    expect(final.artifacts[0]?.parts).toEqual([text('c1'), text('c2'), text('c3')]);
  });

  it('falls back to polling when no subscription ever delivers an event', async () => {
    const clock = new ManualScheduler();
    let polls = 0;
    handlers['SendStreamingMessage'] = (rpc, res) => sseOpen(res, [rpcFrame({ task: task('WORKING', []) }, rpc.id)], true);
    handlers['SubscribeToTask'] = (_rpc, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"jsonrpc":"2.0","result":{"task":'); // cut inside the first event
      res.destroy();
    };
    handlers['GetTask'] = (rpc, res) => {
      polls++;
      rpcResult(res, rpc, polls < 3 ? task('WORKING', ['c1'], polls) : task('COMPLETED', ['c1', 'c2'], 9));
    };
    const c = await client(clock, { resilience: { emptyConnectionsBeforePolling: 3, pollMinMs: 100, pollMaxMs: 400 } });
    const handle = await c.start('go');
    const events = record(handle);
    const final = (await settle(clock, handle.done(), 100)) as Task;
    expect(final.status.state).toBe('completed');
    // The stream's early close, two subscriptions that each died before a whole event, then the
    // third: polling. (A subscription may die on a reused socket before the server logs it.)
    const connection = events.flatMap((e) => (e.type === 'connection' ? [`${e.state}:${e.error?.code ?? ''}`] : []));
    expect(connection).toEqual(['live:', 'reconnecting:STREAM_INTERRUPTED', 'reconnecting:NETWORK', 'reconnecting:NETWORK', 'polling:NETWORK', 'closed:']);
    expect(calls.filter((m) => m === 'GetTask').length).toBeGreaterThanOrEqual(3);
    expect(rebuild(events)).toBe('c1c2');
  });

  it('a send whose answer was lost is found with ListTasks, not sent again (the agent gets it once)', async () => {
    const clock = new ManualScheduler();
    const received: string[] = [];
    handlers['SendStreamingMessage'] = (rpc, res) => {
      received.push((rpc.params['message'] as { messageId: string }).messageId);
      res.destroy(); // the agent took it; the answer never arrives
    };
    handlers['ListTasks'] = (rpc, res) =>
      rpcResult(res, rpc, {
        tasks: [{ ...task('WORKING', ['c1'], 1), history: [{ messageId: received[0], role: 'ROLE_USER', parts: [{ text: 'go' }] }] }],
        nextPageToken: '',
        pageSize: 100,
        totalSize: 1,
      });
    handlers['SubscribeToTask'] = (rpc, res) => sseOpen(res, [rpcFrame({ task: task('WORKING', ['c1'], 1) }, rpc.id), chunkFrame('c2', true, true), statusFrame('COMPLETED', 2)], true);
    handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', ['c1', 'c2'], 2));
    const c = await client(clock);
    const handle = await settle(clock, c.start('go'));
    expect(handle.taskId).toBe(T);
    const final = (await settle(clock, handle.done())) as Task;
    expect(final.status.state).toBe('completed');
    expect(received).toHaveLength(1);
    expect(calls.filter((m) => m === 'SendStreamingMessage')).toHaveLength(1);
  });

  it('a send that surely never arrived is retried with the same message id', async () => {
    const clock = new ManualScheduler();
    const ids: string[] = [];
    let first = true;
    handlers['SendStreamingMessage'] = (rpc, res) => {
      ids.push((rpc.params['message'] as { messageId: string }).messageId);
      if (first) {
        first = false;
        res.writeHead(503, { 'retry-after': '1' }).end();
        return;
      }
      sseOpen(res, [rpcFrame({ task: task('COMPLETED', ['x']) }, rpc.id)], true);
    };
    const c = await client(clock);
    const handle = await settle(clock, c.start('go'));
    expect((await handle.done()).status.state).toBe('completed');
    expect(ids).toHaveLength(2);
    expect(ids[0]).toBe(ids[1]);
  });
});
