import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseScenarioCommand, startTestAgent } from '../src/index.js';
import type { ScenarioFn, TestAgent } from '../src/index.js';
import { rest, rpc, V1_HEADERS, v03JsonRpc, v03Rest, v1JsonRpc } from './helpers.js';
import type { Json } from './helpers.js';

// Exact per-dialect shapes for parts, messages, tasks and push configs.

const parts: ScenarioFn = (ctx) => {
  ctx.status('working');
  ctx.artifact({
    artifactId: 'mixed',
    parts: [
      { kind: 'file', url: 'https://example.test/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' },
      { kind: 'file', bytes: 'aGk=', mediaType: 'text/plain' },
      { kind: 'data', data: { answer: 42 } },
    ],
    lastChunk: true,
  });
  ctx.status('completed');
};

let agent: TestAgent;

beforeEach(async () => {
  agent = await startTestAgent({ scenarios: { parts } });
});

afterEach(async () => {
  await agent.close();
});

describe('parts', () => {
  it('v1 ProtoJSON: url/raw/data oneofs with mediaType/filename, lastChunk present, append omitted', async () => {
    const { frames } = await v1JsonRpc.stream(agent, 'parts');
    const update = frames.map((f) => f.data['result']).find((r: Json) => r['artifactUpdate'] !== undefined)!['artifactUpdate'];
    expect(update.artifact.parts).toEqual([
      { url: 'https://example.test/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' },
      { raw: 'aGk=', mediaType: 'text/plain' },
      { data: { answer: 42 } },
    ]);
    expect(update.lastChunk).toBe(true);
    expect('append' in update).toBe(false);
  });

  it('v0.3 JSON-RPC: kind discriminators, file {uri|bytes, mimeType, name}, explicit append/lastChunk', async () => {
    const { frames } = await v03JsonRpc.stream(agent, 'parts');
    const update = frames.map((f) => f.data['result']).find((r: Json) => r['kind'] === 'artifact-update')!;
    expect(update.artifact.parts).toEqual([
      { kind: 'file', file: { uri: 'https://example.test/a.pdf', mimeType: 'application/pdf', name: 'a.pdf' } },
      { kind: 'file', file: { bytes: 'aGk=', mimeType: 'text/plain' } },
      { kind: 'data', data: { answer: 42 } },
    ]);
    expect(update).toMatchObject({ append: false, lastChunk: true });
  });

  it('v0.3 HTTP+JSON: proto JSON fileWithUri/fileWithBytes and data {data}', async () => {
    const { frames } = await v03Rest.stream(agent, 'parts');
    const update = frames.find((f) => f.data['artifactUpdate'] !== undefined)!.data['artifactUpdate'];
    expect(update.artifact.parts).toEqual([
      { file: { fileWithUri: 'https://example.test/a.pdf', mimeType: 'application/pdf' } },
      { file: { fileWithBytes: 'aGk=', mimeType: 'text/plain' } },
      { data: { data: { answer: 42 } } },
    ]);
    const last = frames.at(-1)!.data['statusUpdate'];
    expect(last).toMatchObject({ status: { state: 'TASK_STATE_COMPLETED' }, final: true });
    // proto3 drops `final: false`.
    expect('final' in frames[1]!.data['statusUpdate']).toBe(false);
  });

  it('decodes incoming file and data parts of each dialect into the same model', async () => {
    const v1 = await rpc(
      agent,
      'SendMessage',
      {
        message: {
          messageId: 'a',
          role: 'ROLE_USER',
          parts: [{ text: 'input' }, { url: 'https://x.test/f', mediaType: 'image/png', filename: 'f.png' }, { data: [1, 2] }],
        },
      },
      { version: '1.0' },
    );
    const v03 = await rpc(
      agent,
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: 'b',
          role: 'user',
          parts: [{ kind: 'text', text: 'input' }, { kind: 'file', file: { bytes: 'eA==', mimeType: 'text/plain', name: 'x.txt' } }],
        },
      },
      { version: null },
    );
    const v03r = await rest(agent, 'POST', '/v1/message:send', {
      request: { messageId: 'c', role: 'ROLE_USER', content: [{ text: 'input' }, { data: { data: { k: 'v' } } }] },
    });
    const history = (id: string) => agent.tasks.get(id)!.history[0]!.parts;
    expect(history(v1.body['result'].task.id)).toEqual([
      { kind: 'text', text: 'input' },
      { kind: 'file', url: 'https://x.test/f', mediaType: 'image/png', filename: 'f.png' },
      { kind: 'data', data: [1, 2] },
    ]);
    expect(history(v03.body['result'].id)).toEqual([
      { kind: 'text', text: 'input' },
      { kind: 'file', bytes: 'eA==', mediaType: 'text/plain', filename: 'x.txt' },
    ]);
    expect(history(v03r.body['task'].id)).toEqual([
      { kind: 'text', text: 'input' },
      { kind: 'data', data: { k: 'v' } },
    ]);
  });
});

describe('tasks and messages', () => {
  it('v1 task: TASK_STATE_*, ROLE_*, no kind, empty artifacts left out', async () => {
    const { result } = await v1JsonRpc.send(agent, 'reject');
    const task = result!['task'] as Json;
    expect(task['kind']).toBeUndefined();
    expect(task['status'].state).toBe('TASK_STATE_REJECTED');
    expect(task['status'].message.role).toBe('ROLE_AGENT');
    expect(task['status'].timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect('artifacts' in task).toBe(false);
    expect(task['history'][0].role).toBe('ROLE_USER');
  });

  it('v0.3 JSON-RPC task: kind task, kebab state, role agent, arrays present', async () => {
    const { result } = await v03JsonRpc.send(agent, 'reject');
    expect(result).toMatchObject({ kind: 'task', status: { state: 'rejected', message: { kind: 'message', role: 'agent' } }, artifacts: [] });
  });

  it('v0.3 HTTP+JSON: TASK_STATE_CANCELLED and Message content', async () => {
    const { result } = await v03Rest.send(agent, 'input');
    const id = result!['task'].id as string;
    expect(result!['task'].status.message.content).toEqual([{ text: 'need input' }]);
    expect(result!['task'].status.message.parts).toBeUndefined();
    const canceled = await rest(agent, 'POST', `/v1/tasks/${id}:cancel`, {});
    expect(canceled.body['status'].state).toBe('TASK_STATE_CANCELLED');
  });

  it('historyLength 0 is "none" in v1 and "all" in v0.3', async () => {
    const { result } = await v1JsonRpc.send(agent, 'fail');
    const id = result!['task'].id as string;
    expect('history' in (await v1JsonRpc.get(agent, id, 0)).result!).toBe(false);
    expect((await v03JsonRpc.get(agent, id, 0)).result!['history']).toHaveLength(2);
  });
});

describe('push config shapes', () => {
  it('v1 is flat; v0.3 JSON-RPC wraps {taskId, pushNotificationConfig}; v0.3 REST names it tasks/{id}/pushNotificationConfigs/{cfg}', async () => {
    const { result } = await v1JsonRpc.send(agent, 'input');
    const taskId = result!['task'].id as string;
    const v1 = await rest(agent, 'POST', `/tasks/${taskId}/pushNotificationConfigs`, { url: 'http://127.0.0.1:9/a', token: 't1' }, V1_HEADERS);
    expect(v1.status).toBe(201);
    expect(v1.body).toEqual({ id: v1.body['id'], taskId, url: 'http://127.0.0.1:9/a', token: 't1' });
    const v03 = await rpc(
      agent,
      'tasks/pushNotificationConfig/set',
      { taskId, pushNotificationConfig: { url: 'http://127.0.0.1:9/b' } },
      { version: null },
    );
    // v0.3 defaults the config id to the task id, like the official server.
    expect(v03.body['result']).toEqual({ taskId, pushNotificationConfig: { id: taskId, url: 'http://127.0.0.1:9/b' } });
    const v03r = await rest(agent, 'POST', `/v1/tasks/${taskId}/pushNotificationConfigs`, {
      parent: `tasks/${taskId}`,
      configId: 'c3',
      config: { pushNotificationConfig: { url: 'http://127.0.0.1:9/c', authentication: { schemes: ['Bearer'], credentials: 'x' } } },
    });
    expect(v03r.status).toBe(201);
    expect(v03r.body).toEqual({
      name: `tasks/${taskId}/pushNotificationConfigs/c3`,
      pushNotificationConfig: { id: 'c3', url: 'http://127.0.0.1:9/c', authentication: { schemes: ['Bearer'], credentials: 'x' } },
    });
    const deleted = await rpc(agent, 'tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: 'c3' }, { version: null });
    expect(deleted.body).toEqual({ jsonrpc: '2.0', id: 1, result: null });
    const v1Deleted = await rpc(agent, 'DeleteTaskPushNotificationConfig', { taskId, id: taskId }, { version: '1.0' });
    expect(v1Deleted.body['result']).toEqual({});
    expect(agent.tasks.get(taskId)!.pushConfigs.map((c) => [c.url, c.dialect])).toEqual([['http://127.0.0.1:9/a', '1.0']]);
  });
});

describe('parseScenarioCommand', () => {
  it('splits the name from key=value params and ignores other words', () => {
    expect(parseScenarioCommand('  stream updates=3 chunks=5 hello delayMs=  ')).toEqual({
      name: 'stream',
      params: { updates: '3', chunks: '5', delayMs: '' },
    });
    expect(parseScenarioCommand('')).toEqual({ name: '', params: {} });
  });
});
