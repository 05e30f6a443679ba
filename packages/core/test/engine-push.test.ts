import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryTaskStore, TetherError, type PushChannel, type PushChannelRegistration } from '../src/index.js';
import { json, v1Card } from './helpers/scripted-server.js';
import { record, rpcResult, startScriptedAgent, T, task, within, type ScriptedAgent } from './helpers/scripted-agent.js';

// Push delivery (issue 7): with a push receiver and a card that can push, `delivery: 'auto'` registers
// a webhook with the creating send, opens no stream, and answers each (merged) push with one GetTask;
// a slow safety poll catches a lost push; the request-rate ceiling holds under a flood of pushes.

const HOOK = 'https://me.example/a2a/push';

/** A stand-in for the node push receiver: the test fires pushes by hand. */
class FakeReceiver implements PushChannel {
  readonly expected = new Map<string, string | undefined>();
  readonly forgotten: string[] = [];
  private readonly listeners = new Map<string, (notice: unknown) => void | Promise<void>>();
  expect(taskId: string, options?: { token?: string | undefined }): void {
    this.expected.set(taskId, options?.token);
  }
  forget(taskId: string): void {
    this.forgotten.push(taskId);
    this.expected.delete(taskId);
    this.listeners.delete(taskId);
  }
  subscribe(taskId: string, listener: (notice: unknown) => void | Promise<void>): () => void {
    this.listeners.set(taskId, listener);
    return () => this.listeners.delete(taskId);
  }
  /** A push for the task reached the receiver (and passed its checks). */
  push(taskId: string): void {
    void this.listeners.get(taskId)?.({ taskId });
  }
}

let agent: ScriptedAgent;
let receiver: FakeReceiver;
beforeEach(async () => {
  agent = await startScriptedAgent();
  receiver = new FakeReceiver();
});
afterEach(async () => {
  await agent.close();
});

describe('push delivery', () => {
  it("'auto' with a receiver and a card that can push: the webhook goes with the send, no stream opens, a push brings the change", async () => {
    let state = 'WORKING';
    agent.handlers['SendMessage'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, state === 'COMPLETED' ? task('COMPLETED', 3, { chunks: ['all', ' done'] }) : task('WORKING', 1));
    const client = await agent.client({ push: { receiver, url: HOOK, safetyPollMs: 60_000 } });
    const handle = await client.start('go');
    const events = record(handle);
    await agent.clock.advance(100);

    // The creating send carried the webhook config; the receiver expects the task with that token.
    const send = agent.calls.find((c) => c.method === 'SendMessage');
    const config = (send?.rpc.params as { configuration?: { taskPushNotificationConfig?: { url?: string; token?: string; id?: string } } }).configuration
      ?.taskPushNotificationConfig;
    expect(config?.url).toBe(HOOK);
    expect(typeof config?.token).toBe('string');
    expect((config?.token ?? '').length).toBeGreaterThan(20);
    expect(receiver.expected.get(T)).toBe(config?.token);
    expect(events.some((e) => e.type === 'connection' && e.state === 'waiting-push')).toBe(true);

    // Nothing happens until a push (or the safety poll) — one catch-up GetTask right after the send.
    const getsBefore = agent.count('GetTask');
    await agent.clock.advance(30_000);
    expect(agent.count('GetTask')).toBe(getsBefore);
    state = 'COMPLETED';
    receiver.push(T);
    const final = await within(agent.clock, handle.done(), 1_000);
    expect(final.status.state).toBe('completed');
    expect(final.artifacts[0]?.parts).toEqual([{ kind: 'text', text: 'all' }, { kind: 'text', text: ' done' }]);
    expect(agent.count('SendStreamingMessage') + agent.count('SubscribeToTask')).toBe(0);
    expect(receiver.forgotten).toEqual([T]);
  });

  it('a lost push is caught by the safety poll', async () => {
    let gets = 0;
    agent.handlers['SendMessage'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, ++gets >= 2 ? task('COMPLETED', 3) : task('WORKING', 1));
    const client = await agent.client({ push: { receiver, url: HOOK, safetyPollMs: 60_000 } });
    const handle = await client.start('go');
    await agent.clock.advance(59_000);
    expect(handle.view.state).toBe('working');
    const final = await within(agent.clock, handle.done(), 5_000);
    expect(final.status.state).toBe('completed');
    expect(gets).toBe(2); // the catch-up right after the send, then the safety poll
  });

  it('a flood of pushes is merged: the request-rate ceiling holds', async () => {
    agent.handlers['SendMessage'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    const client = await agent.client({ push: { receiver, url: HOOK } });
    const handle = await client.start('go');
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < 50; i++) receiver.push(T);
      await agent.clock.advance(200);
    }
    // 5,000 pushes over 20 s of virtual time: at most 20 GetTasks in any 10 s.
    expect(agent.worstWindow(10_000)).toBeLessThanOrEqual(20);
    expect(agent.count('GetTask')).toBeGreaterThan(2);
    handle.detach();
  });

  it("'push' without a receiver, or to an agent that cannot push, is refused before anything is sent", async () => {
    const plain = await agent.client();
    await expect(plain.start('go', { delivery: 'push' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    agent.server.on('GET /.well-known/agent-card.json', (_req, res) =>
      json(res, 200, v1Card(agent.server.url, { capabilities: { streaming: true, pushNotifications: false } })),
    );
    const noPush = await agent.client({ push: { receiver, url: HOOK } });
    const error = await noPush.start('go', { delivery: 'push' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'UNSUPPORTED_OPERATION' });
    expect(agent.count('SendMessage') + agent.count('SendStreamingMessage')).toBe(0);
    // 'auto' on that agent streams as before.
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [], true);
    expect(receiver.expected.size).toBe(0);
  });

  it('a resumed push task registers a new webhook (its token was never stored) and removes the old one', async () => {
    const store = new MemoryTaskStore();
    agent.handlers['SendMessage'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    agent.handlers['CreateTaskPushNotificationConfig'] = (rpc, res) => rpcResult(res, rpc, rpc.params);
    agent.handlers['DeleteTaskPushNotificationConfig'] = (rpc, res) => rpcResult(res, rpc, {});
    const first = await agent.client({ store, push: { receiver, url: HOOK } });
    const handle = await first.start('go');
    await handle.flush();
    const stored = await store.get(agent.key());
    expect(stored?.delivery).toBe('push');
    const oldId = stored?.pushConfigId;
    expect(oldId).toMatch(/^tether-/);
    expect(JSON.stringify(stored)).not.toContain(receiver.expected.get(T) ?? 'no token');
    handle.detach();

    const again = new FakeReceiver();
    const second = await agent.client({ store, push: { receiver: again, url: HOOK } });
    const [resumed] = await second.resumeAll();
    await agent.clock.advance(100);
    expect(agent.count('CreateTaskPushNotificationConfig')).toBe(1);
    expect(agent.count('DeleteTaskPushNotificationConfig')).toBe(1);
    expect(again.expected.has(T)).toBe(true);
    expect(again.expected.get(T)).not.toBe(receiver.expected.get(T));
    resumed?.detach();
  });
});

/** A receiver that can register a token before its task is named (issue 33): what the node receiver does. */
class RegisteringReceiver extends FakeReceiver {
  readonly tickets: Array<{ token: string; taskId: string | undefined; forgotten: boolean; listener?: ((notice: unknown) => void | Promise<void>) | undefined }> = [];
  /** Settles the `ready` of every registration made: a relay writing them. */
  release: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));
  register(options: { token: string; taskId?: string | undefined }): PushChannelRegistration {
    const ticket: (typeof this.tickets)[number] = { token: options.token, taskId: options.taskId, forgotten: false };
    this.tickets.push(ticket);
    return {
      ready: this.gate,
      bind: (taskId) => void (ticket.taskId = taskId),
      subscribe: (listener) => {
        ticket.listener = listener;
        return () => (ticket.listener = undefined);
      },
      forget: () => void (ticket.forgotten = true),
    };
  }
  override push(taskId: string): void {
    for (const ticket of this.tickets) if (ticket.taskId === taskId && !ticket.forgotten) void ticket.listener?.({ taskId });
  }
}

describe('push delivery with a receiver that registers tokens before the send (issue 33)', () => {
  it('the token is registered before the send (which waits for it to be ready), bound once the agent names the task, forgotten at the end', async () => {
    const registering = new RegisteringReceiver();
    let state = 'WORKING';
    let atSend: string | undefined;
    agent.handlers['SendMessage'] = (rpc, res) => {
      atSend = JSON.stringify(registering.tickets);
      rpcResult(res, rpc, task('WORKING', 1));
    };
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task(state, 2));
    const client = await agent.client({ push: { receiver: registering, url: HOOK, safetyPollMs: 60_000 } });
    const started = client.start('go');
    await agent.clock.advance(1_000);
    expect(agent.count('SendMessage')).toBe(0); // not before the registration is ready
    registering.release();
    const handle = await within(agent.clock, started, 1_000);
    const config = (agent.calls.find((c) => c.method === 'SendMessage')?.rpc.params as { configuration?: { taskPushNotificationConfig?: { token?: string } } }).configuration
      ?.taskPushNotificationConfig;
    expect(JSON.parse(atSend ?? '[]')).toEqual([{ token: config?.token, forgotten: false }]); // registered, not bound yet
    expect(registering.tickets.map((t) => t.taskId)).toEqual([T]);
    expect(receiver.expected.size + registering.expected.size).toBe(0); // expect() is not used
    state = 'COMPLETED';
    registering.push(T);
    expect((await within(agent.clock, handle.done(), 1_000)).status.state).toBe('completed');
    expect(registering.tickets.map((t) => t.forgotten)).toEqual([true]);
  });

  it('a send the agent refuses leaves no registration behind', async () => {
    const registering = new RegisteringReceiver();
    registering.release();
    agent.handlers['SendMessage'] = (rpc, res) => json(res, 200, { jsonrpc: '2.0', id: rpc.id, error: { code: -32602, message: 'no' } });
    const client = await agent.client({ push: { receiver: registering, url: HOOK } });
    await expect(client.start('go')).rejects.toBeInstanceOf(TetherError);
    expect(registering.tickets.map((t) => [t.taskId, t.forgotten])).toEqual([[undefined, true]]);
  });

  it('a resumed task registers its new token, bound to the task, before the config is created; a refused config leaves none', async () => {
    const store = new MemoryTaskStore();
    agent.handlers['SendMessage'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    const first = await agent.client({ store, push: { receiver, url: HOOK } });
    (await first.start('go')).detach();

    const registering = new RegisteringReceiver();
    registering.release();
    let atCreate: string | undefined;
    agent.handlers['CreateTaskPushNotificationConfig'] = (rpc, res) => {
      atCreate = JSON.stringify(registering.tickets);
      json(res, 200, { jsonrpc: '2.0', id: rpc.id, error: { code: -32003, message: 'push not supported' } });
    };
    const second = await agent.client({ store, push: { receiver: registering, url: HOOK } });
    const [resumed] = await second.resumeAll();
    await agent.clock.advance(100);
    expect(JSON.parse(atCreate ?? '[]')).toMatchObject([{ taskId: T, forgotten: false }]);
    expect(registering.tickets.map((t) => t.forgotten)).toEqual([true]); // refused: the task is polled
    resumed?.detach();
  });
});
