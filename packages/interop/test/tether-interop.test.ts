import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connect,
  defaultNodeFetch,
  InternalError,
  InvalidRequestError,
  isTerminalState,
  TaskNotCancelableError,
  TaskNotFoundError,
  TetherError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-tether/node';
import type {
  A2AClient,
  A2AError,
  Binding,
  ConnectOptions,
  FetchLike,
  Part,
  ProtocolVersion,
  SendResult,
  StreamEvent,
  Task,
  TaskState,
} from '@a2a-tether/node';
import { decodeStreamEvent } from '@a2a-tether/node/protocol';
import { listenOnLoopback } from '../src/listen-loopback.js';
import type { LoopbackListener } from '../src/listen-loopback.js';
import { startOfficialV03Server } from '../src/official-v03-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';

// The Tether client (`connect` from @a2a-tether/node) against the official @a2a-js/sdk servers:
// 1.3.0 (A2A v1.0) and 0.3.14 (A2A v0.3), on all four version × binding combinations.
// Quirks of the servers asserted here are listed under "Surprises" in
// packages/core/test/fixtures/official/INDEX.md (referenced as "Surprise N").

const TEST_TIMEOUT = 10_000;
const WEBHOOK_URL = 'http://127.0.0.1:9/hook';

let v1: OfficialServer;
let v03: OfficialServer;

beforeAll(async () => {
  v1 = await startOfficialV1Server();
});
afterAll(async () => {
  await v1?.close();
});

beforeAll(async () => {
  v03 = await startOfficialV03Server();
});
afterAll(async () => {
  await v03?.close();
});

/** One webhook call the agents made. */
interface Push {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

// A webhook receiver on loopback, for push configs registered inline with a send.
const pushes: Push[] = [];
let hooks: LoopbackListener;
beforeAll(async () => {
  hooks = await listenOnLoopback((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      pushes.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
      res.writeHead(200).end();
    });
  });
});
afterAll(async () => {
  await hooks?.close();
});

/** One HTTP request as Tether handed it to fetch. */
interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** Node's fetch (undici, as `@a2a-tether/node` uses), recording every request into `log`. */
function recordingFetch(log: Recorded[]): FetchLike {
  const base = defaultNodeFetch();
  return (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, key) => {
      headers[key] = value;
    });
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    log.push({ method: init?.method ?? 'GET', url: String(input), headers, body });
    return base(input, init);
  };
}

function textOf(parts: readonly Part[]): string {
  return parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
}

function artifactText(task: Task): string {
  return task.artifacts.map((artifact) => textOf(artifact.parts)).join('');
}

function asTask(result: SendResult): Task {
  if (result.kind !== 'task') throw new Error(`expected a task, got ${JSON.stringify(result).slice(0, 300)}`);
  return result;
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The state each event reports (tasks and status updates), in order. */
function statesOf(events: readonly StreamEvent[]): TaskState[] {
  return events.flatMap((event) => (event.kind === 'task' || event.kind === 'status-update' ? [event.status.state] : []));
}

/** Resolves with what the promise rejected with; fails the test if it resolved. */
async function rejection(promise: Promise<unknown>): Promise<TetherError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    return error as TetherError;
  }
  throw new Error('expected the call to fail');
}

/** Polls until `read` returns a non-empty list (bounded). */
async function eventually<T>(read: () => T[], withinMs = 3_000): Promise<T[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = read();
    if (value.length > 0) return value;
    if (Date.now() > deadline) throw new Error(`nothing arrived within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Polls getTask until the task is terminal (bounded). */
async function waitTerminal(client: A2AClient, taskId: string, withinMs = 3_000): Promise<Task> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const task = await client.getTask(taskId);
    if (isTerminalState(task.status.state)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status.state} after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Combo {
  name: string;
  server: () => OfficialServer;
  version: ProtocolVersion;
  binding: Binding;
  url: (server: OfficialServer) => string;
}

const combos: Combo[] = [
  { name: 'v1 JSON-RPC', server: () => v1, version: '1.0', binding: 'JSONRPC', url: (s) => s.jsonRpcUrl },
  { name: 'v1 HTTP+JSON', server: () => v1, version: '1.0', binding: 'HTTP+JSON', url: (s) => s.restUrl },
  { name: 'v0.3 JSON-RPC', server: () => v03, version: '0.3', binding: 'JSONRPC', url: (s) => s.jsonRpcUrl },
  { name: 'v0.3 HTTP+JSON', server: () => v03, version: '0.3', binding: 'HTTP+JSON', url: (s) => s.restUrl },
];

describe.each(combos)('Tether on $name', (combo) => {
  const isV1 = combo.version === '1.0';
  const log: Recorded[] = [];
  let server: OfficialServer;
  let client: A2AClient;

  function open(extra: ConnectOptions = {}): Promise<A2AClient> {
    return connect(server.cardUrl, {
      preferredBindings: [combo.binding],
      protocolVersions: [combo.version],
      cardCache: false,
      fetch: recordingFetch(log),
      ...extra,
    });
  }

  /** A completed `stream updates=2 chunks=3` task (blocking send). */
  async function completedTask(): Promise<Task> {
    const task = asTask(await client.sendMessage('stream updates=2 chunks=3'));
    expect(task.status.state).toBe('completed');
    return task;
  }

  beforeAll(async () => {
    server = combo.server();
    client = await open();
  });

  it('selects the intended interface and reads the card', () => {
    expect(client.interface).toEqual({ binding: combo.binding, protocolVersion: combo.version, url: combo.url(server) });
    expect(client.interfaces).toEqual([client.interface]);
    const card = client.card;
    expect(card.cardFormat).toBe(combo.version);
    expect(card.name).toBe(isV1 ? 'Tether interop agent (@a2a-js/sdk 1.3.0)' : 'Tether interop agent (@a2a-js/sdk 0.3.14)');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true, extendedAgentCard: true });
    expect(card.interfaces).toEqual([
      { binding: 'JSONRPC', protocolVersion: combo.version, url: server.jsonRpcUrl },
      { binding: 'HTTP+JSON', protocolVersion: combo.version, url: server.restUrl },
    ]);
    expect(card.skills.map((skill) => skill.id)).toEqual(['scenarios']);
  });

  it('sendMessage: `echo hi` → a Message reply', async () => {
    const reply = await client.sendMessage('echo hi');
    expect(reply.kind).toBe('message');
    if (reply.kind !== 'message') return;
    expect(reply.role).toBe('agent');
    expect(textOf(reply.parts)).toBe('echo: echo hi');
    expect(reply.contextId).toEqual(expect.any(String));
  }, TEST_TIMEOUT);

  it('sendMessage (blocking): a completed task with the whole artifact', async () => {
    const task = await completedTask();
    expect(task.artifacts.map((artifact) => artifact.artifactId)).toEqual(['result']);
    expect(artifactText(task)).toBe('chunk-0;chunk-1;chunk-2;');
    // Appended chunks are stored as separate parts (Surprise 15).
    expect(task.artifacts[0]?.parts).toHaveLength(3);
    // History holds the user message and the agent's status messages (Surprise 6).
    expect(task.history.map((message) => [message.role, textOf(message.parts)])).toEqual([
      ['user', 'stream updates=2 chunks=3'],
      ['agent', 'step 0'],
      ['agent', 'step 1'],
    ]);
  }, TEST_TIMEOUT);

  it('sendMessage with returnImmediately: a task that is not terminal yet', async () => {
    const task = asTask(await client.sendMessage('stream updates=2 chunks=3 delayMs=50', { returnImmediately: true }));
    // v1 answers `submitted`, v0.3 may already show `working` (Surprise 5).
    expect(['submitted', 'working']).toContain(task.status.state);
    const done = await waitTerminal(client, task.id);
    expect(done.status.state).toBe('completed');
    expect(artifactText(done)).toBe('chunk-0;chunk-1;chunk-2;');
  }, TEST_TIMEOUT);

  it('streamMessage: the task, then statuses and artifact chunks in order', async () => {
    const events = await collect(client.streamMessage('stream updates=2 chunks=3'));
    expect(events.map((event) => event.kind)).toEqual([
      'task',
      'status-update',
      'artifact-update',
      'status-update',
      'artifact-update',
      'artifact-update',
      'status-update',
    ]);
    const [first] = events;
    if (first?.kind !== 'task') throw new Error('the stream must open with the task');
    expect(statesOf(events)).toEqual(['submitted', 'working', 'working', 'completed']);
    for (const event of events.slice(1)) {
      expect(event).toMatchObject({ taskId: first.id, contextId: first.contextId });
    }
    const statusTexts = events.flatMap((event) =>
      event.kind === 'status-update' ? [event.status.message ? textOf(event.status.message.parts) : undefined] : [],
    );
    expect(statusTexts).toEqual(['step 0', 'step 1', undefined]);

    const chunks = events.flatMap((event) => (event.kind === 'artifact-update' ? [event] : []));
    expect(chunks.map((chunk) => [chunk.artifact.artifactId, textOf(chunk.artifact.parts), chunk.append, chunk.lastChunk])).toEqual([
      ['result', 'chunk-0;', false, false],
      ['result', 'chunk-1;', true, false],
      ['result', 'chunk-2;', true, true],
    ]);

    // v0.3 marks the last status `final: true` (v0.3 REST omits `final: false`, Surprise 8); v1 has no `final`.
    const finals = events.flatMap((event) => (event.kind === 'status-update' ? [event.final] : []));
    if (isV1) expect(finals).toEqual([undefined, undefined, undefined]);
    else expect(finals.at(-1)).toBe(true);

    const stored = await client.getTask(first.id);
    expect(stored.status.state).toBe('completed');
    expect(artifactText(stored)).toBe(chunks.map((chunk) => textOf(chunk.artifact.parts)).join(''));
  }, TEST_TIMEOUT);

  it('input-required: the stream ends there cleanly; a sendMessage follow-up completes the task', async () => {
    const events = await collect(client.streamMessage('input'));
    expect(statesOf(events)).toEqual(['submitted', 'working', 'input-required']);
    const last = events.at(-1);
    if (last?.kind !== 'status-update') throw new Error('expected a status update last');
    expect(textOf(last.status.message?.parts ?? [])).toBe('need input');
    const { taskId, contextId } = last;

    const answer = asTask(await client.sendMessage({ text: 'blue', taskId, contextId }));
    expect(answer.id).toBe(taskId);
    expect(answer.contextId).toBe(contextId);
    expect(answer.status.state).toBe('completed');
    expect(artifactText(answer)).toBe('got: blue');
  }, TEST_TIMEOUT);

  it('input-required: a streamMessage follow-up streams to completed', async () => {
    const first = asTask(await client.sendMessage('input'));
    expect(first.status.state).toBe('input-required');

    const events = await collect(client.streamMessage({ text: 'blue', taskId: first.id, contextId: first.contextId }));
    // v1 re-sends the Task first on a follow-up turn; v0.3 starts with a status update.
    expect(events[0]?.kind).toBe(isV1 ? 'task' : 'status-update');
    expect(statesOf(events).slice(-2)).toEqual(['working', 'completed']);
    const artifacts = events.flatMap((event) => (event.kind === 'artifact-update' ? [textOf(event.artifact.parts)] : []));
    expect(artifacts).toEqual(['got: blue']);
    const stored = await client.getTask(first.id);
    expect(stored.status.state).toBe('completed');
    expect(artifactText(stored)).toBe('got: blue');
  }, TEST_TIMEOUT);

  it('getTask with and without historyLength (Surprise 7)', async () => {
    const { id } = await completedTask();
    const all = ['stream updates=2 chunks=3', 'step 0', 'step 1'];
    const history = async (historyLength?: number): Promise<string[]> => {
      const task = await client.getTask(id, historyLength === undefined ? {} : { historyLength });
      expect(task.id).toBe(id);
      expect(task.status.state).toBe('completed');
      expect(artifactText(task)).toBe('chunk-0;chunk-1;chunk-2;');
      return task.history.map((message) => textOf(message.parts));
    };
    expect(await history(1)).toEqual(['step 1']);
    expect(await history(2)).toEqual(['step 0', 'step 1']);
    if (isV1) {
      // v1: unset → everything, 0 → none.
      expect(await history()).toEqual(all);
      expect(await history(0)).toEqual([]);
    } else {
      // v0.3 SDK: unset → none, 0 → everything (`slice(-0)`).
      expect(await history()).toEqual([]);
      expect(await history(0)).toEqual(all);
    }
  }, TEST_TIMEOUT);

  it(isV1 ? 'listTasks: lists, filters by contextId and pages' : 'listTasks: rejected locally, nothing sent', async () => {
    if (!isV1) {
      const before = log.length;
      const error = await rejection(client.listTasks());
      expect(error.code).toBe('UNSUPPORTED_OPERATION');
      expect(error.message).toMatch(/v0\.3/);
      expect(log.length).toBe(before);
      return;
    }
    const a = await completedTask();
    const b = asTask(await client.sendMessage('input'));

    const everything = await client.listTasks({ pageSize: 100 });
    const ids = everything.tasks.map((task) => task.id);
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(everything.totalSize).toBe(ids.length);
    expect(everything.nextPageToken).toBe('');
    // Newest status first: `b` was created after `a` finished.
    expect(ids.indexOf(b.id)).toBeLessThan(ids.indexOf(a.id));

    const inContext = await client.listTasks({ contextId: a.contextId });
    expect(inContext.tasks.map((task) => task.id)).toEqual([a.id]);
    expect(inContext.tasks[0]?.status.state).toBe('completed');
    // Artifacts only on request (ProtoJSON then omits them); historyLength applies per task.
    expect(inContext.tasks[0]?.artifacts).toEqual([]);
    expect(inContext.tasks[0]?.history).toHaveLength(3);
    const detailed = await client.listTasks({ contextId: a.contextId, includeArtifacts: true, historyLength: 0 });
    expect(detailed.tasks[0] && artifactText(detailed.tasks[0])).toBe('chunk-0;chunk-1;chunk-2;');
    expect(detailed.tasks[0]?.history).toEqual([]);
    // The status filter is sent as the proto enum name.
    expect((await client.listTasks({ contextId: b.contextId, status: 'input-required' })).tasks.map((task) => task.id)).toEqual([b.id]);
    expect((await client.listTasks({ contextId: b.contextId, status: 'completed' })).tasks).toEqual([]);
    // The 1.3.0 store compares `timestamp > statusTimestampAfter` (the spec says ≥): a's own time excludes a.
    expect(a.status.timestamp).toMatch(/Z$/);
    const since = await client.listTasks({ statusTimestampAfter: a.status.timestamp, pageSize: 100 });
    expect(since.tasks.map((task) => task.id)).toContain(b.id);
    expect(since.tasks.map((task) => task.id)).not.toContain(a.id);

    const page1 = await client.listTasks({ pageSize: 1 });
    expect(page1.tasks).toHaveLength(1);
    expect(page1.pageSize).toBe(1);
    expect(page1.nextPageToken).not.toBe('');
    const page2 = await client.listTasks({ pageSize: 1, pageToken: page1.nextPageToken });
    expect(page2.tasks).toHaveLength(1);
    expect(page2.tasks[0]?.id).not.toBe(page1.tasks[0]?.id);
    expect([page1.tasks[0]?.id, page2.tasks[0]?.id]).toEqual(ids.slice(0, 2));
  }, TEST_TIMEOUT);

  it('cancelTask: a running task ends canceled; a completed one is not cancelable', async () => {
    const running = asTask(await client.sendMessage('slow steps=200 delayMs=20', { returnImmediately: true }));
    expect(isTerminalState(running.status.state)).toBe(false);
    const answer = await client.cancelTask(running.id);
    expect(answer.id).toBe(running.id);
    const done = await waitTerminal(client, running.id);
    expect(done.status.state).toBe('canceled');

    const completed = await completedTask();
    const error = await rejection(client.cancelTask(completed.id));
    expect(error).toBeInstanceOf(TaskNotCancelableError);
    expect((error as A2AError).a2aCode).toBe(-32002);
  }, TEST_TIMEOUT);

  it('subscribe mid-task: a snapshot first, then live events until canceled', async () => {
    const running = asTask(await client.sendMessage('slow steps=200 delayMs=20', { returnImmediately: true }));
    const events: StreamEvent[] = [];
    let cancelSent = false;
    for await (const event of client.subscribe(running.id)) {
      events.push(event);
      if (events.length === 3) {
        cancelSent = true;
        await client.cancelTask(running.id);
      }
    }
    expect(cancelSent).toBe(true);
    const [snapshot, ...live] = events;
    if (snapshot?.kind !== 'task') throw new Error('a subscription must open with a task snapshot');
    expect(snapshot.id).toBe(running.id);
    expect(['submitted', 'working']).toContain(snapshot.status.state);
    expect(live.length).toBeGreaterThanOrEqual(2);
    for (const event of live) expect(event).toMatchObject({ taskId: running.id, contextId: running.contextId });
    expect(live.some((event) => event.kind === 'artifact-update' && textOf(event.artifact.parts).startsWith('chunk-'))).toBe(true);
    expect(statesOf(events).at(-1)).toBe('canceled');
    expect((await client.getTask(running.id)).status.state).toBe('canceled');
  }, TEST_TIMEOUT);

  it(isV1 ? 'subscribe to a finished task: UnsupportedOperationError' : 'subscribe to a finished task: one final Task', async () => {
    const completed = await completedTask();
    if (isV1) {
      const error = await rejection(collect(client.subscribe(completed.id)));
      expect(error).toBeInstanceOf(UnsupportedOperationError);
      expect((error as A2AError).a2aCode).toBe(-32004);
      expect((error as A2AError).reason).toBe('UNSUPPORTED_OPERATION');
      return;
    }
    const events = await collect(client.subscribe(completed.id));
    expect(events).toHaveLength(1);
    const [only] = events;
    if (only?.kind !== 'task') throw new Error('expected the final task');
    expect(only.id).toBe(completed.id);
    expect(only.status.state).toBe('completed');
    expect(artifactText(only)).toBe('chunk-0;chunk-1;chunk-2;');
  }, TEST_TIMEOUT);

  it('push config CRUD: create, get, list, delete, then get fails (Surprise 20)', async () => {
    const task = asTask(await client.sendMessage('input'));
    const created = await client.createPushConfig({ taskId: task.id, id: 'cfg-1', url: WEBHOOK_URL, token: 'tok-1' });
    expect(created).toEqual({ taskId: task.id, id: 'cfg-1', url: WEBHOOK_URL, token: 'tok-1' });

    expect(await client.getPushConfig(task.id, 'cfg-1')).toEqual(created);
    expect(await client.listPushConfigs(task.id)).toEqual([created]);
    await expect(client.deletePushConfig(task.id, 'cfg-1')).resolves.toBeUndefined();
    expect(await client.listPushConfigs(task.id)).toEqual([]);

    const error = await rejection(client.getPushConfig(task.id, 'cfg-1'));
    // v1 reports a missing config as TaskNotFound; v0.3 as an internal error (-32603).
    expect(error).toBeInstanceOf(isV1 ? TaskNotFoundError : InternalError);
    expect((error as A2AError).a2aCode).toBe(isV1 ? -32001 : -32603);
    expect((error as A2AError).agentMessage).toMatch(/Push notification config not found/);
  }, TEST_TIMEOUT);

  it('sendMessage with an inline push config: registered, and the agent posts to it', async () => {
    const path = `/inline/${combo.binding}/${combo.version}`;
    const url = `${hooks.origin}${path}`;
    const task = asTask(await client.sendMessage('input', { pushNotification: { id: 'inline', url, token: 'tok-inline' } }));
    expect(task.status.state).toBe('input-required');
    expect(await client.listPushConfigs(task.id)).toEqual([{ taskId: task.id, id: 'inline', url, token: 'tok-inline' }]);

    const received = await eventually(() => pushes.filter((push) => push.path === path));
    for (const push of received) expect(push.headers['x-a2a-notification-token']).toBe('tok-inline');
    // v1 posts one StreamResponse per event; v0.3 posts the whole Task (JSON-RPC shape, both bindings).
    const decoded = received.map((push) => decodeStreamEvent(push.body, isV1 ? 'v1' : 'v03'));
    for (const event of decoded) {
      expect(event.kind === 'task' ? event.id : event.taskId).toBe(task.id);
    }
    if (!isV1) expect(decoded.every((event) => event.kind === 'task')).toBe(true);

    const canceled = await client.cancelTask(task.id);
    expect(canceled.status.state).toBe('canceled'); // an idle (input-required) task cancels at once
  }, TEST_TIMEOUT);

  it('fail and reject: terminal failures with the agent\'s reason', async () => {
    const events = await collect(client.streamMessage('fail'));
    expect(statesOf(events)).toEqual(['submitted', 'working', 'failed']);
    const last = events.at(-1);
    expect(last?.kind === 'status-update' && textOf(last.status.message?.parts ?? [])).toBe('failed on purpose');

    const rejected = asTask(await client.sendMessage('reject'));
    expect(rejected.status.state).toBe('rejected');
    expect(textOf(rejected.status.message?.parts ?? [])).toBe('rejected on purpose');
  }, TEST_TIMEOUT);

  it('breaking out of a stream closes it; the task runs on and can be canceled', async () => {
    let taskId = '';
    for await (const event of client.streamMessage('slow steps=200 delayMs=20')) {
      if (event.kind === 'task') taskId = event.id;
      break;
    }
    expect(taskId).not.toBe('');
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect((await client.getTask(taskId)).status.state).toBe('working');
    await client.cancelTask(taskId);
    expect((await waitTerminal(client, taskId)).status.state).toBe('canceled');
  }, TEST_TIMEOUT);

  it('getExtendedCard: the extended card replaces client.card', async () => {
    const own = await open();
    expect(own.card.skills.map((skill) => skill.id)).toEqual(['scenarios']);
    const extended = await own.getExtendedCard();
    expect(extended.skills.map((skill) => skill.id)).toEqual(['scenarios', 'extended-only']);
    expect(extended.description).toMatch(/\(extended card\)$/);
    expect(extended.cardFormat).toBe(combo.version);
    expect(own.card).toBe(extended);
    // The client keeps talking through the interface it chose.
    expect(own.interface).toEqual({ binding: combo.binding, protocolVersion: combo.version, url: combo.url(server) });
  }, TEST_TIMEOUT);

  it('getTask of an unknown task: TaskNotFoundError naming method, URL and status', async () => {
    const error = await rejection(client.getTask('no-such-task'));
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect((error as A2AError).a2aCode).toBe(-32001);
    expect((error as A2AError).agentMessage).toBe('Task not found: no-such-task');
    const url = combo.binding === 'JSONRPC' ? server.jsonRpcUrl : `${server.restUrl}${isV1 ? '' : '/v1'}/tasks/no-such-task`;
    const method = combo.binding === 'JSONRPC' ? 'POST' : 'GET';
    // JSON-RPC errors come with HTTP 200; REST ones with 404.
    const status = combo.binding === 'JSONRPC' ? 200 : 404;
    // The same operation name on every version and binding.
    const operation = 'GetTask';
    expect(error).toMatchObject({ status, method, url, operation, taskId: 'no-such-task' });
    expect(error.message).toBe(
      `${operation} ${method} ${url} → HTTP ${status}: TaskNotFoundError -32001: Task not found: no-such-task`,
    );
  }, TEST_TIMEOUT);

  it('sending to a terminal task: the typed error each server gives (Surprise 21)', async () => {
    const completed = await completedTask();
    const error = await rejection(
      client.sendMessage({ text: 'echo late', taskId: completed.id, contextId: completed.contextId }),
    );
    expect(error).toBeInstanceOf(isV1 ? UnsupportedOperationError : InvalidRequestError);
    expect((error as A2AError).a2aCode).toBe(isV1 ? -32004 : -32600);
    expect((error as A2AError).agentMessage).toContain(`Task ${completed.id} is in a terminal state`);
  }, TEST_TIMEOUT);

  it('the README loop: every pause is answered once and done() settles with the final task', async () => {
    // Issue 6: on v1.0 the reply's stream opens with a Task snapshot that still shows the
    // input-required it answered; the old engine surfaced it as a new pause, answered twice and hung.
    const own: Recorded[] = [];
    const c = await open({ fetch: recordingFetch(own) });
    const task = await c.start('input');
    const pauses: string[] = [];
    const states: string[] = [];
    for await (const event of task.events()) {
      if (event.type !== 'status') continue;
      states.push(event.state);
      if (event.state === 'input-required') {
        pauses.push(textOf(event.message?.parts ?? []));
        expect(pauses.length).toBeLessThanOrEqual(1);
        await task.reply('blue');
      }
    }
    expect(pauses).toEqual(['need input']);
    const done = await task.done();
    expect(done.status.state).toBe('completed');
    expect(artifactText(done)).toBe('got: blue');
    expect(states.at(-1)).toBe('completed');
    // The agent saw exactly one creating send and one reply: no message was sent twice.
    const sends = own.filter((request) => /SendStreamingMessage|SendMessage|message\/stream|message\/send|message:s/.test(
      `${request.url} ${JSON.stringify((request.body as { method?: string } | undefined)?.method ?? '')}`,
    ));
    expect(sends.length).toBe(2);
  }, TEST_TIMEOUT);

  it('an A2A error inside the stream of a send ends the follow with that typed error (no polling)', async () => {
    // Issue 6: the official v1.0 server answers a streaming send to a finished task with an
    // in-stream `event: error` (-32004); the old engine took it for "cannot subscribe" and polled forever.
    const completed = await completedTask();
    const own: Recorded[] = [];
    const c = await open({ fetch: recordingFetch(own) });
    const settled = (async () => {
      const task = await c.start({ text: 'echo late', taskId: completed.id, contextId: completed.contextId });
      return task.done();
    })();
    const error = await rejection(settled);
    // The v0.3 server's REST stream route fails before it can serialize the error: HTTP 500.
    const restV03 = !isV1 && combo.binding === 'HTTP+JSON';
    const expected = isV1 ? UnsupportedOperationError : restV03 ? InternalError : InvalidRequestError;
    expect(error).toBeInstanceOf(expected);
    expect((error as A2AError).a2aCode).toBe(isV1 ? -32004 : restV03 ? -32603 : -32600);
    if (combo.binding === 'JSONRPC') expect(error.status).toBe(200); // it came inside the stream
    // One card request and the send; no GetTask polling, no resubscription, no re-send.
    expect(own.filter((request) => request.method === 'POST' || !request.url.includes('agent-card')).length).toBe(1);
  }, TEST_TIMEOUT);

  it(isV1 ? 'sends A2A-Version: 1.0 on every request, and the server enforces it' : 'sends no A2A-Version', async () => {
    const own: Recorded[] = [];
    const c = await open({ fetch: recordingFetch(own) });
    await c.getTask((await completedTask()).id);
    expect(own.length).toBeGreaterThanOrEqual(2); // the card, then the call
    for (const request of own) expect(request.headers['a2a-version']).toBe(isV1 ? '1.0' : undefined);
    const call = own.at(-1);
    expect(call?.url.startsWith(combo.url(server))).toBe(true);
    if (isV1) {
      // The header is what makes the call v1: a per-call `A2A-Version: 0.3` is refused (Surprise 4).
      const error = await rejection(c.getTask('no-such-task', { headers: { 'A2A-Version': '0.3' } }));
      expect(error).toBeInstanceOf(VersionNotSupportedError);
      expect((error as A2AError).a2aCode).toBe(-32009);
      expect(own.at(-1)?.headers['a2a-version']).toBe('0.3');
    }
  }, TEST_TIMEOUT);

  it('extensions: sends the activated extension URIs in the versioned header', async () => {
    const own: Recorded[] = [];
    const c = await open({ fetch: recordingFetch(own), extensions: ['urn:test:ext'] });
    const reply = await c.sendMessage('echo ext', { extensions: ['urn:test:other'] });
    expect(reply.kind).toBe('message');
    const call = own.at(-1);
    const header = isV1 ? 'a2a-extensions' : 'x-a2a-extensions';
    const other = isV1 ? 'x-a2a-extensions' : 'a2a-extensions';
    expect(call?.headers[header]).toBe('urn:test:ext, urn:test:other');
    expect(call?.headers[other]).toBeUndefined();
  }, TEST_TIMEOUT);
});

describe('plain connect(origin), no options', () => {
  let compat: OfficialServer;
  beforeAll(async () => {
    compat = await startOfficialV1Server({ legacyCompat: true });
  });
  afterAll(async () => {
    await compat?.close();
  });

  it.each([
    ['v1', () => v1, '1.0'],
    ['v0.3', () => v03, '0.3'],
    ['v1 with legacyCompat', () => compat, '1.0'],
  ] as const)('%s server: picks a working interface', async (_name, server, version) => {
    const client = await connect(server().origin);
    expect(client.cardUrl).toBe(server().cardUrl);
    expect(client.interface).toEqual({ binding: 'JSONRPC', protocolVersion: version, url: server().jsonRpcUrl });
    const reply = await client.sendMessage('echo hi');
    expect(reply.kind === 'message' && textOf(reply.parts)).toBe('echo: echo hi');
    const events = await collect(client.streamMessage('stream updates=1 chunks=2'));
    expect(statesOf(events)).toEqual(['submitted', 'working', 'completed']);
    const first = events[0];
    if (first?.kind !== 'task') throw new Error('expected the task first');
    expect(artifactText(await client.getTask(first.id))).toBe('chunk-0;chunk-1;');
  }, TEST_TIMEOUT);

  it('legacyCompat card: lists 1.0 and 0.3 interfaces, and Tether can use the 0.3 ones too', async () => {
    const client = await connect(compat.origin, { protocolVersions: ['0.3'], cardCache: false });
    expect(client.interface).toEqual({ binding: 'JSONRPC', protocolVersion: '0.3', url: compat.jsonRpcUrl });
    const reply = await client.sendMessage('echo old');
    expect(reply.kind === 'message' && textOf(reply.parts)).toBe('echo: echo old');
  }, TEST_TIMEOUT);
});
