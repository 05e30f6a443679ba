import { afterEach, describe, expect, it } from 'vitest';
import { ScenarioError, startTestAgent } from '../src/index.js';
import type { TestAgent, TestAgentOptions } from '../src/index.js';
import { readSse, rpc, startPushReceiver, until, v03JsonRpc, v03Rest, v1JsonRpc, v1Rest } from './helpers.js';
import type { PushReceiver } from './helpers.js';

let agent: TestAgent | undefined;
let receiver: PushReceiver | undefined;

afterEach(async () => {
  await agent?.close();
  await receiver?.close();
  agent = undefined;
  receiver = undefined;
});

async function start(options: TestAgentOptions = {}): Promise<TestAgent> {
  agent = await startTestAgent(options);
  return agent;
}

/** Start a long task without waiting and return its id once it emitted `events` events. */
async function slowTask(a: TestAgent, events: number, text = 'slow steps=10 delayMs=8'): Promise<string> {
  const { result } = await v1JsonRpc.send(a, text, { blocking: false });
  const id = result!['task'].id as string;
  await until(() => (a.tasks.get(id)?.eventCount ?? 0) >= events);
  return id;
}

describe('SSE ids and Last-Event-ID', () => {
  it('numbers every event <taskId>:<seq>; a resubscribe with Last-Event-ID gets only later events, no snapshot', async () => {
    const a = await start({ behaviour: { sseIds: true } });
    const { frames } = await v1Rest.stream(a, 'stream updates=2 chunks=2 delayMs=1');
    const id = frames[0]!.data['task'].id as string;
    expect(frames.map((f) => f.id)).toEqual([1, 2, 3, 4, 5, 6].map((seq) => `${id}:${seq}`));

    const taskId = await slowTask(a, 4);
    const resumed = await readSse(await v1Rest.subscribe(a, taskId, { 'Last-Event-ID': `${taskId}:3` }));
    expect(resumed[0]!.id).toBe(`${taskId}:4`);
    expect(resumed[0]!.data['task']).toBeUndefined();
    const seqs = resumed.map((f) => Number(f.id!.split(':')[1]));
    expect(seqs).toEqual(seqs.map((_, i) => 4 + i)); // gap-free
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
    const id = await slowTask(a, 4);
    const events = (await readSse(await v1JsonRpc.subscribe(a, id))).map((f) => v1JsonRpc.event(f));
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
    const id = await slowTask(a, 3, 'slow steps=3 delayMs=8');
    const v1 = (await readSse(await v1JsonRpc.subscribe(a, id))).map((f) => v1JsonRpc.event(f));
    expect(v1[0]!.kind).not.toBe('task');
    a.setBehaviour({ subscribeSnapshot: true });
    const id2 = await slowTask(a, 3, 'slow steps=3 delayMs=8');
    const v03 = (await readSse(await v03Rest.subscribe(a, id2))).map((f) => v03Rest.event(f));
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
    const id = await slowTask(a, 2, 'slow steps=2 delayMs=5');
    const response = await fetch(`${a.restUrl}/tasks/${id}:subscribe`, { headers: { 'A2A-Version': '1.0' } });
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
    const a = await start();
    const id = await slowTask(a, 2, 'slow steps=100 delayMs=5');
    await a.close();
    const count = a.tasks.get(id)!.eventCount;
    await new Promise((resolve) => setTimeout(resolve, 30));
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
