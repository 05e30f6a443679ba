import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, TetherError } from '@a2a-tether/node';
import type { A2AClient, Message, ResilienceOptions, StreamEvent, Task, TaskEvent, TaskHandle } from '@a2a-tether/node';
import { startFaultProxy } from '@a2a-tether/testkit';
import type { TaskRecord } from '@voltagent/a2a-server';
import { startVoltagentServer } from '../src/voltagent-server.js';
import type { VoltagentServer } from '../src/voltagent-server.js';

// Tether against a third, independent A2A server: @voltagent/a2a-server 2.0.3 (its own A2A v0.3
// JSON-RPC), mounted by @voltagent/server-hono 2.0.14, one @voltagent/core 2.10.0 agent on a scripted
// model (src/scripted-model.ts). What it does on the wire is in the wire notes, §10; in short:
// the card is at /.well-known/<agent-id>/agent-card.json, every SSE payload starts with an RFC 7464
// record separator (0x1E), every stream event is a whole Task whose final status reuses the message
// id of the working statuses, tasks/resubscribe answers -32601, the server stops a task's work
// (leaving it `working`) when its stream's client goes away, and a cancel of a task whose stream is
// still open is answered `canceled` but the task then ends `completed`.
//
// The tests say what a correct client does; some fail against today's Tether.

const TEST_TIMEOUT = 20_000;

/** Small budgets so that a client which cannot finish fails well within TEST_TIMEOUT. */
const RESILIENCE: Partial<ResilienceOptions> = {
  initialDelayMs: 20,
  maxDelayMs: 200,
  maxAttempts: 10,
  maxElapsedMs: 4_000,
  idleProbeMs: 2_000,
  pollMinMs: 50,
  pollMaxMs: 200,
  // A task the server stopped working on stays `working` for good: give up after 3 s without progress.
  maxQuietMs: 3_000,
};

const SENDS = new Set(['message/send', 'message/stream']);

let server: VoltagentServer;
let client: A2AClient;

beforeAll(async () => {
  server = await startVoltagentServer({ deltaDelayMs: 15, slowDelayMs: 50 });
  client = await connect(server.cardUrl, { cardCache: false, resilience: RESILIENCE });
});
afterAll(async () => {
  await server?.close();
});

/** The text of a message, Tether's or the server's own record of one. */
function textOf(message: { parts: ReadonlyArray<{ kind: string; text?: string }> } | undefined): string {
  return (message?.parts ?? []).map((part) => (part.kind === 'text' ? (part.text ?? '') : '')).join('');
}

/** What the server saw for messages with this text: sends, tasks created, model calls. */
function received(text: string): { sends: number; tasks: string[]; modelCalls: number } {
  return {
    sends: server.rpcCalls.filter((call) => SENDS.has(call.method) && call.text === text).length,
    tasks: server.createdTasks.filter((task) => task.text === text).map((task) => task.id),
    modelCalls: server.modelCalls.filter((call) => call === text).length,
  };
}

/**
 * What GetTask shows: the server's stored record, which is exactly what its tasks/get answers. Read
 * in process, so that the tests' own look does not count among the client's requests.
 */
async function serverView(taskId: string): Promise<TaskRecord> {
  const task = await server.storedTask(taskId);
  if (task === undefined) throw new Error(`the server has no task ${taskId}`);
  return task;
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Reads the handle's events in the background (the array fills as they come). */
function record(handle: TaskHandle): { events: TaskEvent[]; ended: Promise<void> } {
  const events: TaskEvent[] = [];
  const ended = (async () => {
    for await (const event of handle.events()) events.push(event);
  })();
  ended.catch(() => undefined);
  return { events, ended };
}

type Settled = { kind: 'resolved'; value: Task | Message } | { kind: 'rejected'; error: unknown } | { kind: 'pending' };

/** How `done()` settles within `ms` ('pending' = a hang; the handle is then detached, so it stops). */
async function settle(handle: TaskHandle, ms: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => {
      handle.detach();
      resolve({ kind: 'pending' });
    }, ms);
  });
  try {
    return await Promise.race([
      handle.done().then(
        (value): Settled => ({ kind: 'resolved', value }),
        (error: unknown): Settled => ({ kind: 'rejected', error }),
      ),
      pending,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function describeSettled(settled: Settled): string {
  if (settled.kind === 'pending') return 'still pending (a hang)';
  if (settled.kind === 'rejected') {
    const error = settled.error;
    return error instanceof TetherError ? `rejected with ${error.code}: ${error.message}` : `rejected with ${String(error)}`;
  }
  return settled.value.kind === 'task' ? `resolved ${settled.value.status.state}` : 'resolved with a message';
}

/** `start()`, or a failure that says what the server received meanwhile. */
async function start(on: A2AClient, text: string): Promise<TaskHandle> {
  try {
    return await on.start(text);
  } catch (error) {
    const seen = received(text);
    const reason = error instanceof TetherError ? `${error.code}: ${error.message}` : String(error);
    throw new Error(`start() rejected (${reason}); meanwhile the server got ${seen.sends} sends, created ${seen.tasks.length} tasks and ran the model ${seen.modelCalls} times`, { cause: error });
  }
}

async function until(condition: () => Promise<boolean>, what: string, withinMs = 5_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('Tether on @voltagent/a2a-server 2.0.3 (A2A v0.3 JSON-RPC)', () => {
  it('connect(cardUrl): reads the card at its non-standard path and negotiates v0.3 JSON-RPC', () => {
    expect(client.interface).toEqual({ binding: 'JSONRPC', protocolVersion: '0.3', url: server.rpcUrl });
    const card = client.card;
    expect(card.cardFormat).toBe('0.3');
    expect(card.name).toBe(server.agentId);
    expect(card.interfaces).toEqual([{ binding: 'JSONRPC', protocolVersion: '0.3', url: server.rpcUrl }]);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
  });

  it('sendMessage: the completed Task the server answers, decoded', async () => {
    const text = 'hello send';
    const result = await client.sendMessage(text);
    expect(result.kind).toBe('task');
    if (result.kind !== 'task') return;
    expect(result.status.state).toBe('completed');
    expect(textOf(result.status.message)).toBe(`echo: ${text}`);
    expect(result.id).toBe(received(text).tasks[0]);
    // The server stores the user message twice, then its answer.
    expect(result.history.map((message) => [message.role, textOf(message)])).toEqual([
      ['user', text],
      ['user', text],
      ['agent', `echo: ${text}`],
    ]);
  }, TEST_TIMEOUT);

  it('streamMessage: every event decodes despite the 0x1E before each JSON payload; it ends with the completed Task', async () => {
    const text = 'hello stream';
    const events = await collect(client.streamMessage(text));
    // working (no message), working (empty answer), one per streamed word, completed.
    expect(events.length).toBeGreaterThanOrEqual(5);
    expect(events.every((event) => event.kind === 'task')).toBe(true);
    const tasks = events as Task[];
    expect(new Set(tasks.map((task) => task.id)).size).toBe(1);
    expect(tasks.map((task) => task.status.state)).toEqual([...tasks.slice(0, -1).map(() => 'working'), 'completed']);
    const last = tasks.at(-1);
    expect(textOf(last?.status.message)).toBe(`echo: ${text}`);
    // From the second event on, every status carries the same (growing) answer message, the final one too.
    expect(new Set(tasks.slice(1).map((task) => task.status.message?.messageId)).size).toBe(1);
    expect(received(text)).toMatchObject({ sends: 1, modelCalls: 1 });
  }, TEST_TIMEOUT);

  it('task engine: start() → done() is the completed task with the final text; the agent got the message exactly once', async () => {
    const text = 'hello engine';
    const handle = await start(client, text);
    const settled = await settle(handle, 15_000);
    expect(settled.kind, describeSettled(settled)).toBe('resolved');
    if (settled.kind !== 'resolved' || settled.value.kind !== 'task') return;
    expect(settled.value.status.state).toBe('completed');
    expect(textOf(settled.value.status.message)).toBe(`echo: ${text}`);
    expect(settled.value.id).toBe(handle.taskId);
    // Never a re-send because of an event the client could not read.
    expect(received(text)).toEqual({ sends: 1, tasks: [handle.taskId], modelCalls: 1 });
  }, TEST_TIMEOUT);

  it('the terminal status is kept although it reuses the message id of the earlier statuses', async () => {
    const text = 'hello reuse';
    const handle = await start(client, text);
    const { events, ended } = record(handle);
    const settled = await settle(handle, 15_000);
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    expect(settled.kind, describeSettled(settled)).toBe('resolved');

    // The server's side of it: the final status carries the message id its working statuses had.
    const shown = await serverView(handle.taskId as string);
    expect(shown.status.state).toBe('completed');
    const answerId = shown.status.message?.messageId;
    expect(answerId).toEqual(expect.any(String));

    const statuses = events.flatMap((event) => (event.type === 'status' ? [event] : []));
    expect(statuses.at(-1)).toMatchObject({ state: 'completed' });
    expect(statuses.at(-1)?.message?.messageId).toBe(answerId);
    expect(textOf(statuses.at(-1)?.message)).toBe(`echo: ${text}`);
    expect(handle.view.state).toBe('completed');
    expect(textOf(handle.view.statusMessage)).toBe(`echo: ${text}`);
  }, TEST_TIMEOUT);

  describe('a stream cut mid-task (fault proxy; the server answers tasks/resubscribe with -32601)', () => {
    it('cut inside the final event, after the server stored `completed`: the engine falls back to GetTask and finishes completed', async () => {
      await using proxy = await startFaultProxy({ target: server.baseUrl, seed: 1 });
      const cut = await connect(`${proxy.origin}/.well-known/${server.agentId}/agent-card.json`, { cardCache: false, resilience: RESILIENCE });
      expect(cut.interface.url).toBe(`${proxy.origin}/a2a/${server.agentId}`);
      const text = 'cut me at the very end';
      // working, working (empty answer), 6 words, then `completed`: cut half-way into the 9th event.
      proxy.addFault({ kind: 'cut', afterEvents: 8, within: 'event', mode: 'reset', match: { rpcMethod: 'message/stream', sse: true } });

      const handle = await start(cut, text);
      const settled = await settle(handle, 15_000);
      expect(proxy.log.some((entry) => entry.fault?.startsWith('cut') === true)).toBe(true);
      expect(settled.kind, describeSettled(settled)).toBe('resolved');
      if (settled.kind !== 'resolved' || settled.value.kind !== 'task') return;
      expect(settled.value.status.state).toBe('completed');
      expect(textOf(settled.value.status.message)).toBe(`echo: ${text}`);
      // The fallback was GetTask, and the message was never sent again.
      const taskId = handle.taskId as string;
      expect(server.rpcCalls.some((call) => call.method === 'tasks/get' && call.taskId === taskId)).toBe(true);
      expect(received(text)).toEqual({ sends: 1, tasks: [taskId], modelCalls: 1 });
    }, TEST_TIMEOUT);

    it('cut while the agent works: the server stops the task, GetTask shows it `working` for good; the engine ends with a typed error, never a hang or a success', async () => {
      await using proxy = await startFaultProxy({ target: server.baseUrl, seed: 2 });
      const cut = await connect(`${proxy.origin}/.well-known/${server.agentId}/agent-card.json`, { cardCache: false, resilience: RESILIENCE });
      const text = 'slow steps=40 delayMs=50';
      proxy.addFault({ kind: 'cut', afterEvents: 4, mode: 'reset', match: { rpcMethod: 'message/stream', sse: true } });

      const handle = await start(cut, text);
      const settled = await settle(handle, 15_000);
      const taskId = handle.taskId as string;
      const shown = await serverView(taskId);
      // What the server does: its work stopped with the client, the task is left as it was.
      expect(shown.status.state).toBe('working');
      expect(settled.kind, describeSettled(settled)).toBe('rejected');
      if (settled.kind !== 'rejected') return;
      expect(settled.error).toBeInstanceOf(TetherError);
      expect((settled.error as TetherError).taskId).toBe(taskId);
      // It looked (GetTask) rather than giving up on -32601, and never re-sent the message.
      expect(server.rpcCalls.some((call) => call.method === 'tasks/get' && call.taskId === taskId)).toBe(true);
      expect(received(text)).toEqual({ sends: 1, tasks: [taskId], modelCalls: 1 });
    }, TEST_TIMEOUT);
  });

  it('cancel(): requested, and `confirmed` as GetTask then shows (this server answers `canceled`, then completes the task)', async () => {
    const text = 'slow steps=60 delayMs=50';
    const handle = await start(client, text);
    // Some of the answer is out (as the server stores it): the agent is at work.
    await until(async () => textOf((await serverView(handle.taskId as string)).status.message).includes('tick-2;'), 'the answer to start streaming');
    const outcome = await handle.cancel();
    const settled = await settle(handle, 10_000);
    expect(settled.kind, describeSettled(settled)).not.toBe('pending');

    const shown = await serverView(handle.taskId as string);
    expect(outcome.requested).toBe(true);
    expect(outcome.confirmed).toBe(shown.status.state === 'canceled');
    expect(outcome.state).toBe(shown.status.state);
    if (settled.kind === 'resolved' && settled.value.kind === 'task') expect(settled.value.status.state).toBe(shown.status.state);
    expect(received(text)).toMatchObject({ sends: 1, modelCalls: 1 });
  }, TEST_TIMEOUT);
});
