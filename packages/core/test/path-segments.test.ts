import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient, type Binding } from '../src/index.js';
import { json, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

/** Runs a call (draining it if it is a stream) and returns its TetherError. */
async function failure(call: () => unknown): Promise<TetherError> {
  try {
    const result = call();
    if (result && typeof result === 'object' && Symbol.asyncIterator in result) {
      for await (const _ of result as AsyncIterable<unknown>) {
        /* drain */
      }
    } else {
      await result;
    }
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    return error as TetherError;
  }
  throw new Error('expected a failure');
}

function client(binding: Binding, tenant?: string): Promise<A2AClient> {
  const url = `${server.origin}/${binding === 'JSONRPC' ? 'rpc' : 'rest'}`;
  const iface = { url, protocolBinding: binding, protocolVersion: '1.0', ...(tenant === undefined ? {} : { tenant }) };
  return connect(server.url, { cardCache: false, card: v1Card(server.origin, { supportedInterfaces: [iface] }) });
}

const webhook = { url: 'https://hooks.example/a2a' };
const calls: [string, (c: A2AClient) => unknown][] = [
  ["getTask('..')", (c) => c.getTask('..')],
  ["getTask('.')", (c) => c.getTask('.')],
  ["getTask('')", (c) => c.getTask('')],
  ["cancelTask('..')", (c) => c.cancelTask('..')],
  ["subscribe('..')", (c) => c.subscribe('..')],
  ["createPushConfig({ taskId: '..' })", (c) => c.createPushConfig({ ...webhook, taskId: '..' })],
  ["listPushConfigs('.')", (c) => c.listPushConfigs('.')],
  ["getPushConfig('t1', '..')", (c) => c.getPushConfig('t1', '..')],
  ["getPushConfig('..', 'p1')", (c) => c.getPushConfig('..', 'p1')],
  ["deletePushConfig('t1', '.')", (c) => c.deletePushConfig('t1', '.')],
  ["deletePushConfig('t1', '')", (c) => c.deletePushConfig('t1', '')],
];

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('ids that are dot segments or empty, over %s', (binding) => {
  it.each(calls)('%s → INVALID_ARGUMENT before any request', async (_name, call) => {
    const c = await client(binding);
    const error = await failure(() => call(c));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false, isRetryable: false });
    expect(error.message).toMatch(/must not be empty, "\." or "\.\."/);
    expect(server.requests).toEqual([]);
  });

  it.each(['..', '.'])('a tenant %j → INVALID_ARGUMENT before any request', async (tenant) => {
    const c = await client(binding, tenant);
    for (const call of [() => c.getTask('t1'), () => c.sendMessage('hi'), () => c.listTasks()]) {
      expect(await failure(call)).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    }
    expect(server.requests).toEqual([]);
  });
});

describe('ids that merely contain dots or slashes stay one path segment', () => {
  it.each([
    ['...', '/rest/tasks/...'],
    ['.hidden', '/rest/tasks/.hidden'],
    ['a/..', '/rest/tasks/a%2F..'],
    ['%2e%2e', '/rest/tasks/%252e%252e'],
  ])('getTask(%j) → GET %s', async (taskId, path) => {
    const c = await client('HTTP+JSON');
    server.on(`GET ${path}`, (_req, res) => json(res, 200, { id: taskId, contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } }));
    expect((await c.getTask(taskId)).id).toBe(taskId);
    expect(server.requests.map((r) => r.path)).toEqual([path]);
  });
});
