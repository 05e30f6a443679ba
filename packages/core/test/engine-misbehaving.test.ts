import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { MemoryTaskStore, TetherError, UnsupportedOperationError, TaskNotFoundError, type Task, type TaskHandle, type TaskRecord, type TaskStore } from '../src/index.js';
import { rpcFrame } from './helpers/scripted-server.js';
import {
  CTX,
  T,
  agentMessage,
  at,
  chunkFrame,
  connections,
  errorFrame,
  rebuild,
  record,
  rpcError,
  rpcResult,
  startScriptedAgent,
  statusFrame,
  statuses,
  task,
  taskFrame,
  userMessage,
  within,
  type ScriptedAgent,
} from './helpers/scripted-agent.js';

// What was seen on the old engine (issue 6), each pinned on a scripted agent with a manual clock:
// an agent that misbehaves in one precise way per test.

let agent: ScriptedAgent;
beforeEach(async () => {
  agent = await startScriptedAgent();
});
afterEach(async () => {
  await agent.close();
});

describe('a new user on the official v1.0 server: the README loop', () => {
  it('answers each pause once: the reply stream opening with the answered pause (no message, new timestamp) is stale', async () => {
    const need = agentMessage('m-need', 'need input');
    const replies: string[] = [];
    agent.handlers['SendStreamingMessage'] = (rpc, res) => {
      const message = userMessage(rpc);
      if (message.taskId === undefined) {
        agent.sse(res, [taskFrame(task('SUBMITTED', 0)), statusFrame('WORKING', 1), statusFrame('INPUT_REQUIRED', 2, { message: need })], true);
        return;
      }
      replies.push(message.messageId);
      // As a typical executor on the official SDK does: the stored task, still at the pause, re-stamped and without its message.
      agent.sse(res, [taskFrame(task('INPUT_REQUIRED', 5)), statusFrame('WORKING', 6), chunkFrame('got: blue', false, true), statusFrame('COMPLETED', 7)], true);
    };
    const client = await agent.client();
    const handle = await client.start('input');
    let answered = 0;
    const reading = (async () => {
      for await (const event of handle.events()) {
        if (event.type === 'status' && event.state === 'input-required') {
          answered++;
          await handle.reply('blue');
        }
      }
    })();
    const final = await within(agent.clock, handle.done());
    await reading;
    expect(answered).toBe(1);
    expect(replies).toHaveLength(1);
    expect(final.status.state).toBe('completed');
    expect(final.artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'got: blue' }]);
  });

  it('done() is typed Task: the common path compiles without a cast', () => {
    type Done = Awaited<ReturnType<TaskHandle['done']>>;
    expectTypeOf<Done>().toEqualTypeOf<Task>();
    expectTypeOf<Done['artifacts']>().toEqualTypeOf<Task['artifacts']>();
  });
});

describe('an A2A error inside a stream is an error', () => {
  it('ends the follow with that typed error (not polling forever)', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) =>
      agent.sse(res, [taskFrame(task('WORKING', 1)), chunkFrame('c1', false), errorFrame(-32004, 'this task cannot go on')], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1, { chunks: ['c1'] }));
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    const error = await within(agent.clock, handle.done()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedOperationError);
    expect((error as UnsupportedOperationError).inStream).toBe(true);
    expect(agent.count('GetTask')).toBe(0);
    expect(agent.count('SubscribeToTask')).toBe(0);
    expect(connections(events).at(-1)).toBe('closed');
  });

  it('a subscription refused by an error frame before any event is "cannot subscribe": GetTask decides', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], true);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [errorFrame(-32004, 'task is finished')], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 2, { chunks: ['done'] }));
    const client = await agent.client();
    const handle = await client.start('go');
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(agent.count('SubscribeToTask')).toBe(1);
  });
});

describe('a subscription refused with an error that is not "cannot subscribe" (issue 33: -32602 from a reference server)', () => {
  it('GetTask decides: a running task is polled, a stream tried again later (waits doubling), and it ends exact', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1, { chunks: ['c1'] }))], true);
    agent.handlers['SubscribeToTask'] = (rpc, res) => rpcError(res, rpc, -32602, 'Task is in terminal state');
    const t0 = agent.clock.now();
    agent.handlers['GetTask'] = (rpc, res) =>
      rpcResult(res, rpc, agent.clock.now() - t0 < 40_000 ? task('WORKING', 1, { chunks: ['c1'] }) : task('COMPLETED', 2, { chunks: ['c1', 'c2'] }));
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(rebuild(events)).toBe('c1c2');
    const tries = agent.calls.filter((c) => c.method === 'SubscribeToTask').map((c) => c.at);
    // Tried again while polling, each wait longer than the one before.
    expect(tries.length).toBeGreaterThanOrEqual(3);
    const waits = tries.slice(1).map((t, i) => t - (tries[i] as number));
    for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThan(waits[i - 1] as number);
    expect(agent.worstWindow()).toBeLessThanOrEqual(20);
  });

  it('a task that never moves ends RETRY_EXHAUSTED on the quiet budget, not looping (a refusal is not progress)', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], true);
    agent.handlers['SubscribeToTask'] = (rpc, res) => rpcError(res, rpc, -32603, 'Internal error');
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    const client = await agent.client({ resilience: { maxQuietMs: 60_000, streamRetryMs: 2_000, pollMaxMs: 5_000 } });
    const handle = await client.start('go');
    const error = await within(agent.clock, handle.done(), 90_000, 500).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RETRY_EXHAUSTED', taskId: T });
    // 2 s doubling within the 60 s quiet budget: a handful of tries (at ~2, 6, 14, 30 s), never a spin.
    expect(agent.count('SubscribeToTask')).toBeGreaterThanOrEqual(3);
    expect(agent.count('SubscribeToTask')).toBeLessThanOrEqual(6);
    expect(agent.worstWindow()).toBeLessThanOrEqual(20);
  }, 30_000);
});

describe('a terminal state is never lost to deduplication', () => {
  it('after a status with a clock-skewed future timestamp', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) =>
      agent.sse(
        res,
        [
          taskFrame(task('WORKING', 1)),
          statusFrame('WORKING', 0, { message: agentMessage('s1', 'step'), timestamp: '2099-01-01T00:00:00.000Z' }),
          chunkFrame('c1', false, true),
          statusFrame('COMPLETED', 3),
        ],
        true,
      );
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(statuses(events)).toEqual(['working', 'working', 'completed']);
    expect(agent.calls.filter((c) => c.method !== 'SendStreamingMessage')).toEqual([]);
  });

  it('when the agent reuses one status message id for every status (the terminal one included)', async () => {
    const same = (text: string) => agentMessage('one-id', text);
    agent.handlers['SendStreamingMessage'] = (_rpc, res) =>
      agent.sse(
        res,
        [taskFrame(task('WORKING', 1, { message: same('a') })), statusFrame('WORKING', 2, { message: same('ab') }), statusFrame('COMPLETED', 3, { message: same('abc') })],
        true,
      );
    const client = await agent.client();
    const handle = await client.start('go');
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(final.status.message?.parts).toEqual([{ kind: 'text', text: 'abc' }]);
    expect(agent.calls).toHaveLength(1);
  });

  it('the GetTask snapshot that shows the end is taken, and a refused resubscribe does not spin', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) =>
      agent.sse(res, [taskFrame(task('WORKING', 1, { message: agentMessage('s1', 'one') })), statusFrame('WORKING', 2, { message: agentMessage('s1', 'one') })], true);
    agent.handlers['SubscribeToTask'] = (rpc, res) => rpcError(res, rpc, -32004, 'finished');
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 1, { message: agentMessage('s1', 'one') }));
    const client = await agent.client();
    const handle = await client.start('go');
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(agent.count('SubscribeToTask')).toBe(1);
    expect(agent.count('GetTask')).toBeLessThanOrEqual(2);
  });
});

describe('identity: events of another task are never applied', () => {
  it('the engine treats a foreign event as a gap and settles it with GetTask', async () => {
    let sends = 0;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      sends++;
      agent.sse(
        res,
        [taskFrame(task('WORKING', 1)), chunkFrame('mine', false), rpcFrame({ statusUpdate: { taskId: 'other', contextId: 'elsewhere', status: { state: 'TASK_STATE_COMPLETED' } } }), chunkFrame('FOREIGN', false, true, 'other')],
        true,
      );
    };
    agent.handlers['SubscribeToTask'] = (_rpc, res) =>
      agent.sse(res, [taskFrame(task('WORKING', 2, { chunks: ['mine'] })), chunkFrame(' and more', true, true), statusFrame('COMPLETED', 3)], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 3, { chunks: ['mine', ' and more'] }));
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(JSON.stringify(events)).not.toContain('FOREIGN');
    expect(JSON.stringify(final)).not.toContain('FOREIGN');
    expect(rebuild(events)).toBe('mine and more');
    expect(sends).toBe(1);
  });

  it('a raw streamMessage() fails with PROTOCOL_VIOLATION instead of ending as another task\'s success', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) =>
      agent.sse(res, [taskFrame(task('WORKING', 1)), statusFrame('COMPLETED', 2, { taskId: 'other' })], true);
    const client = await agent.client();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of client.streamMessage('go')) seen.push(event.kind);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['task']);
    expect(error).toMatchObject({ code: 'PROTOCOL_VIOLATION' });
  });

  it('JSON-RPC response ids are checked', async () => {
    agent.handlers['GetTask'] = (_rpc, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 999_999, result: task('WORKING', 1) }));
    const client = await agent.client();
    await expect(client.getTask(T)).rejects.toMatchObject({ code: 'INVALID_RESPONSE', message: expect.stringContaining('does not match the request id') });
  });
});

describe('progress means the task moved', () => {
  it('an agent that replays the same snapshot and closes is not reconnected forever; the ceiling holds', async () => {
    let done = false;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1, { chunks: ['c1'] }))], true);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [taskFrame(task(done ? 'COMPLETED' : 'WORKING', 1, { chunks: ['c1'] }))], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task(done ? 'COMPLETED' : 'WORKING', 1, { chunks: ['c1'] }));
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    // Two virtual minutes of an agent that never moves: futile streams, then polling at a falling cadence.
    for (let i = 0; i < 480; i++) await agent.clock.advance(250, 1);
    // Three futile streams, then polling with tries to stream again at 5, 10, 20, 40 … s (streamRetryMs doubling).
    expect(agent.count('SubscribeToTask')).toBeGreaterThanOrEqual(3);
    expect(agent.count('SubscribeToTask')).toBeLessThanOrEqual(3 + 5);
    expect(agent.worstWindow()).toBeLessThanOrEqual(20);
    expect(connections(events)).toContain('polling');
    done = true;
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
  });

  it('polling is a fallback, not a trap: after a short outage it returns to streaming', async () => {
    let outage = true;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1)), chunkFrame('c1', false)], true);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => {
      if (outage) {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
        return;
      }
      agent.sse(res, [taskFrame(task('WORKING', 2, { chunks: ['c1'] })), chunkFrame('c2', true)], false);
    };
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1, { chunks: ['c1'] }));
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    for (let i = 0; i < 40; i++) await agent.clock.advance(250, 1);
    expect(connections(events)).toContain('polling');
    outage = false;
    for (let i = 0; i < 240; i++) await agent.clock.advance(500, 1);
    expect(connections(events).at(-1)).toBe('live');
    expect(rebuild(events)).toBe('c1c2');
    const getsBefore = agent.count('GetTask');
    for (let i = 0; i < 40; i++) await agent.clock.advance(1_000, 1);
    // Back on a live stream: no more polling (only the idle probe, every 30 s).
    expect(agent.count('GetTask') - getsBefore).toBeLessThanOrEqual(2);
    handle.detach();
  });

  it("delivery: 'poll' is the app's choice, not a fallback: a streaming agent's task is polled to the end, never streamed", async () => {
    let polls = 0;
    agent.handlers['SendMessage'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, ++polls < 12 ? task('WORKING', 1) : task('COMPLETED', 2, { chunks: ['c1'] }));
    const client = await agent.client();
    const handle = await client.start('go', { delivery: 'poll' });
    const events = record(handle);
    // Far past streamRetryMs (5 s), with every stream slot free.
    while (polls < 12) await agent.clock.advance(1_000, 1);
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(agent.count('SubscribeToTask') + agent.count('SendStreamingMessage')).toBe(0);
    expect(connections(events)).not.toContain('live');
  });
});

describe('sends', () => {
  it('a start() whose stream never gets response headers is looked for, then DELIVERY_UNKNOWN: never sent again (issue 16)', async () => {
    const sent: string[] = [];
    agent.handlers['SendStreamingMessage'] = (rpc) => sent.push(userMessage(rpc).messageId); // never answers
    agent.handlers['ListTasks'] = (rpc, res) => rpcResult(res, rpc, { tasks: [], nextPageToken: '', pageSize: 0, totalSize: 0 });
    const client = await agent.client({ resilience: { idleProbeMs: 5_000 } });
    const error = await within(agent.clock, client.start('go'), 10 * 60_000, 1_000).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'DELIVERY_UNKNOWN', messageId: sent[0], message: expect.stringContaining('lostSendLookupMs') });
    expect(sent).toHaveLength(1);
    // Looked for the whole budget (not three looks in 300 ms), under the request-rate ceiling.
    expect(agent.count('ListTasks')).toBeGreaterThanOrEqual(10);
    expect(agent.worstWindow()).toBeLessThanOrEqual(20);
  });

  it('v0.3: a creating send whose answer was lost is not sent again (DELIVERY_UNKNOWN); resendUnknownDeliveries re-sends it', async () => {
    const v03 = await startScriptedAgent('0.3');
    try {
      const sent: string[] = [];
      v03.handlers['message/stream'] = (rpc, res) => {
        sent.push(userMessage(rpc).messageId);
        if (sent.length === 1) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.flushHeaders();
          res.destroy(); // cut before the first event: did the agent create the task?
          return;
        }
        v03.sse(res, [rpcFrame({ kind: 'task', id: T, contextId: CTX, status: { state: 'completed' } })], true);
      };
      const client = await v03.client();
      const error = await within(v03.clock, client.start('go')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TetherError);
      expect(error).toMatchObject({ code: 'DELIVERY_UNKNOWN', messageId: sent[0] });
      expect(sent).toHaveLength(1);
      const resending = await v03.client({ resilience: { resendUnknownDeliveries: true } });
      sent.length = 0;
      const handle = await within(v03.clock, resending.start('go'));
      expect((await within(v03.clock, handle.done())).status.state).toBe('completed');
      expect(sent).toHaveLength(2);
      expect(sent[0]).toBe(sent[1]);
    } finally {
      await v03.close();
    }
  });

  it('an unreadable first event is never a reason to send the message again', async () => {
    let sends = 0;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      sends++;
      agent.sse(res, ['data: {"jsonrpc":"2.0","id":"$rpc-id","result":{not json\n\n'], true);
    };
    const client = await agent.client();
    const error = await within(agent.clock, client.start('go')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MALFORMED_EVENT' });
    expect(sends).toBe(1);
  });
});

describe('reconnecting: catch-up, budgets, delays', () => {
  it('v0.3: a subscription without a snapshot waits for a GetTask catch-up before its live events (no hole)', async () => {
    const v03 = await startScriptedAgent('0.3');
    try {
      const frame = (result: unknown): string => rpcFrame(result);
      const part = (text: string) => ({ kind: 'text', text });
      const chunk = (text: string, append: boolean, last = false) =>
        frame({ kind: 'artifact-update', taskId: T, contextId: CTX, artifact: { artifactId: 'a', parts: [part(text)] }, append, lastChunk: last });
      v03.handlers['message/stream'] = (_rpc, res) =>
        v03.sse(res, [frame({ kind: 'task', id: T, contextId: CTX, status: { state: 'working' } }), chunk('c1', false)], true);
      // c2 was emitted while no stream was open; the subscription starts with the next live chunk.
      v03.handlers['tasks/resubscribe'] = (_rpc, res) =>
        v03.sse(res, [chunk('c3', true, true), frame({ kind: 'status-update', taskId: T, contextId: CTX, status: { state: 'completed' }, final: true })], true);
      v03.handlers['tasks/get'] = (rpc, res) =>
        rpcResult(res, rpc, { kind: 'task', id: T, contextId: CTX, status: { state: 'working' }, artifacts: [{ artifactId: 'a', parts: [part('c1'), part('c2')] }] });
      const client = await v03.client();
      const handle = await client.start('go');
      const shown: string[] = [];
      const reading = (async () => {
        let text = '';
        for await (const e of handle.events()) {
          if (e.type !== 'artifact') continue;
          text = (e.append ? text : '') + e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
          shown.push(text);
        }
      })();
      await within(v03.clock, handle.done());
      await reading;
      expect(shown.at(-1)).toBe('c1c2c3');
      // Every state the app showed is a prefix of the artifact: c3 never appeared before c2.
      for (const text of shown) expect('c1c2c3'.startsWith(text), `showed ${text}`).toBe(true);
    } finally {
      await v03.close();
    }
  });

  it('v0.3: a late catch-up of an ended subscription never interrupts the reply that follows it (chaos seed 20000)', async () => {
    // Found by `pnpm chaos --cuts 20000 --seed 20000`: the catch-up GetTask a subscription started ran on
    // after the subscription ended; its answer (the task completed by the reply) aborted the reply's own
    // lookup, and reply() rejected with ABORTED although the agent had taken it.
    const v03 = await startScriptedAgent('0.3');
    try {
      const part = (text: string) => ({ kind: 'text', text });
      let replyId = '';
      const history = (): unknown[] => [{ kind: 'message', role: 'user', messageId: replyId, taskId: T, contextId: CTX, parts: [part('blue')] }];
      const completed = () => ({ kind: 'task', id: T, contextId: CTX, status: { state: 'completed' }, artifacts: [{ artifactId: 'a', parts: [part('got: blue')] }], history: history() });
      const pausedTask = { kind: 'task', id: T, contextId: CTX, status: { state: 'input-required', message: { kind: 'message', role: 'agent', messageId: 'q', parts: [part('need input')] } } };
      let held: (() => void) | undefined;
      let gets = 0;
      v03.handlers['message/stream'] = (rpc, res) => {
        const message = userMessage(rpc);
        if (message.taskId === undefined) {
          // The creating send: the task, then a clean early end.
          v03.sse(res, [rpcFrame({ kind: 'task', id: T, contextId: CTX, status: { state: 'working' } })], true);
          return;
        }
        // The reply: the agent takes it (the task completes), but its stream is cut before any event.
        replyId = message.messageId;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
        res.destroy();
        held?.();
      };
      // The subscription opens with the paused task and ends there.
      v03.handlers['tasks/resubscribe'] = (_rpc, res) => v03.sse(res, [rpcFrame(pausedTask)], true);
      v03.handlers['tasks/get'] = (rpc, res) => {
        gets++;
        // The subscription's catch-up is slow: it answers only after the reply arrived.
        if (gets === 1 && replyId === '') held = () => rpcResult(res, rpc, completed());
        else rpcResult(res, rpc, replyId === '' ? pausedTask : completed());
      };
      const client = await v03.client();
      const handle = await within(v03.clock, client.start('input'));
      const replies: string[] = [];
      const reading = (async () => {
        for await (const event of handle.events()) {
          if (event.type === 'status' && event.state === 'input-required') {
            replies.push('blue');
            await handle.reply('blue');
          }
        }
      })();
      const final = await within(v03.clock, handle.done());
      await within(v03.clock, reading);
      expect(final.status.state).toBe('completed');
      expect(replies).toEqual(['blue']);
      expect(v03.calls.filter((c) => c.method === 'message/stream')).toHaveLength(2);
    } finally {
      await v03.close();
    }
  });

  it('v0.3: the end arrives live after a gap that a stale catch-up hid: the recovered content comes before the terminal status (misbehave seed 20261130 #3936)', async () => {
    const v03 = await startScriptedAgent('0.3');
    try {
      const part = (text: string) => ({ kind: 'text', text });
      let gets = 0;
      v03.handlers['message/stream'] = (_rpc, res) => v03.sse(res, [rpcFrame({ kind: 'task', id: T, contextId: CTX, status: { state: 'working' } })], true);
      // While no stream was open the agent wrote the artifact; the subscription only carries what follows.
      v03.handlers['tasks/resubscribe'] = (_rpc, res) =>
        v03.sse(
          res,
          [
            rpcFrame({ kind: 'status-update', taskId: T, contextId: CTX, status: { state: 'working', message: { kind: 'message', role: 'agent', messageId: 's2', parts: [part('step 2')] } } }),
            rpcFrame({ kind: 'status-update', taskId: T, contextId: CTX, status: { state: 'completed' }, final: true }),
          ],
          true,
        );
      // The catch-up GetTask is stale (an older view, without the artifact); the final check is true.
      v03.handlers['tasks/get'] = (rpc, res) =>
        rpcResult(res, rpc, ++gets === 1 ? { kind: 'task', id: T, contextId: CTX, status: { state: 'working' } } : { kind: 'task', id: T, contextId: CTX, status: { state: 'completed' }, artifacts: [{ artifactId: 'a', parts: [part('chunk-1;')] }] });
      const client = await v03.client();
      const handle = await client.start('go');
      const events = record(handle);
      const final = await within(v03.clock, handle.done());
      await v03.clock.advance(10);
      expect(final.artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'chunk-1;' }]);
      const end = events.findIndex((e) => e.type === 'status' && e.state === 'completed');
      const artifact = events.findIndex((e) => e.type === 'artifact');
      expect(artifact).toBeGreaterThanOrEqual(0);
      expect(artifact).toBeLessThan(end);
      expect(events.slice(end + 1).map((e) => (e.type === 'connection' ? e.state : e.type))).toEqual(['closed']);
    } finally {
      await v03.close();
    }
  });

  it('progress refills the budget: more cuts than maxAttempts, each after new content, still finish', async () => {
    let delivered = 1;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1)), chunkFrame('c1', false)], true);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => {
      const chunks = Array.from({ length: delivered }, (_, i) => `c${i + 1}`);
      delivered++;
      const frames = [taskFrame(task('WORKING', delivered, { chunks })), chunkFrame(`c${delivered}`, true, delivered === 8)];
      if (delivered === 8) frames.push(statusFrame('COMPLETED', 99));
      agent.sse(res, frames, true); // one new chunk, then a clean early close
    };
    agent.handlers['GetTask'] = (rpc, res) =>
      rpcResult(res, rpc, task('COMPLETED', 99, { chunks: Array.from({ length: 8 }, (_, i) => `c${i + 1}`) }));
    const client = await agent.client({ resilience: { maxAttempts: 2, initialDelayMs: 100 } });
    const handle = await client.start('go');
    const events = record(handle);
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(agent.count('SubscribeToTask')).toBe(7);
    expect(rebuild(events)).toBe('c1c2c3c4c5c6c7c8');
  });

  it('waits the backoff delay before resubscribing (full jitter: random 0.5 of a 1,000 ms ceiling)', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], true);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [taskFrame(task('COMPLETED', 2))], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 2));
    const client = await agent.client({ resilience: { initialDelayMs: 1_000 } });
    const cutAt = agent.clock.now();
    const handle = await client.start('go');
    await agent.clock.advance(450);
    expect(agent.count('SubscribeToTask')).toBe(0);
    await agent.clock.advance(100);
    expect(agent.count('SubscribeToTask')).toBe(1);
    expect((agent.calls.find((c) => c.method === 'SubscribeToTask')?.at ?? 0) - cutAt).toBe(500);
    await within(agent.clock, handle.done());
  });
});

describe('connection events', () => {
  it('no "reconnecting" after the task completed', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1)), chunkFrame('c1', false, true)], true);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [taskFrame(task('COMPLETED', 2, { chunks: ['c1'] }))], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 2, { chunks: ['c1'] }));
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    await within(agent.clock, handle.done());
    await agent.clock.advance(10);
    const end = events.findIndex((e) => e.type === 'status' && e.state === 'completed');
    expect(end).toBeGreaterThan(0);
    expect(events.slice(end + 1).map((e) => (e.type === 'connection' ? e.state : e.type))).toEqual(['closed']);
  });
});

describe('pauses', () => {
  it('auth-required: the engine looks again and follows the agent when it resumes on its own', async () => {
    let resumed = false;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) =>
      agent.sse(res, [taskFrame(task('WORKING', 1)), statusFrame('AUTH_REQUIRED', 2, { message: agentMessage('need', 'sign in') })], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, resumed ? task('WORKING', 3) : task('AUTH_REQUIRED', 2, { message: agentMessage('need', 'sign in') }));
    agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 3)), chunkFrame('ok', false, true), statusFrame('COMPLETED', 4)], true);
    const client = await agent.client();
    const handle = await client.start('go');
    const events = record(handle);
    await agent.clock.advance(9_000);
    expect(agent.count('GetTask')).toBe(0);
    await agent.clock.advance(1_500);
    expect(agent.count('GetTask')).toBe(1); // looked once after authRequiredPollMs (10 s)
    resumed = true; // the credentials arrived out of band
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(statuses(events)).toEqual(['working', 'auth-required', 'working', 'completed']);
  });

  it('a lost task (GetTask -32001) ends the follow with TaskNotFoundError', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], true);
    agent.handlers['SubscribeToTask'] = (rpc, res) => rpcError(res, rpc, -32001, 'no such task');
    agent.handlers['GetTask'] = (rpc, res) => rpcError(res, rpc, -32001, 'no such task');
    const client = await agent.client();
    const handle = await client.start('go');
    const error = await within(agent.clock, handle.done()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskNotFoundError);
  });
});

describe('store', () => {
  it('G1: start() resolves only once the task id is stored (a slow store is awaited)', async () => {
    const records = new MemoryTaskStore();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: TaskStore = {
      get: (id) => records.get(id),
      put: async (record: TaskRecord) => {
        await gate;
        await records.put(record);
      },
      update: (id, change) => records.update(id, change),
      list: (filter) => records.list(filter),
      delete: (id) => records.delete(id),
    };
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    const client = await agent.client({ store: slow });
    let started = false;
    const starting = client.start('go').then((h) => {
      started = true;
      return h;
    });
    await agent.clock.advance(1_000);
    expect(started).toBe(false);
    release();
    const handle = await starting;
    expect(await records.get(agent.key())).toMatchObject({ taskId: T });
    handle.detach();
  });

  it('a fresh client sharing the store resumes a task another client started', async () => {
    const store = new MemoryTaskStore();
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1, { chunks: ['c1'] }))], false);
    agent.handlers['SubscribeToTask'] = (_rpc, res) =>
      agent.sse(res, [taskFrame(task('WORKING', 2, { chunks: ['c1'] })), chunkFrame('c2', true, true), statusFrame('COMPLETED', 3)], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 3, { chunks: ['c1', 'c2'] }));
    const first = await agent.client({ store });
    const handle = await first.start('go');
    handle.detach(); // the first process goes away
    const second = await agent.client({ store });
    const [resumed] = await second.resumeAll();
    expect(resumed?.taskId).toBe(T);
    const final = await within(agent.clock, (resumed as NonNullable<typeof resumed>).done());
    expect(final.artifacts[0]?.parts.map((p) => (p.kind === 'text' ? p.text : ''))).toEqual(['c1', 'c2']);
  });
});

void at;
