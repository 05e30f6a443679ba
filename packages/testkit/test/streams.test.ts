import { afterEach, describe, expect, it } from 'vitest';
import { ScenarioError, startTestAgent } from '../src/index.js';
import type { ScenarioFn, TestAgent, TestAgentOptions } from '../src/index.js';
import { readSse, rpc, startPushReceiver, until, v03JsonRpc, v03Rest, v1JsonRpc, v1Rest } from './helpers.js';
import type { PushReceiver } from './helpers.js';

let agent: TestAgent | undefined;
let receiver: PushReceiver | undefined;

/** Where each `held` task waits for the test. */
interface Hold {
  reached: Promise<void>;
  arrive: () => void;
  released: Promise<void>;
  release: () => void;
}
const holds = new Map<string, Hold>();

afterEach(async () => {
  await agent?.close();
  await receiver?.close();
  agent = undefined;
  receiver = undefined;
  holds.clear();
});

function holdOf(taskId: string): Hold {
  let hold = holds.get(taskId);
  if (hold === undefined) {
    let arrive!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (arrive = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    hold = { reached, arrive, released, release };
    holds.set(taskId, hold);
  }
  return hold;
}

/**
 * `held before=2 after=1`: like `slow` (a working status and a chunk of `result` per step), but after
 * `before` steps it waits until the test releases it; then `after` more steps and completed.
 * So a test can subscribe to a task that surely has not finished yet, however slow the machine.
 */
const held: ScenarioFn = async (ctx) => {
  const before = Number(ctx.params['before'] ?? 2);
  const after = Number(ctx.params['after'] ?? 1);
  const hold = holdOf(ctx.task.id);
  const step = (i: number): void => {
    ctx.status('working', `step ${i}`);
    ctx.artifact({ artifactId: 'result', name: 'result', text: `chunk-${i};`, append: i > 1, lastChunk: i === before + after });
  };
  ctx.status('working');
  for (let i = 1; i <= before; i++) step(i);
  hold.arrive();
  await new Promise<void>((resolve, reject) => {
    ctx.cancelled.addEventListener('abort', () => reject(ctx.cancelled.reason as Error), { once: true });
    void hold.released.then(resolve);
  });
  for (let i = before + 1; i <= before + after; i++) step(i);
  ctx.status('completed');
};

async function start(options: TestAgentOptions = {}): Promise<TestAgent> {
  agent = await startTestAgent({ ...options, scenarios: { held, ...options.scenarios } });
  return agent;
}

/**
 * Subscribes, lets the held task go on once the agent has the subscription, and answers the response.
 * (Not on the response headers: without a snapshot they only go out with the first event.)
 */
async function subscribeThenRelease(a: TestAgent, subscribe: () => Promise<Response>, release: () => void): Promise<Response> {
  const seen = a.requests.length;
  const response = subscribe();
  // The agent records a request and binds its subscription in one synchronous step.
  await until(() => a.requests.length > seen);
  release();
  return response;
}

/** Start a `held` task without waiting for it; resolves with its id once it waits for `release()`. */
async function heldTask(a: TestAgent, text = 'held'): Promise<{ id: string; release: () => void }> {
  const { result } = await v1JsonRpc.send(a, text, { blocking: false });
  const id = result!['task'].id as string;
  const hold = holdOf(id);
  await hold.reached;
  return { id, release: hold.release };
}

describe('SSE ids and Last-Event-ID', () => {
  it('numbers every event <taskId>:<seq>; a resubscribe with Last-Event-ID gets only later events, no snapshot', async () => {
    const a = await start({ behaviour: { sseIds: true } });
    const { frames } = await v1Rest.stream(a, 'stream updates=2 chunks=2 delayMs=1');
    const id = frames[0]!.data['task'].id as string;
    expect(frames.map((f) => f.id)).toEqual([1, 2, 3, 4, 5, 6].map((seq) => `${id}:${seq}`));

    // Events 1–6 (created, working, two steps of status + chunk), then the task waits.
    const { id: taskId, release } = await heldTask(a, 'held before=2 after=2');
    const resumed = await readSse(await subscribeThenRelease(a, () => v1Rest.subscribe(a, taskId, { 'Last-Event-ID': `${taskId}:3` }), release));
    expect(resumed[0]!.id).toBe(`${taskId}:4`);
    expect(resumed[0]!.data['task']).toBeUndefined();
    const seqs = resumed.map((f) => Number(f.id!.split(':')[1]));
    expect(seqs).toEqual([4, 5, 6, 7, 8, 9, 10, 11]); // the three missed, then four steps' worth and completed, live
    expect(v1Rest.event(resumed.at(-1)!).state).toBe('completed');
  });

  it('Last-Event-ID on a finished task replays what was missed and ends', async () => {
    const a = await start({ behaviour: { sseIds: true } });
    const { result } = await v03JsonRpc.send(a, 'stream updates=1 chunks=1 delayMs=1');
    const id = result!['id'] as string;
    const frames = await readSse(await v03JsonRpc.subscribe(a, id, { 'Last-Event-ID': `${id}:2` }));
    expect(frames.map((f) => f.id)).toEqual([`${id}:3`, `${id}:4`]);
    expect(v03JsonRpc.event(frames[1]!)).toMatchObject({ kind: 'status', state: 'completed' });
  });

  it('without sseIds there are no id lines', async () => {
    const a = await start();
    const { frames } = await v1JsonRpc.stream(a, 'stream updates=1 chunks=1 delayMs=1');
    expect(frames).toHaveLength(4); // task, working, the chunk, completed
    expect(frames.map((f) => f.id)).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('resubscribe behaviours', () => {
  it('replayOnResubscribe re-sends every event so far, in order, after the v1 snapshot', async () => {
    const a = await start({ behaviour: { replayOnResubscribe: true } });
    const { id, release } = await heldTask(a, 'held before=4 after=6');
    const events = (await readSse(await subscribeThenRelease(a, () => v1JsonRpc.subscribe(a, id), release))).map((f) => v1JsonRpc.event(f));
    expect(events[0]!.kind).toBe('task'); // snapshot
    expect(events[1]).toMatchObject({ kind: 'task', state: 'submitted' }); // the replayed creation event
    expect(events[2]).toMatchObject({ kind: 'status', state: 'working' });
    expect(events.filter((e) => e.kind === 'artifact').map((e) => e.text)).toEqual(
      Array.from({ length: 10 }, (_, i) => `chunk-${i + 1};`),
    );
    expect(events.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
  });

  it('subscribeSnapshot flips the per-version default', async () => {
    const a = await start({ behaviour: { subscribeSnapshot: false } });
    const first = await heldTask(a, 'held before=1 after=2');
    const v1 = (await readSse(await subscribeThenRelease(a, () => v1JsonRpc.subscribe(a, first.id), first.release))).map((f) => v1JsonRpc.event(f));
    expect(v1[0]!.kind).not.toBe('task');
    expect(v1.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
    a.setBehaviour({ subscribeSnapshot: true });
    const second = await heldTask(a, 'held before=1 after=2');
    const v03 = (await readSse(await subscribeThenRelease(a, () => v03Rest.subscribe(a, second.id), second.release))).map((f) => v03Rest.event(f));
    expect(v03[0]!.kind).toBe('task');
    expect(v03.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
  });

  it('subscribing to a finished task: v1 answers -32004 as JSON, v0.3 streams the final Task once', async () => {
    const a = await start();
    const { result } = await v1JsonRpc.send(a, 'fail');
    const id = result!['task'].id as string;
    const v1 = await v1JsonRpc.subscribe(a, id);
    expect(v1.headers.get('content-type')).toBe('application/json');
    expect(((await v1.json()) as { error: { code: number } }).error.code).toBe(-32004);
    const v03 = await readSse(await v03JsonRpc.subscribe(a, id));
    expect(v03).toHaveLength(1);
    expect(v03JsonRpc.event(v03[0]!)).toMatchObject({ kind: 'task', state: 'failed' });
  });

  it('v1 REST subscribe also answers GET', async () => {
    const a = await start();
    const { id, release } = await heldTask(a);
    const response = await subscribeThenRelease(a, () => fetch(`${a.restUrl}/tasks/${id}:subscribe`, { headers: { 'A2A-Version': '1.0' } }), release);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await readSse(response)).map((f) => v1Rest.event(f));
    expect(events[0]!.kind).toBe('task');
    expect(events.at(-1)).toMatchObject({ kind: 'status', state: 'completed' });
  });

  it('closeAtInterrupted: false keeps the stream open through input-required, v0.3 final stays false', async () => {
    const a = await start({ behaviour: { closeAtInterrupted: false } });
    const response = await fetch(a.jsonRpcUrl, {
      method: 'POST',
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'auth' }] } },
      }),
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('auth-required')) text += new TextDecoder().decode((await reader.read()).value);
    const taskId = /"taskId":"([^"]+)"/.exec(text)![1]!;
    expect(text).toContain('"final":false');
    // The same stream carries the resumed task to completion.
    const reply = await v03JsonRpc.send(a, 'here are creds', { taskId, blocking: false });
    expect(reply.result!['kind']).toBe('task');
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    expect(text).toContain('got: here are creds');
    expect(text).toMatch(/"state":"completed"[^\n]*"final":true/);
  });
});

describe('scenario errors and lifecycle', () => {
  it('a ScenarioError before any event is a plain JSON error; after the first event an `event: error` frame', async () => {
    const a = await start({
      scenarios: {
        early: () => {
          throw new Error('not an A2A error');
        },
        late: async (ctx) => {
          ctx.status('working');
          await ctx.sleep(2);
          throw new ScenarioError(-32603, 'agent crashed');
        },
      },
    });
    const early = await rpc(a, 'SendStreamingMessage', { message: { messageId: 'e', role: 'ROLE_USER', parts: [{ text: 'early' }] } }, { version: '1.0' });
    expect(early.body['error']).toMatchObject({ code: -32603 });
    expect(early.body['error'].message).toContain('not an A2A error');

    const { frames } = await v1Rest.stream(a, 'late');
    expect(frames.at(-1)).toEqual({ event: 'error', data: { error: { code: 500, status: 'INTERNAL', message: 'agent crashed', details: [] } } });
    const id = frames[0]!.data['task'].id as string;
    expect(a.tasks.get(id)?.state).toBe('working'); // like a crash: state untouched

    const rpcFrames = (await v03JsonRpc.stream(a, 'late')).frames;
    expect(rpcFrames.at(-1)).toEqual({ event: 'error', data: { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'agent crashed' } } });
  });

  it('a scenario that throws a plain Error fails the task with the error text', async () => {
    const a = await start({
      scenarios: {
        boom: (ctx) => {
          ctx.status('working');
          throw new Error('kaboom');
        },
      },
    });
    const { result } = await v1JsonRpc.send(a, 'boom');
    expect(result!['task'].status.state).toBe('TASK_STATE_FAILED');
    expect(result!['task'].status.message.parts[0].text).toBe('kaboom');
  });

  it('close() aborts running scenarios: no more events, no timers left', async () => {
    let stopped!: (reason: unknown) => void;
    const scriptEnded = new Promise((resolve) => (stopped = resolve));
    const a = await start({
      scenarios: {
        ticker: async (ctx) => {
          ctx.status('working');
          try {
            for (let i = 1; ; i++) {
              await ctx.sleep(5);
              ctx.status('working', `tick ${i}`);
            }
          } catch (error) {
            stopped(error);
            throw error;
          }
        },
      },
    });
    const { result } = await v1JsonRpc.send(a, 'ticker', { blocking: false });
    const id = result!['task'].id as string;
    await until(() => (a.tasks.get(id)?.eventCount ?? 0) >= 4);
    await a.close();
    const count = a.tasks.get(id)!.eventCount;
    // Its timer was cancelled: the script's sleep rejected, so it stopped for good.
    expect(await scriptEnded).toMatchObject({ name: 'AbortError' });
    expect(a.tasks.get(id)!.eventCount).toBe(count);
    expect(a.tasks.get(id)!.state).toBe('working');
    await expect(a.start()).rejects.toThrow(/closed/);
  });

  it('Symbol.asyncDispose closes the agent', async () => {
    const a = await startTestAgent();
    await a[Symbol.asyncDispose]();
    expect(a.listening).toBe(false);
    await expect(fetch(a.cardUrl)).rejects.toThrow();
  });

  it('counts failed push deliveries', async () => {
    const a = await start();
    receiver = await startPushReceiver(500);
    await v1JsonRpc.send(a, 'fail', { push: { url: receiver.url } });
    await receiver.waitFor(3);
    await until(() => a.pushFailures === 3);
    expect(a.pushFailures).toBe(3);
  });

  it('push authentication is sent as Authorization: <scheme> <credentials>', async () => {
    const a = await start();
    receiver = await startPushReceiver();
    const { result } = await v1JsonRpc.send(a, 'input');
    const taskId = result!['task'].id as string;
    const created = await rpc(
      a,
      'CreateTaskPushNotificationConfig',
      { taskId, url: receiver.url, authentication: { scheme: 'Bearer', credentials: 'push-jwt' } },
      { version: '1.0' },
    );
    expect(created.body['result']).toMatchObject({ taskId, url: receiver.url, authentication: { scheme: 'Bearer', credentials: 'push-jwt' } });
    expect(created.body['result'].id).toMatch(/^[0-9a-f-]{36}$/);
    await v1JsonRpc.send(a, 'ok', { taskId });
    await receiver.waitFor(1);
    expect(receiver.received[0]!.headers['authorization']).toBe('Bearer push-jwt');
    expect(receiver.received[0]!.headers['x-a2a-notification-token']).toBeUndefined();
  });
});
