import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient, type CustomBinding, type PushNotificationConfig, type Task, type Transport } from '../src/index.js';
import { json, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

// Issue 33, point 7 (G10): an answer about another task than the one asked for is refused with
// PROTOCOL_VIOLATION — GetTask, CancelTask and the push-config calls — on every binding, a binding of your
// own included (the client checks it, not the binding), as a stream event of another task is.

const FOREIGN_TASK = { id: 't-OTHER', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };
const FOREIGN_CONFIG = { taskId: 't-OTHER', id: 'cfg-1', url: 'https://hooks.example/a2a' };

async function failure(promise: Promise<unknown>): Promise<TetherError> {
  const error = await promise.then(
    (value: unknown) => value,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TetherError);
  return error as TetherError;
}

/** Every call asks about task t-3 and gets an answer about t-OTHER: each is PROTOCOL_VIOLATION. */
async function expectRefused(client: A2AClient): Promise<void> {
  const refused = [
    await failure(client.getTask('t-3', { maxRetries: 0 })),
    await failure(client.cancelTask('t-3')),
    await failure(client.getPushConfig('t-3', 'cfg-1', { maxRetries: 0 })),
    await failure(client.listPushConfigs('t-3', { maxRetries: 0 })),
    await failure(client.createPushConfig({ taskId: 't-3', url: 'https://hooks.example/a2a' })),
  ];
  for (const error of refused) {
    expect(error.code).toBe('PROTOCOL_VIOLATION');
    expect(error.taskId).toBe('t-3');
    expect(error.message).toContain('"t-OTHER"');
  }
}

describe('an answer about another task', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
    server.on('GET /.well-known/agent-card.json', (_req, res) => json(res, 200, v1Card(server.origin)));
  });
  afterEach(async () => {
    await server.close();
  });

  it('over JSON-RPC: GetTask, CancelTask and the push-config calls are PROTOCOL_VIOLATION', async () => {
    server.on('POST /rpc', (req, res: ServerResponse) => {
      const rpc = JSON.parse(req.body) as { id: number; method: string };
      const result = rpc.method === 'GetTask' || rpc.method === 'CancelTask' ? FOREIGN_TASK : rpc.method === 'ListTaskPushNotificationConfigs' ? { configs: [FOREIGN_CONFIG] } : FOREIGN_CONFIG;
      json(res, 200, { jsonrpc: '2.0', id: rpc.id, result });
    });
    await expectRefused(await connect(server.url, { cardCache: false, preferredBindings: ['JSONRPC'] }));
  });

  it('over HTTP+JSON: the same', async () => {
    server.on('GET /rest/tasks/t-3', (_req, res) => json(res, 200, FOREIGN_TASK));
    server.on('POST /rest/tasks/t-3:cancel', (_req, res) => json(res, 200, FOREIGN_TASK));
    server.on('GET /rest/tasks/t-3/pushNotificationConfigs/cfg-1', (_req, res) => json(res, 200, FOREIGN_CONFIG));
    server.on('GET /rest/tasks/t-3/pushNotificationConfigs', (_req, res) => json(res, 200, { configs: [FOREIGN_CONFIG] }));
    server.on('POST /rest/tasks/t-3/pushNotificationConfigs', (_req, res) => json(res, 200, FOREIGN_CONFIG));
    await expectRefused(await connect(server.url, { cardCache: false, preferredBindings: ['HTTP+JSON'] }));
  });

  it('over a binding of your own that passes the answer through: the client refuses it', async () => {
    const task = (): Task => ({ kind: 'task', id: 't-OTHER', contextId: 'c-1', status: { state: 'working' }, artifacts: [], history: [] });
    const config = (): PushNotificationConfig => ({ ...FOREIGN_CONFIG });
    const unsupported = (): never => {
      throw new TetherError('UNSUPPORTED_OPERATION', 'not in this test');
    };
    const bus: CustomBinding = {
      name: 'BUS',
      create: (context): Transport => ({
        binding: 'BUS',
        protocolVersion: '1.0',
        url: context.iface.url,
        sendMessage: unsupported,
        openStream: unsupported,
        listTasks: unsupported,
        openSubscription: unsupported,
        deletePushConfig: unsupported,
        getExtendedCard: unsupported,
        getTask: async () => task(),
        cancelTask: async () => task(),
        getPushConfig: async () => config(),
        listPushConfigs: async () => [config()],
        createPushConfig: async () => config(),
      }),
    };
    const card = { ...v1Card(server.origin), supportedInterfaces: [{ url: 'bus://agents/one', protocolBinding: 'BUS', protocolVersion: '1.0' }] };
    await expectRefused(await connect(server.url, { card, cardCache: false, bindings: [bus] }));
  });

  it('an answer about the task asked for still resolves (and a push config without a task id is the one asked for)', async () => {
    server.on('POST /rpc', (req, res: ServerResponse) => {
      const rpc = JSON.parse(req.body) as { id: number; method: string };
      const result = rpc.method === 'GetTask' ? { ...FOREIGN_TASK, id: 't-3' } : { id: 'cfg-1', url: 'https://hooks.example/a2a' };
      json(res, 200, { jsonrpc: '2.0', id: rpc.id, result });
    });
    const client = await connect(server.url, { cardCache: false, preferredBindings: ['JSONRPC'] });
    expect((await client.getTask('t-3')).id).toBe('t-3');
    expect(await client.getPushConfig('t-3', 'cfg-1')).toMatchObject({ taskId: 't-3', id: 'cfg-1' });
  });
});
