import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualScheduler } from '@a2a-tether/testkit';
import { connect, type A2AClient, type ConnectOptions, type Task, type TaskEvent, type TaskHandle } from '../src/index.js';
import { json, rpcFrame, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

// Engine bugs found by the seeded chaos suite (packages/interop/src/chaos), each pinned here on a
// scripted agent with a manual clock.

type Rpc = { id: number; method: string; params: Record<string, unknown> };

let server: ScriptedServer;
let handlers: Record<string, (rpc: Rpc, res: ServerResponse) => void>;
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
    handler(rpc, res);
  });
});
afterEach(async () => {
  for (const res of open.splice(0)) res.destroy();
  await server.close();
});

const T = 'task-1';
const at = (n: number): string => new Date(1_700_000_000_000 + n).toISOString();
const agentMessage = (id: string, text: string) => ({ messageId: id, role: 'ROLE_AGENT', taskId: T, contextId: 'ctx', parts: [{ text }] });
const userMessage = (rpc: Rpc) => rpc.params['message'] as { messageId: string; taskId?: string };
const task = (state: string, n: number, extra: Record<string, unknown> = {}) => ({
  id: T,
  contextId: 'ctx',
  status: { state: `TASK_STATE_${state}`, timestamp: at(n), ...extra },
  artifacts: [] as unknown[],
});
const answerArtifact = { artifactId: 'answer', parts: [{ text: 'got: blue' }] };
const rpcResult = (res: ServerResponse, rpc: Rpc, result: unknown) => json(res, 200, { jsonrpc: '2.0', id: rpc.id, result });

function sseOpen(res: ServerResponse, frames: string[], end: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const f of frames) res.write(f);
  if (end) res.end();
  else open.push(res);
}

async function client(clock: ManualScheduler, extra: ConnectOptions = {}): Promise<A2AClient> {
  return connect(server.url, {
    cardCache: false,
    scheduler: clock,
    random: () => 0.5,
    ...extra,
    resilience: { idleProbeMs: 5_000, initialDelayMs: 1_000, maxDelayMs: 8_000, ...extra.resilience },
  });
}

/** Advances virtual time until the promise settles; fails if it is still pending after `withinMs`. */
async function within<T>(clock: ManualScheduler, promise: Promise<T>, withinMs = 60_000, stepMs = 500): Promise<T> {
  let pending = true;
  promise.then(
    () => (pending = false),
    () => (pending = false),
  );
  for (let waited = 0; waited < withinMs && pending; waited += stepMs) await clock.advance(stepMs, 2);
  if (pending) throw new Error(`still pending after ${withinMs} ms of virtual time`);
  return promise;
}

function record(handle: TaskHandle): TaskEvent[] {
  const events: TaskEvent[] = [];
  void (async () => {
    for await (const e of handle.events()) events.push(e);
  })().catch(() => undefined); // a failed follow throws after its last event: done() reports it
  return events;
}

describe('fixes found by the chaos suite', () => {
  // Chaos seed 1 (testkit and official agents, v1.0 and v0.3): a stall right after the headers of
  // the creating stream left `client.start()` pending forever — the idle probe only watched streams
  // the engine already followed, and without a first event there is no task id to probe.
  it('start(): a creating stream that opens but stays silent is given up after idleProbeMs; the task is found, not sent twice', async () => {
    const clock = new ManualScheduler();
    const sent: string[] = [];
    handlers['SendStreamingMessage'] = (rpc, res) => {
      sent.push(userMessage(rpc).messageId);
      sseOpen(res, [], false); // headers, then silence: a half-open connection
    };
    handlers['ListTasks'] = (rpc, res) =>
      rpcResult(res, rpc, {
        tasks: [{ ...task('WORKING', 1), history: [{ messageId: sent[0], role: 'ROLE_USER', parts: [{ text: 'go' }] }] }],
        nextPageToken: '',
        pageSize: 100,
        totalSize: 1,
      });
    handlers['SubscribeToTask'] = (rpc, res) => sseOpen(res, [rpcFrame({ task: task('WORKING', 1) }, rpc.id), rpcFrame({ task: task('COMPLETED', 2) })], true);
    handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 2));
    const c = await client(clock);
    const handle = await within(clock, c.start('go'));
    expect(handle.taskId).toBe(T);
    expect(((await within(clock, handle.done())) as Task).status.state).toBe('completed');
    expect(sent).toHaveLength(1);
  });

  // Chaos seed 7 (official v1.0 server, JSON-RPC and HTTP+JSON, `input` tasks): the SDK's reply
  // stream opens with the task as stored, still input-required; cut right after that event, the
  // engine took the clean end for "the agent waits for input" and parked for good while the agent
  // completed the task.
  it('reply(): a reply stream that only repeats the input-required snapshot before it ends is followed on to the end', async () => {
    const clock = new ManualScheduler();
    const need = agentMessage('m-need', 'need input');
    const replies: string[] = [];
    handlers['SendStreamingMessage'] = (rpc, res) => {
      const message = userMessage(rpc);
      if (message.taskId === undefined) {
        sseOpen(res, [rpcFrame({ task: task('SUBMITTED', 0) }, rpc.id), rpcFrame({ task: task('INPUT_REQUIRED', 1, { message: need }) }, rpc.id)], true);
        return;
      }
      replies.push(message.messageId);
      // The stale snapshot, then the connection ends before the `working` that followed it.
      sseOpen(res, [rpcFrame({ task: task('INPUT_REQUIRED', 1, { message: need }) }, rpc.id)], true);
    };
    const done = { ...task('COMPLETED', 4), artifacts: [answerArtifact] };
    handlers['SubscribeToTask'] = (rpc, res) => sseOpen(res, [rpcFrame({ task: done }, rpc.id)], true);
    handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, done);
    const c = await client(clock);
    const handle = await within(clock, c.start('input'));
    const events = record(handle);
    await within(clock, (async () => {
      while (handle.view.state !== 'input-required') await new Promise((resolve) => setTimeout(resolve, 1));
    })());
    await within(clock, handle.reply('blue'));
    const final = (await within(clock, handle.done())) as Task;
    expect(final.status.state).toBe('completed');
    expect(final.artifacts).toEqual([{ artifactId: 'answer', parts: [{ kind: 'text', text: 'got: blue' }] }]);
    expect(replies).toHaveLength(1);
    expect(calls).toContain('SubscribeToTask');
    const statuses = events.flatMap((e) => (e.type === 'status' ? [e.state] : []));
    expect(statuses).toEqual(['submitted', 'input-required', 'completed']);
  });

  // Chaos seed 7 (testkit agent, v1.0 JSON-RPC, `input` task): a resubscription stalled after its
  // input-required snapshot; the reply's answer (found after a lost send) showed the task completed,
  // but the engine kept reading the silent stream, its probe saw nothing "behind" a terminal state,
  // and done() never settled. The same happens when an agent holds the stream open at input-required.
  it('reply(): an answer that shows the task finished ends it, even while the engine still reads a stream held open', async () => {
    const clock = new ManualScheduler();
    const need = agentMessage('m-need', 'need input');
    const done = { ...task('COMPLETED', 4), artifacts: [answerArtifact] };
    handlers['SendStreamingMessage'] = (rpc, res) => {
      if (userMessage(rpc).taskId === undefined) {
        // Held open after input-required (as agents that keep streams open at interrupted states do).
        sseOpen(res, [rpcFrame({ task: task('SUBMITTED', 0) }, rpc.id), rpcFrame({ task: task('INPUT_REQUIRED', 1, { message: need }) }, rpc.id)], false);
        return;
      }
      sseOpen(res, [rpcFrame({ task: done }, rpc.id)], true); // a fast agent: finished by its first event
    };
    handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, done);
    const c = await client(clock);
    const handle = await within(clock, c.start('input'));
    const events = record(handle);
    await within(clock, (async () => {
      while (handle.view.state !== 'input-required') await new Promise((resolve) => setTimeout(resolve, 1));
    })());
    await within(clock, handle.reply('blue'));
    const final = (await within(clock, handle.done())) as Task;
    expect(final.status.state).toBe('completed');
    expect(final.artifacts).toEqual([{ artifactId: 'answer', parts: [{ kind: 'text', text: 'got: blue' }] }]);
    expect(events.flatMap((e) => (e.type === 'status' ? [e.state] : []))).toEqual(['submitted', 'input-required', 'completed']);
  });

  // Chaos seed 20000 (testkit agent with SSE ids, v1.0 JSON-RPC, an `input` task, 20,000-cut run):
  // the reply's answer was lost, and the three lookups meant to find it (GetTask with history) all
  // met injected 503/429s. "Could not look" was taken for "not delivered": the reply was sent again,
  // and the agent — which had taken the first one and completed — refused it, so reply() failed.
  it('reply(): lookups that fail transiently are repeated, not taken for "not delivered" (the reply is sent once)', async () => {
    const clock = new ManualScheduler();
    const need = agentMessage('m-need', 'need input');
    const replies: string[] = [];
    handlers['SendStreamingMessage'] = (rpc, res) => {
      const message = userMessage(rpc);
      if (message.taskId === undefined) {
        sseOpen(res, [rpcFrame({ task: task('SUBMITTED', 0) }, rpc.id), rpcFrame({ task: task('INPUT_REQUIRED', 1, { message: need }) }, rpc.id)], true);
        return;
      }
      replies.push(message.messageId);
      if (replies.length === 1) res.destroy(); // the agent took it; the answer never arrives
      else json(res, 200, { jsonrpc: '2.0', id: rpc.id, error: { code: -32004, message: `Task ${T} is completed; it accepts no more messages` } });
    };
    let gets = 0;
    handlers['GetTask'] = (rpc, res) => {
      if (++gets <= 4) {
        res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' }).end('busy');
        return;
      }
      const history = [{ messageId: 'm-user', role: 'ROLE_USER', parts: [{ text: 'input' }] }, need, { messageId: replies[0], role: 'ROLE_USER', parts: [{ text: 'blue' }] }];
      rpcResult(res, rpc, { ...task('COMPLETED', 4), artifacts: [answerArtifact], history });
    };
    const c = await client(clock);
    const handle = await within(clock, c.start('input'));
    await within(clock, (async () => {
      while (handle.view.state !== 'input-required') await new Promise((resolve) => setTimeout(resolve, 1));
    })());
    await within(clock, handle.reply('blue'));
    expect(replies).toHaveLength(1);
    expect(gets).toBeGreaterThanOrEqual(5);
    const final = (await within(clock, handle.done())) as Task;
    expect(final.status.state).toBe('completed');
    expect(final.artifacts).toEqual([{ artifactId: 'answer', parts: [{ kind: 'text', text: 'got: blue' }] }]);
  });

  it('reply(): when the lookups cannot be made within the retry budget, it fails RETRY_EXHAUSTED instead of sending twice', async () => {
    const clock = new ManualScheduler();
    const need = agentMessage('m-need', 'need input');
    const replies: string[] = [];
    handlers['SendStreamingMessage'] = (rpc, res) => {
      const message = userMessage(rpc);
      if (message.taskId === undefined) {
        sseOpen(res, [rpcFrame({ task: task('SUBMITTED', 0) }, rpc.id), rpcFrame({ task: task('INPUT_REQUIRED', 1, { message: need }) }, rpc.id)], true);
        return;
      }
      replies.push(message.messageId);
      res.destroy();
    };
    handlers['GetTask'] = (_rpc, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
    };
    const c = await client(clock, { resilience: { maxAttempts: 5 } });
    const handle = await within(clock, c.start('input'));
    await within(clock, (async () => {
      while (handle.view.state !== 'input-required') await new Promise((resolve) => setTimeout(resolve, 1));
    })());
    const error = await within(clock, handle.reply('blue').catch((e: unknown) => e));
    expect(error).toMatchObject({ code: 'RETRY_EXHAUSTED' });
    expect((error as Error).message).toMatch(/could not find out whether message .* was delivered/);
    expect(replies).toHaveLength(1);
  });

  // Chaos seed 7 (testkit agent with SSE ids, v0.3 and v1.0, both bindings): the creating stream was
  // cut right after its first event, whose SSE id start() had read; the resubscription went out
  // without Last-Event-ID, so an agent that resumes by id (and sends no snapshot then) sent only live
  // events: every status and chunk of the gap was skipped and the app saw appends with a hole in front.
  it('a stream cut right after the first event start() read resumes from that event\'s SSE id', async () => {
    const clock = new ManualScheduler();
    const withId = (seq: number, result: unknown, id: number): string => `id: ${T}:${seq}\n${rpcFrame(result, id)}`;
    handlers['SendStreamingMessage'] = (rpc, res) => sseOpen(res, [withId(1, { task: task('SUBMITTED', 0) }, rpc.id)], true);
    const lastEventIds: unknown[] = [];
    server.on('POST /rpc', (req, res) => {
      const rpc = JSON.parse(req.body) as Rpc;
      calls.push(rpc.method);
      if (rpc.method === 'SubscribeToTask') lastEventIds.push(req.headers['last-event-id']);
      handlers[rpc.method]?.(rpc, res);
    });
    const chunk = { artifactUpdate: { taskId: T, contextId: 'ctx', artifact: { artifactId: 'a', parts: [{ text: 'c1' }] }, append: false, lastChunk: true } };
    handlers['SubscribeToTask'] = (rpc, res) =>
      sseOpen(res, [withId(2, { statusUpdate: { taskId: T, contextId: 'ctx', status: { state: 'TASK_STATE_WORKING', timestamp: at(1) } } }, rpc.id), withId(3, chunk, rpc.id), withId(4, { statusUpdate: { taskId: T, contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED', timestamp: at(2) } } }, rpc.id)], true);
    handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, { ...task('COMPLETED', 2), artifacts: [{ artifactId: 'a', parts: [{ text: 'c1' }] }] });
    const c = await client(clock);
    const handle = await within(clock, c.start('go'));
    const events = record(handle);
    const final = (await within(clock, handle.done())) as Task;
    expect(final.status.state).toBe('completed');
    expect(lastEventIds[0]).toBe(`${T}:1`);
    expect(events.flatMap((e) => (e.type === 'status' ? [e.state] : []))).toEqual(['submitted', 'working', 'completed']);
  });
});
