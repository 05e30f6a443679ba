import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { A2AError, MemoryTaskStore, RESILIENCE_DEFAULTS, type TaskEvent, type TaskRecord, type TaskStore } from '../src/index.js';
import { rpcFrame } from './helpers/scripted-server.js';
import {
  chunkFrame,
  connections,
  CTX,
  errorFrame,
  rebuild,
  record,
  rpcResult,
  startScriptedAgent,
  statuses,
  statusFrame,
  T,
  task,
  taskFrame,
  within,
  type ScriptedAgent,
} from './helpers/scripted-agent.js';

// Issue 16, the engine findings: a silent subscription is probed early, a failed follow makes
// `events()` throw, content after the terminal status is kept, `done()` waits for the last record
// write, and `connection: live` comes first. Every test runs on the manual clock.

let agent: ScriptedAgent;
beforeEach(async () => {
  agent = await startScriptedAgent();
});
afterEach(async () => {
  await agent.close();
});

/** Reads every event until the loop ends; what it threw, if anything. */
async function drain(iterable: AsyncIterable<TaskEvent>): Promise<{ events: TaskEvent[]; thrown: unknown }> {
  const events: TaskEvent[] = [];
  try {
    for await (const e of iterable) events.push(e);
  } catch (error) {
    return { events, thrown: error };
  }
  return { events, thrown: undefined };
}

describe('connection: live comes first', () => {
  it("the send's stream says live before the first status and artifact events", async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) =>
      agent.sse(res, [taskFrame(task('WORKING', 1)), chunkFrame('c1', false), statusFrame('WORKING', 2, { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } })], false);
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    await agent.clock.advance(10);
    expect(events.map((e) => e.type).slice(0, 3)).toEqual(['connection', 'status', 'artifact']);
    expect(events[0]).toEqual({ type: 'connection', state: 'live' });
    expect(connections(events)).toEqual(['live']);
    handle.detach();
  });
});

describe('a failed follow makes events() throw', () => {
  it('an in-stream A2A error: the loop throws that error after the last event (closed)', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1)), chunkFrame('c1', false), errorFrame(-32603, 'the model crashed')], true);
    const client = await agent.client();
    const handle = await client.start('go');
    const { events, thrown } = await within(agent.clock, drain(handle.events()));
    expect(thrown).toBeInstanceOf(A2AError);
    expect(thrown).toMatchObject({ a2aCode: -32603 });
    expect(events.at(-1)).toMatchObject({ type: 'connection', state: 'closed' });
    expect(rebuild(events)).toBe('c1');
    // The same error from done(), and a later reader sees the same end.
    await expect(handle.done()).rejects.toBe(thrown);
    expect((await drain(handle.events())).thrown).toBe(thrown);
  });

  it('detach() ends the loop quietly (stop watching is not a failure); done() rejects with ABORTED', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    const client = await agent.client();
    const handle = await client.start('go');
    const reading = drain(handle.events());
    await agent.clock.advance(10);
    handle.detach();
    const { events, thrown } = await within(agent.clock, reading);
    expect(thrown).toBeUndefined();
    expect(events.at(-1)).toEqual({ type: 'connection', state: 'closed' });
    await expect(handle.done()).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('content after the terminal status', () => {
  it('an artifact sent after the completed status is applied before it, and done() carries it', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) =>
      agent.sse(res, [taskFrame(task('WORKING', 1)), statusFrame('COMPLETED', 2), chunkFrame('late', false, true)], true);
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(final.artifacts).toEqual([{ artifactId: 'a', parts: [{ kind: 'text', text: 'late' }] }]);
    expect(rebuild(events)).toBe('late');
    // G2: the terminal status is the last task event the app sees.
    const kinds = events.filter((e) => e.type !== 'connection').map((e) => (e.type === 'status' ? e.state : e.type));
    expect(kinds).toEqual(['working', 'artifact', 'completed']);
    expect(events.at(-1)).toEqual({ type: 'connection', state: 'closed' });
    expect(handle.view.artifacts).toEqual(final.artifacts);
  });

  it('v0.3, as an independent server sends it: status completed with final: true, then the artifact, then the end', async () => {
    const v03 = await startScriptedAgent('0.3');
    try {
      v03.handlers['message/stream'] = (_rpc, res) =>
        v03.sse(
          res,
          [
            rpcFrame({ kind: 'task', id: T, contextId: CTX, status: { state: 'working' } }),
            rpcFrame({ kind: 'status-update', taskId: T, contextId: CTX, status: { state: 'completed' }, final: true }),
            rpcFrame({ kind: 'artifact-update', taskId: T, contextId: CTX, artifact: { artifactId: 'answer', parts: [{ kind: 'text', text: 'the answer' }] }, lastChunk: true }),
          ],
          true,
        );
      const client = await v03.client();
      const handle = await client.start('go');
      const events = record(handle);
      const final = await within(v03.clock, handle.done());
      expect(final.artifacts).toEqual([{ artifactId: 'answer', parts: [{ kind: 'text', text: 'the answer' }] }]);
      expect(events.filter((e) => e.type !== 'connection').map((e) => (e.type === 'status' ? e.state : e.type))).toEqual(['working', 'artifact', 'completed']);
    } finally {
      await v03.close();
    }
  });

  it('in separate network chunks after a terminal Task snapshot too', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      agent.sse(res, [taskFrame(task('WORKING', 1)), taskFrame(task('COMPLETED', 2))], false);
      setTimeout(() => res.end(chunkFrame('late', false, true)), 20);
    };
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    const final = await within(agent.clock, handle.done(), 60_000, 10);
    expect(final.artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'late' }]);
    expect(statuses(events)).toEqual(['working', 'completed']);
    expect(events.findIndex((e) => e.type === 'artifact')).toBeLessThan(events.findIndex((e) => e.type === 'status' && e.state === 'completed'));
  });

  it('a stream left open after the terminal status is read for at most terminalDrainMs', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1)), statusFrame('COMPLETED', 2)], false);
    const client = await agent.client({ resilience: { terminalDrainMs: 2_000 } });
    const handle = await client.start('go');
    const started = agent.clock.now();
    const final = await within(agent.clock, handle.done(), 60_000, 100);
    expect(final.status.state).toBe('completed');
    expect(agent.clock.now() - started).toBeLessThanOrEqual(2_100);
    expect(agent.calls.map((c) => c.method)).toEqual(['SendStreamingMessage']);
  });
});

describe('done() after the last record write', () => {
  /** A memory store whose updates wait until `release()` (the final write can be held). */
  function heldStore(): TaskStore & { records: MemoryTaskStore; hold(): void; release(): void } {
    const records = new MemoryTaskStore();
    let gate: Promise<void> | undefined;
    let open: (() => void) | undefined;
    return {
      records,
      hold() {
        gate = new Promise((resolve) => (open = resolve));
      },
      release() {
        open?.();
        gate = undefined;
      },
      get: (id) => records.get(id),
      put: (r: TaskRecord) => records.put(r),
      update: async (id, change) => {
        await gate;
        return records.update(id, change);
      },
      list: (filter) => records.list(filter),
      delete: (id) => records.delete(id),
    };
  }

  it('done() resolves only once the final record (state, outcome) is stored', async () => {
    const store = heldStore();
    let stream: ServerResponse | undefined;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      stream = res;
      agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    };
    const client = await agent.client({ store });
    const handle = await client.start('go');
    await agent.clock.advance(10);
    store.hold();
    stream?.end(chunkFrame('x', false, true) + statusFrame('COMPLETED', 2));
    let resolved = false;
    void handle.done().then(() => (resolved = true));
    await agent.clock.advance(2_000);
    expect(resolved).toBe(false);
    store.release();
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    // Right after done(): the record already says how the task ended, without flush().
    expect(await store.records.get(agent.key())).toMatchObject({ state: 'completed', outcome: { kind: 'finished', state: 'completed' } });
    const [listed] = await client.tasks();
    expect(listed).toMatchObject({ taskId: T, outcome: { kind: 'finished' } });
  });

  it('a failed follow rejects done() only once its error is recorded', async () => {
    const store = heldStore();
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1)), errorFrame(-32603, 'boom')], true);
    const client = await agent.client({ store });
    store.hold();
    const handle = await within(agent.clock, client.start('go'));
    let settled = false;
    handle.done().catch(() => (settled = true));
    await agent.clock.advance(2_000);
    expect(settled).toBe(false);
    store.release();
    await expect(within(agent.clock, handle.done())).rejects.toMatchObject({ a2aCode: -32603 });
    expect(await store.records.get(agent.key())).toMatchObject({ lastError: { code: 'A2A_ERROR' } });
  });

  it('the final write fails: done() still resolves with the task, after a store-error event; flush() rejects', async () => {
    const records = new MemoryTaskStore();
    let failUpdates = false;
    const store: TaskStore = {
      get: (id) => records.get(id),
      put: (r) => records.put(r),
      update: (id, change) => (failUpdates ? Promise.reject(new Error('disk full')) : records.update(id, change)),
      list: (filter) => records.list(filter),
      delete: (id) => records.delete(id),
    };
    let stream: ServerResponse | undefined;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      stream = res;
      agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    };
    const client = await agent.client({ store });
    const handle = await client.start('go');
    const reading = drain(handle.events());
    await agent.clock.advance(10);
    failUpdates = true;
    stream?.end(statusFrame('COMPLETED', 2));
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    const { events, thrown } = await within(agent.clock, reading);
    expect(thrown).toBeUndefined();
    expect(events.find((e) => e.type === 'store-error')).toMatchObject({ error: { code: 'STORE_WRITE_FAILED', taskId: T } });
    await expect(handle.flush()).rejects.toMatchObject({ code: 'STORE_WRITE_FAILED' });
  });
});

describe('a probe still asking when the subscription it watched opens', () => {
  it('is dropped with the opening: no probe runs on after the follow ended', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1, { chunks: ['c1'] }))], true);
    // The subscription's headers come only when the test says; the probe's GetTask is answered late.
    let subscription: ServerResponse | undefined;
    agent.handlers['SubscribeToTask'] = (_rpc, res) => {
      subscription = res;
    };
    const held: (() => void)[] = [];
    agent.handlers['GetTask'] = (rpc, res) => held.push(() => rpcResult(res, rpc, task('COMPLETED', 3, { chunks: ['c1', 'c2'] })));
    const client = await agent.client({ resilience: { idleProbeMs: 5_000 } });
    const handle = await client.start('go');
    for (let i = 0; i < 40 && held.length === 0; i++) await agent.clock.advance(100, 2);
    expect(agent.count('SubscribeToTask')).toBe(1);
    expect(held).toHaveLength(1); // the early probe of the silent opening is out
    // The subscription opens and ends the task; then the probe's answer arrives.
    agent.sse(subscription as ServerResponse, [taskFrame(task('COMPLETED', 3, { chunks: ['c1', 'c2'] }))], true);
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    for (const answer of held.splice(0)) answer();
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 3, { chunks: ['c1', 'c2'] }));
    const asked = agent.count('GetTask');
    for (let i = 0; i < 20; i++) await agent.clock.advance(5_000, 2);
    expect(agent.count('GetTask')).toBe(asked);
  });
});

describe('a subscription that stays silent after it opened (v1.0 promises a snapshot first)', () => {
  /** The send's stream ends early; every subscription answers headers and then nothing. */
  function silentSubscriptions(): ServerResponse[] {
    const subscriptions: ServerResponse[] = [];
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1, { chunks: ['c1'] }))], true);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => {
      subscriptions.push(res);
      agent.sse(res, [], false);
    };
    return subscriptions;
  }

  it('is probed after firstEventProbeMs: the task moved, so it reconnects — long before idleProbeMs', async () => {
    const subscriptions = silentSubscriptions();
    let moved = false;
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, moved ? task('WORKING', 3, { chunks: ['c1', 'c2'] }) : task('WORKING', 1, { chunks: ['c1'] }));
    const client = await agent.client({ resilience: { idleProbeMs: 30_000 } });
    const handle = await client.start('go');
    const events = record(handle);
    await agent.clock.advance(200);
    expect(agent.count('SubscribeToTask')).toBe(1);
    moved = true;
    const started = agent.clock.now();
    for (let i = 0; i < 100 && rebuild(events) !== 'c1c2'; i++) await agent.clock.advance(50, 2);
    expect(rebuild(events)).toBe('c1c2');
    const took = agent.clock.now() - started;
    expect(took).toBeLessThanOrEqual(RESILIENCE_DEFAULTS.firstEventProbeMs + 1_000);
    expect(took).toBeLessThan(30_000 / 10);
    expect(agent.count('GetTask')).toBeGreaterThanOrEqual(1);
    await agent.clock.advance(2_000);
    expect(agent.count('SubscribeToTask')).toBe(2); // the silent one was given up for a new one (itself in step)
    expect(subscriptions).toHaveLength(2);
    handle.detach();
  });

  it('a subscription whose response headers do not come is probed early too', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1, { chunks: ['c1'] }))], true);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => {
      // The first is never answered; the next one is.
      if (agent.count('SubscribeToTask') > 1) agent.sse(res, [taskFrame(task('WORKING', 3, { chunks: ['c1', 'c2'] }))], false);
    };
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 3, { chunks: ['c1', 'c2'] }));
    const client = await agent.client({ resilience: { idleProbeMs: 30_000 } });
    const handle = await client.start('go');
    const events = record(handle);
    const started = agent.clock.now();
    for (let i = 0; i < 100 && rebuild(events) !== 'c1c2'; i++) await agent.clock.advance(50, 2);
    expect(rebuild(events)).toBe('c1c2');
    expect(agent.clock.now() - started).toBeLessThanOrEqual(RESILIENCE_DEFAULTS.firstEventProbeMs + 1_000);
    handle.detach();
  });

  it('a probe that finds the task in step keeps the stream (no reconnect), and it delivers later', async () => {
    const subscriptions = silentSubscriptions();
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1, { chunks: ['c1'] }));
    const client = await agent.client({ resilience: { idleProbeMs: 30_000 } });
    const handle = await client.start('go');
    const events = record(handle);
    for (let i = 0; i < 20; i++) await agent.clock.advance(500, 2);
    expect(agent.count('SubscribeToTask')).toBe(1);
    expect(agent.count('GetTask')).toBe(1); // one early probe, then the normal idle window
    subscriptions[0]?.end(taskFrame(task('WORKING', 1, { chunks: ['c1'] })) + chunkFrame('c2', true, true) + statusFrame('COMPLETED', 4));
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 4, { chunks: ['c1', 'c2'] }));
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(rebuild(events)).toBe('c1c2');
    expect(agent.count('SubscribeToTask')).toBe(1);
  });
});
