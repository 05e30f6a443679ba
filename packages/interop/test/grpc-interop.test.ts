// The gRPC binding (`@a2a-tether/node/grpc`, issue 21) against the official gRPC server
// (`@a2a-js/sdk/server/grpc` 1.3.0, A2A v1.0): chosen from the card, every operation, the agent's errors
// typed as over the HTTP bindings, and the task engine's guarantees over gRPC — a stream whose TCP
// connection is reset is resumed with SubscribeToTask, the message is never sent twice, and the task ends
// with exactly the agent's artifact.
import { connect, TaskNotCancelableError, TaskNotFoundError, TetherError } from '@a2a-tether/node';
import type { A2AClient, Part, StreamEvent, Task } from '@a2a-tether/node';
import { grpcBinding, grpcTarget } from '@a2a-tether/node/grpc';
import { taskPages } from '@a2a-tether/node/protocol';
import { startTcpProxy } from '@a2a-tether/testkit';
import type { TcpProxy } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';

const TEST_TIMEOUT = 15_000;

let server: OfficialServer;
let client: A2AClient;
beforeAll(async () => {
  server = await startOfficialV1Server({ grpc: true });
  client = await connect(server.cardUrl, { bindings: [grpcBinding()], cardCache: false });
});
afterAll(async () => {
  await server?.close();
});

const textOf = (parts: readonly Part[]): string => parts.map((part) => (part.kind === 'text' ? part.text : '')).join('');
const artifactText = (task: Task): string => task.artifacts.map((artifact) => textOf(artifact.parts)).join('');
const chunks = (n: number): string => Array.from({ length: n }, (_, i) => `chunk-${i};`).join('');

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

async function rejection(promise: Promise<unknown>): Promise<TetherError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TetherError);
  return error as TetherError;
}

describe('the gRPC binding against the official gRPC server', () => {
  it('is chosen from the card, whose GRPC interface is host:port', () => {
    expect(client.interface).toEqual({ binding: 'GRPC', protocolVersion: '1.0', url: server.grpcTarget });
    expect(client.card.interfaces.map((i) => i.binding)).toEqual(['GRPC', 'JSONRPC', 'HTTP+JSON']);
  });

  it('SendMessage: a message reply, and a blocking send’s completed task with artifact and history', async () => {
    const reply = await client.sendMessage('echo over grpc');
    expect(reply.kind === 'message' && [reply.role, textOf(reply.parts)]).toEqual(['agent', 'echo: echo over grpc']);
    const task = await client.sendMessage('stream updates=2 chunks=3');
    if (task.kind !== 'task') throw new Error('expected a task');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts.map((a) => [a.artifactId, textOf(a.parts), a.parts.length])).toEqual([['result', chunks(3), 3]]);
    expect(task.history.map((m) => [m.role, textOf(m.parts)])).toEqual([
      ['user', 'stream updates=2 chunks=3'],
      ['agent', 'step 0'],
      ['agent', 'step 1'],
    ]);
    expect(Date.parse(task.status.timestamp ?? '')).toBeGreaterThan(0);
  }, TEST_TIMEOUT);

  it('SendStreamingMessage: the task, then statuses and artifact chunks in order', async () => {
    const events = await collect(client.streamMessage('stream updates=2 chunks=3'));
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update', 'artifact-update', 'status-update', 'artifact-update', 'artifact-update', 'status-update']);
    const chunkEvents = events.flatMap((e) => (e.kind === 'artifact-update' ? [[textOf(e.artifact.parts), e.append, e.lastChunk]] : []));
    expect(chunkEvents).toEqual([
      ['chunk-0;', false, false],
      ['chunk-1;', true, false],
      ['chunk-2;', true, true],
    ]);
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
  }, TEST_TIMEOUT);

  it('GetTask with historyLength, ListTasks paged, SubscribeToTask on a running task', async () => {
    const done = await client.sendMessage('stream updates=2 chunks=3');
    if (done.kind !== 'task') throw new Error('expected a task');
    expect((await client.getTask(done.id, { historyLength: 1 })).history.map((m) => textOf(m.parts))).toEqual(['step 1']);
    expect(artifactText(await client.getTask(done.id))).toBe(chunks(3));

    const seen: string[] = [];
    for await (const page of taskPages(client, { contextId: done.contextId, pageSize: 1 })) seen.push(...page.tasks.map((t) => t.id));
    expect(seen).toEqual([done.id]);

    const running = await client.sendMessage('stream updates=3 chunks=4 delayMs=60', { returnImmediately: true });
    if (running.kind !== 'task') throw new Error('expected a task');
    const events = await collect(client.subscribe(running.id));
    expect(events[0]).toMatchObject({ kind: 'task', id: running.id });
    expect(events.at(-1)).toMatchObject({ kind: 'status-update', status: { state: 'completed' } });
    expect(artifactText(await client.getTask(running.id))).toBe(chunks(4));
  }, TEST_TIMEOUT);

  it('CancelTask, and the agent’s errors as the same typed A2A errors as over HTTP', async () => {
    const slow = await client.sendMessage('slow steps=200 delayMs=20', { returnImmediately: true });
    if (slow.kind !== 'task') throw new Error('expected a task');
    const canceled = await client.cancelTask(slow.id);
    expect(canceled.id).toBe(slow.id);
    const missing = await rejection(client.getTask('no-such-task'));
    expect(missing).toBeInstanceOf(TaskNotFoundError);
    expect(missing).toMatchObject({ reason: 'TASK_NOT_FOUND', a2aCode: -32001, operation: 'GetTask' });
    const finished = await client.sendMessage('echo x');
    const done = await client.sendMessage('stream updates=1 chunks=1');
    expect(finished.kind).toBe('message');
    if (done.kind !== 'task') throw new Error('expected a task');
    expect(await rejection(client.cancelTask(done.id))).toBeInstanceOf(TaskNotCancelableError);
  }, TEST_TIMEOUT);

  it('push configs: create, get, list, delete', async () => {
    const task = await client.sendMessage('slow steps=100 delayMs=20', { returnImmediately: true });
    if (task.kind !== 'task') throw new Error('expected a task');
    const created = await client.createPushConfig({ taskId: task.id, id: 'hook-1', url: 'http://127.0.0.1:9/hook', token: 'tok-1', authentication: { schemes: ['Bearer'], credentials: 'c-1' } });
    expect(created).toMatchObject({ taskId: task.id, id: 'hook-1', url: 'http://127.0.0.1:9/hook', token: 'tok-1', authentication: { schemes: ['Bearer'], credentials: 'c-1' } });
    expect(await client.getPushConfig(task.id, 'hook-1')).toMatchObject({ id: 'hook-1', url: 'http://127.0.0.1:9/hook' });
    expect((await client.listPushConfigs(task.id)).map((c) => c.id)).toEqual(['hook-1']);
    await client.deletePushConfig(task.id, 'hook-1');
    expect(await client.listPushConfigs(task.id)).toEqual([]);
    await client.cancelTask(task.id);
  }, TEST_TIMEOUT);

  it('GetExtendedAgentCard: the extended card, decoded from protobuf', async () => {
    const card = await client.getExtendedCard();
    expect(card.description).toMatch(/\(extended card\)$/);
    expect(card.skills.map((s) => s.id)).toEqual(['scenarios', 'extended-only']);
  }, TEST_TIMEOUT);

  it('the task engine over gRPC: a pause answered, a cancel confirmed', async () => {
    const paused = await client.start('input');
    for await (const event of paused.events()) if (event.type === 'status' && event.state === 'input-required') break;
    await paused.reply('blue');
    expect(artifactText(await paused.done())).toBe('got: blue');
    const slow = await client.start('slow steps=200 delayMs=20');
    for await (const event of slow.events()) if (event.type === 'status' && event.state === 'working') break;
    expect(await slow.cancel()).toMatchObject({ requested: true, confirmed: true, state: 'canceled' });
  }, TEST_TIMEOUT);
});

describe('the gRPC binding through a connection that is reset', () => {
  let proxied: OfficialServer;
  let proxy: TcpProxy | undefined;
  beforeAll(async () => {
    proxied = await startOfficialV1Server({
      grpc: {
        advertise: async (port) => {
          proxy = await startTcpProxy({ target: { host: '127.0.0.1', port } });
          return proxy.address;
        },
      },
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await proxied?.close();
  });

  it('start() → done(): the stream is resumed with SubscribeToTask, the message reaches the agent once, the artifact is exact', async () => {
    if (!proxy) throw new Error('no proxy');
    const tcp = proxy;
    const resilient = await connect(proxied.cardUrl, { bindings: [grpcBinding()], cardCache: false });
    expect(resilient.interface.url).toBe(tcp.address);
    const task = await resilient.start('stream updates=4 chunks=12 delayMs=40');
    const links: string[] = [];
    let artifactEvents = 0;
    for await (const event of task.events()) {
      if (event.type === 'connection') links.push(event.state);
      if (event.type === 'artifact' && ++artifactEvents === 3) tcp.cutLink('reset');
      if (event.type === 'connection' && event.state === 'reconnecting' && tcp.cut) tcp.heal();
      if (event.type === 'status' && event.state === 'completed') break;
    }
    const result = await task.done();
    expect(result.status.state).toBe('completed');
    const parts = result.artifacts.find((a) => a.artifactId === 'result')?.parts ?? [];
    expect(textOf(parts)).toBe(chunks(12));
    expect(parts).toHaveLength(12);
    expect(tcp.stats().reset).toBeGreaterThanOrEqual(1);
    expect(links).toContain('reconnecting');
    expect(proxied.receivedMessageIds.filter((id) => id === result.history[0]?.messageId)).toHaveLength(1);
  }, 30_000);

  it('grpcTarget reads host:port and URLs', () => {
    expect(grpcTarget('127.0.0.1:50051')).toEqual({ target: '127.0.0.1:50051', tls: false });
    expect(grpcTarget('agent.example:443')).toEqual({ target: 'agent.example:443', tls: true });
    expect(grpcTarget('https://agent.example')).toEqual({ target: 'agent.example:443', tls: true });
    expect(grpcTarget('grpc://agent.example:50051')).toEqual({ target: 'agent.example:50051', tls: false });
    expect(() => grpcTarget('ws://agent.example')).toThrow(TetherError);
  });
});
