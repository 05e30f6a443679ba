import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RESILIENCE_DEFAULTS, TetherError, type Resend } from '../src/index.js';
import {
  agentMessage,
  CTX,
  record,
  rpcResult,
  startScriptedAgent,
  statusFrame,
  T,
  task,
  taskFrame,
  userMessage,
  within,
  type Rpc,
  type ScriptedAgent,
} from './helpers/scripted-agent.js';

// Issue 16: a send whose answer was lost is looked for within a time budget (`lostSendLookupMs`), not
// three looks in ~300 ms: an agent may store its task seconds after it took the message. Not found
// within the budget: DELIVERY_UNKNOWN, never a silent second send. Every send of a message again is
// reported to `onResend`.

let agent: ScriptedAgent;
beforeEach(async () => {
  agent = await startScriptedAgent();
});
afterEach(async () => {
  await agent.close();
});

/** The agent takes every creating send, drops the answer, and stores the task `createAfterMs` later (virtual time). */
function slowCreation(createAfterMs: number | undefined): { received: string[]; createdAt: () => number | undefined } {
  const received: string[] = [];
  let takenAt: number | undefined;
  agent.handlers['SendStreamingMessage'] = (rpc, res) => {
    received.push(userMessage(rpc).messageId);
    takenAt ??= agent.clock.now();
    res.destroy(); // the answer is lost
  };
  const created = (): boolean => takenAt !== undefined && createAfterMs !== undefined && agent.clock.now() >= takenAt + createAfterMs;
  const history = (): unknown[] => [{ messageId: received[0], role: 'ROLE_USER', parts: [{ text: 'go' }] }];
  agent.handlers['ListTasks'] = (rpc, res) =>
    rpcResult(res, rpc, created() ? { tasks: [{ ...task('WORKING', 1), history: history() }], nextPageToken: '', pageSize: 100, totalSize: 1 } : { tasks: [], nextPageToken: '', pageSize: 100, totalSize: 0 });
  agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1)), statusFrame('COMPLETED', 2)], true);
  agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 2));
  return { received, createdAt: () => (takenAt === undefined || createAfterMs === undefined ? undefined : takenAt + createAfterMs) };
}

describe('a creating send whose answer was lost, on an agent that stores the task later', () => {
  it('is found by looking on for seconds (the task appears 4 s after the message): sent once, adopted', async () => {
    const { received } = slowCreation(4_000);
    const resends: Resend[] = [];
    const client = await agent.client();
    const handle = await within(agent.clock, client.start('go', { onResend: (r) => resends.push(r) }), 60_000, 100);
    expect(handle.taskId).toBe(T);
    expect(received).toHaveLength(1);
    expect(agent.count('SendStreamingMessage')).toBe(1);
    expect(resends).toEqual([]);
    expect((await within(agent.clock, handle.done())).status.state).toBe('completed');
    // Paced: the looks stay under the request-rate ceiling.
    expect(agent.worstWindow(RESILIENCE_DEFAULTS.requestWindowMs)).toBeLessThanOrEqual(RESILIENCE_DEFAULTS.maxRequestsPerWindow);
  });

  it('never appears: DELIVERY_UNKNOWN after lostSendLookupMs, nothing sent again, the looks paced', async () => {
    const { received } = slowCreation(undefined);
    const client = await agent.client({ resilience: { lostSendLookupMs: 20_000 } });
    const started = agent.clock.now();
    const error = await within(agent.clock, client.start('go'), 120_000, 100).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'DELIVERY_UNKNOWN', messageId: received[0], maybeDelivered: true });
    expect(received).toHaveLength(1);
    const took = agent.clock.now() - started;
    expect(took).toBeGreaterThanOrEqual(20_000);
    expect(took).toBeLessThanOrEqual(25_000);
    const looks = agent.count('ListTasks');
    expect(looks).toBeGreaterThanOrEqual(8); // it kept looking…
    expect(agent.worstWindow(RESILIENCE_DEFAULTS.requestWindowMs)).toBeLessThanOrEqual(RESILIENCE_DEFAULTS.maxRequestsPerWindow); // …under the ceiling
  });

  it('resendUnknownDeliveries: after the budget it is sent again with the same id, and onResend is told first', async () => {
    const { received } = slowCreation(undefined);
    let sendsWhenTold = -1;
    const resends: Resend[] = [];
    agent.handlers['SendStreamingMessage'] = (rpc, res) => {
      received.push(userMessage(rpc).messageId);
      if (received.length === 1) return void res.destroy();
      agent.sse(res, [taskFrame(task('COMPLETED', 2))], true);
    };
    const client = await agent.client({ resilience: { lostSendLookupMs: 5_000, resendUnknownDeliveries: true } });
    const handle = await within(
      agent.clock,
      client.start('go', {
        onResend: (r) => {
          sendsWhenTold = received.length;
          resends.push(r);
        },
      }),
      60_000,
      100,
    );
    expect((await within(agent.clock, handle.done())).status.state).toBe('completed');
    expect(received).toHaveLength(2);
    expect(received[1]).toBe(received[0]);
    expect(sendsWhenTold).toBe(1); // told before the second send left
    expect(resends).toHaveLength(1);
    expect(resends[0]).toMatchObject({ messageId: received[0], purpose: 'start', attempt: 2, reason: 'unknown', error: { code: 'NETWORK' } });
  });

  it('a send that surely never arrived (503) is sent again, and onResend is told (reason not-delivered)', async () => {
    const ids: string[] = [];
    agent.handlers['SendStreamingMessage'] = (rpc, res) => {
      ids.push(userMessage(rpc).messageId);
      if (ids.length === 1) return void res.writeHead(503, { 'retry-after': '1' }).end();
      agent.sse(res, [taskFrame(task('COMPLETED', 1))], true);
    };
    const resends: Resend[] = [];
    const client = await agent.client();
    const handle = await within(agent.clock, client.start('go', { onResend: (r) => resends.push(r) }));
    expect((await within(agent.clock, handle.done())).status.state).toBe('completed');
    expect(ids).toHaveLength(2);
    expect(resends).toEqual([expect.objectContaining({ messageId: ids[0], attempt: 2, reason: 'not-delivered', purpose: 'start' })]);
    expect(resends[0]?.error).toMatchObject({ code: 'HTTP_STATUS', status: 503 });
  });
});

describe('an agent whose clock is a year behind (found by the misbehaving-agent model check)', () => {
  it('its task is found: the lookup does not filter by this client\'s clock (statusTimestampAfter)', async () => {
    const received: string[] = [];
    agent.handlers['SendStreamingMessage'] = (rpc, res) => {
      received.push(userMessage(rpc).messageId);
      res.destroy();
    };
    const yearAgo = new Date(agent.clock.now() - 365 * 24 * 60 * 60_000).toISOString();
    const skewed = { ...task('WORKING', 1), status: { state: 'TASK_STATE_WORKING', timestamp: yearAgo }, history: [] as unknown[] };
    // As the official server does: statusTimestampAfter filters by the task's own (skewed) timestamp.
    agent.handlers['ListTasks'] = (rpc, res) => {
      const after = rpc.params['statusTimestampAfter'];
      const listed = typeof after === 'string' && yearAgo < after ? [] : [{ ...skewed, history: [{ messageId: received[0], role: 'ROLE_USER', parts: [{ text: 'go' }] }] }];
      rpcResult(res, rpc, { tasks: listed, nextPageToken: '', pageSize: 100, totalSize: listed.length });
    };
    agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [taskFrame(skewed), statusFrame('COMPLETED', 2)], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 2));
    const client = await agent.client();
    const handle = await within(agent.clock, client.start('go'), 60_000, 100);
    expect(handle.taskId).toBe(T);
    expect(received).toHaveLength(1);
    expect(agent.count('ListTasks')).toBe(1);
    expect((await within(agent.clock, handle.done())).status.state).toBe('completed');
  });
});

describe('a reply whose answer was lost', () => {
  it('is found in the task history once the agent records it (3 s later), not sent again', async () => {
    let stream: ServerResponse | undefined;
    const replies: string[] = [];
    let takenAt: number | undefined;
    agent.handlers['SendStreamingMessage'] = (rpc: Rpc, res) => {
      if (userMessage(rpc).taskId === undefined) {
        stream = res;
        return agent.sse(res, [taskFrame(task('INPUT_REQUIRED', 1, { message: agentMessage('q', 'which one?') }))], true);
      }
      replies.push(userMessage(rpc).messageId);
      takenAt ??= agent.clock.now();
      res.destroy();
    };
    const history = (): unknown[] =>
      takenAt !== undefined && agent.clock.now() >= takenAt + 3_000 ? [{ messageId: replies[0], role: 'ROLE_USER', taskId: T, contextId: CTX, parts: [{ text: 'b' }] }] : [];
    agent.handlers['GetTask'] = (rpc, res) =>
      rpcResult(res, rpc, history().length > 0 ? { ...task('WORKING', 5), history: history() } : { ...task('INPUT_REQUIRED', 1, { message: agentMessage('q', 'which one?') }) });
    agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 5)), statusFrame('COMPLETED', 6)], true);
    const resends: Resend[] = [];
    const client = await agent.client();
    const handle = await within(agent.clock, client.start('go', { onResend: (r) => resends.push(r) }));
    const events = record(handle);
    await agent.clock.advance(10);
    expect(stream).toBeDefined();
    expect(handle.view.state).toBe('input-required');
    await within(agent.clock, handle.reply('b'), 60_000, 100);
    expect(replies).toHaveLength(1);
    expect(resends).toEqual([]);
    expect((await within(agent.clock, handle.done())).status.state).toBe('completed');
    expect(events.some((e) => e.type === 'status' && e.state === 'working')).toBe(true);
  });
});
