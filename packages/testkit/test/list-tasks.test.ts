import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestAgent } from '../src/index.js';
import type { TestAgent } from '../src/index.js';
import { rest, rpc, V1_HEADERS, v1Message } from './helpers.js';
import type { Json } from './helpers.js';

let agent: TestAgent;

beforeEach(async () => {
  agent = await startTestAgent();
});

afterEach(async () => {
  await agent.close();
});

async function send(text: string, contextId?: string): Promise<Json> {
  const message = v1Message(text, contextId === undefined ? {} : { contextId });
  const { body } = await rpc(agent, 'SendMessage', { message }, { version: '1.0' });
  return body['result'].task as Json;
}

const viaRpc = async (params: Json): Promise<Json> => {
  const { body } = await rpc(agent, 'ListTasks', params, { version: '1.0' });
  return (body['result'] as Json | undefined) ?? body;
};

const viaRest = async (params: Json): Promise<Json> => {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)])).toString();
  return (await rest(agent, 'GET', `/tasks${query === '' ? '' : `?${query}`}`, undefined, V1_HEADERS)).body;
};

describe.each([
  ['JSON-RPC', viaRpc],
  ['HTTP+JSON', viaRest],
] as const)('ListTasks over %s', (_name, list) => {
  it('lists newest first with totalSize and an empty nextPageToken on the last page', async () => {
    const a = await send('fail');
    const b = await send('reject');
    const c = await send('input');
    const result = await list({});
    expect(result['tasks'].map((t: Json) => t['id'])).toEqual([c['id'], b['id'], a['id']]);
    expect(result).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 3 });
  });

  it('filters by contextId, status and statusTimestampAfter', async () => {
    const first = await send('fail', 'ctx-1');
    await send('input', 'ctx-1');
    const other = await send('fail', 'ctx-2');
    const inCtx = await list({ contextId: 'ctx-1' });
    expect(inCtx['tasks']).toHaveLength(2);
    expect(inCtx['totalSize']).toBe(2);
    const failed = await list({ status: 'TASK_STATE_FAILED' });
    expect(failed['tasks'].map((t: Json) => t['id'])).toEqual([other['id'], first['id']]);
    const after = await list({ statusTimestampAfter: other['status'].timestamp });
    expect(after['tasks'].map((t: Json) => t['id'])).toEqual([other['id']]);
  });

  it('pages with pageSize/pageToken', async () => {
    const ids = [];
    for (const text of ['fail', 'fail', 'fail']) ids.push((await send(text))['id']);
    const page1 = await list({ pageSize: 2 });
    expect(page1['tasks'].map((t: Json) => t['id'])).toEqual([ids[2], ids[1]]);
    expect(page1['nextPageToken']).not.toBe('');
    const page2 = await list({ pageSize: 2, pageToken: page1['nextPageToken'] });
    expect(page2['tasks'].map((t: Json) => t['id'])).toEqual([ids[0]]);
    expect(page2['nextPageToken']).toBe('');
  });

  it('omits artifacts unless includeArtifacts, and applies historyLength', async () => {
    await send('artifacts n=2 delayMs=0');
    const plain = (await list({}))['tasks'][0] as Json;
    expect(plain['artifacts']).toBeUndefined();
    expect(plain['history']).toHaveLength(1);
    const full = (await list({ includeArtifacts: true, historyLength: 0 }))['tasks'][0] as Json;
    expect(full['artifacts'].map((x: Json) => x['artifactId'])).toEqual(['artifact-1', 'artifact-2']);
    expect(full['history']).toBeUndefined();
  });
});

describe('ListTasks validation', () => {
  it('refuses a pageSize outside 1..100 and a bad pageToken', async () => {
    expect((await viaRpc({ pageSize: 0 }))['error'].code).toBe(-32602);
    expect((await viaRpc({ pageToken: 'garbage' }))['error'].code).toBe(-32602);
    const response = await rest(agent, 'GET', '/tasks?pageSize=500', undefined, V1_HEADERS);
    expect(response.status).toBe(400);
  });
});
