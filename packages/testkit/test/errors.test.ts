import { Buffer } from 'node:buffer';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestAgent } from '../src/index.js';
import type { TestAgent, TestAgentOptions } from '../src/index.js';
import { rest, rpc, v03Message, v03RestMessage, V1_HEADERS, v1Message } from './helpers.js';

let agent: TestAgent | undefined;

afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function start(options: TestAgentOptions = {}): Promise<TestAgent> {
  agent = await startTestAgent(options);
  return agent;
}

const ERROR_INFO = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', domain: 'a2a-protocol.org' };

describe('JSON-RPC errors', () => {
  it('-32700 on malformed JSON, with HTTP 200 and id null', async () => {
    const a = await start();
    const response = await fetch(a.jsonRpcUrl, { method: 'POST', body: '{"jsonrpc":"2.0",' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: the request body is not valid JSON' },
    });
    expect(a.requests[0]!.body).toBe('{"jsonrpc":"2.0",');
  });

  it('-32600 on a request without jsonrpc/method', async () => {
    const a = await start();
    const response = await fetch(a.jsonRpcUrl, { method: 'POST', body: JSON.stringify({ id: 3, method: 5 }) });
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it('-32601 for unknown methods, including tasks/list on v0.3 and v0.3 names under A2A-Version 1.0', async () => {
    const a = await start();
    expect((await rpc(a, 'tasks/list', {}, { version: null })).body['error'].code).toBe(-32601);
    expect((await rpc(a, 'Frobnicate', {}, { version: '1.0' })).body['error'].code).toBe(-32601);
    expect((await rpc(a, 'message/send', { message: v03Message('x') }, { version: '1.0' })).body['error'].code).toBe(-32601);
  });

  it('-32009 for a v1 method without A2A-Version (with v1 ErrorInfo), unless requireVersionHeader is off', async () => {
    const a = await start();
    const refused = await rpc(a, 'SendMessage', { message: v1Message('hi') }, { version: null });
    expect(refused.status).toBe(200);
    expect(refused.body['error']).toMatchObject({ code: -32009, data: [{ ...ERROR_INFO, reason: 'VERSION_NOT_SUPPORTED' }] });
    expect((await rpc(a, 'SendMessage', { message: v1Message('hi') }, { version: '2.0' })).body['error'].code).toBe(-32009);
    a.setBehaviour({ requireVersionHeader: false });
    const served = await rpc(a, 'SendMessage', { message: v1Message('hi') }, { version: null });
    expect(served.body['result'].message.parts).toEqual([{ text: 'echo: hi' }]);
    // Patch versions are accepted.
    const patch = await rpc(a, 'SendMessage', { message: v1Message('yo') }, { version: '1.0.1' });
    expect(patch.body['result'].message.parts).toEqual([{ text: 'echo: yo' }]);
  });

  it('-32009 when the asked version is not served', async () => {
    const a = await start({ versions: ['1.0'] });
    const v03 = await rpc(a, 'message/send', { message: v03Message('hi') }, { version: null });
    expect(v03.body['error'].code).toBe(-32009);
  });

  it('-32602 for a missing message and for the wrong dialect, naming the field', async () => {
    const a = await start();
    const missing = await rpc(a, 'SendMessage', {}, { version: '1.0' });
    expect(missing.body['error']).toMatchObject({ code: -32602, message: 'params.message is required' });
    const v03InV1 = await rpc(a, 'SendMessage', { message: v03Message('x') }, { version: '1.0' });
    expect(v03InV1.body['error'].code).toBe(-32602);
    expect(v03InV1.body['error'].message).toContain('kind');
    const v1InV03 = await rpc(a, 'message/send', { message: v1Message('x') }, { version: null });
    expect(v1InV03.body['error'].code).toBe(-32602);
  });

  it('v0.3 JSON-RPC errors have no ErrorInfo data', async () => {
    const a = await start();
    const missing = await rpc(a, 'tasks/get', { id: 'nope' }, { version: null });
    expect(missing.body['error']).toEqual({ code: -32001, message: 'Task not found: nope' });
  });
});

describe('HTTP+JSON errors', () => {
  it('v1: google.rpc.Status body with ErrorInfo, statuses of v1.0.1', async () => {
    const a = await start();
    const missing = await rest(a, 'GET', '/tasks/nope', undefined, V1_HEADERS);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/a2a+json');
    expect(missing.body).toEqual({
      error: { code: 404, status: 'NOT_FOUND', message: 'Task not found: nope', details: [{ ...ERROR_INFO, reason: 'TASK_NOT_FOUND' }] },
    });
    const parse = await fetch(`${a.restUrl}/message:send`, { method: 'POST', headers: V1_HEADERS, body: '{' });
    expect(parse.status).toBe(400);
    expect(((await parse.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
    const noHeader = await rest(a, 'POST', '/message:send', { message: v1Message('x') });
    expect(noHeader.status).toBe(400);
    expect(noHeader.body['error'].details[0].reason).toBe('VERSION_NOT_SUPPORTED');
    const route = await rest(a, 'GET', '/nothing/here', undefined, V1_HEADERS);
    expect(route.status).toBe(404);
    const method = await rest(a, 'DELETE', '/message:send', undefined, V1_HEADERS);
    expect(method.status).toBe(405);
    expect(method.headers.get('allow')).toBe('POST');
  });

  it('v0.3: {code, message} bodies with the official 0.3 statuses', async () => {
    const a = await start();
    const missing = await rest(a, 'GET', '/v1/tasks/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: -32001, message: 'Task not found: nope' });
    const sent = await rest(a, 'POST', '/v1/message:send', { message: v03RestMessage('fail') });
    const id = sent.body['task'].id as string;
    const cancel = await rest(a, 'POST', `/v1/tasks/${id}:cancel`, {});
    expect(cancel.status).toBe(409);
    expect(cancel.body['code']).toBe(-32002);
    const parse = await fetch(`${a.restUrl}/v1/message:send`, { method: 'POST', body: 'nope' });
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ code: -32700 });
    const parts = await rest(a, 'POST', '/v1/message:send', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } });
    expect(parts.status).toBe(400);
    expect(parts.body['message']).toContain('content');
    expect((await rest(a, 'GET', '/v1/tasks')).status).toBe(404);
  });
});

describe('auth', () => {
  it('rejects missing and wrong credentials with 401 + WWW-Authenticate, on every binding but not on the card', async () => {
    const a = await start({ auth: { bearer: ['good'] } });
    expect((await fetch(a.cardUrl)).status).toBe(200);
    const missing = await rpc(a, 'SendMessage', { message: v1Message('hi') }, { version: '1.0' });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="a2a-testkit"');
    const wrong = await rest(a, 'POST', '/message:send', { message: v1Message('hi') }, { ...V1_HEADERS, Authorization: 'Bearer bad' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="a2a-testkit", error="invalid_token"');
    expect(wrong.body['error'].status).toBe('UNAUTHENTICATED');
    const ok = await rest(a, 'POST', '/message:send', { message: v1Message('hi') }, { ...V1_HEADERS, Authorization: 'Bearer good' });
    expect(ok.status).toBe(200);
    const v03 = await rest(a, 'POST', '/v1/message:send', { message: v03RestMessage('hi') });
    expect(v03.status).toBe(401);
  });

  it('rotateBearer swaps the accepted token, so a client must refresh on 401', async () => {
    const a = await start({ auth: { bearer: ['old'] } });
    const send = (token: string) =>
      rpc(a, 'SendMessage', { message: v1Message('hi') }, { version: '1.0', headers: { Authorization: `Bearer ${token}` } });
    expect((await send('old')).status).toBe(200);
    a.rotateBearer('new');
    expect((await send('old')).status).toBe(401);
    expect((await send('new')).status).toBe(200);
  });

  it('accepts API keys in a header or a query parameter, and Basic credentials', async () => {
    const a = await start({
      auth: { apiKey: { header: 'X-Key', query: 'key', values: ['k1'] }, basic: { username: 'ann', password: 'pw' } },
    });
    const message = { message: v1Message('hi') };
    expect((await rest(a, 'POST', '/message:send', message, { ...V1_HEADERS, 'X-Key': 'k1' })).status).toBe(200);
    expect((await rest(a, 'POST', '/message:send?key=k1', message, V1_HEADERS)).status).toBe(200);
    const basic = `Basic ${Buffer.from('ann:pw').toString('base64')}`;
    expect((await rest(a, 'POST', '/message:send', message, { ...V1_HEADERS, Authorization: basic })).status).toBe(200);
    const denied = await rest(a, 'POST', '/message:send', message, { ...V1_HEADERS, 'X-Key': 'k2' });
    expect(denied.status).toBe(401);
    expect(denied.headers.get('www-authenticate')).toContain('Basic realm="a2a-testkit"');
  });
});

describe('tenant', () => {
  it('JSON-RPC v1 needs params.tenant; v0.3 ignores tenants', async () => {
    const a = await start({ tenant: 'acme' });
    const without = await rpc(a, 'SendMessage', { message: v1Message('hi') }, { version: '1.0' });
    expect(without.body['error'].code).toBe(-32001);
    expect(without.body['error'].message).toContain('acme');
    const wrong = await rpc(a, 'SendMessage', { tenant: 'other', message: v1Message('hi') }, { version: '1.0' });
    expect(wrong.body['error'].code).toBe(-32001);
    const right = await rpc(a, 'SendMessage', { tenant: 'acme', message: v1Message('hi') }, { version: '1.0' });
    expect(right.body['result'].message.parts[0].text).toBe('echo: hi');
    const v03 = await rpc(a, 'message/send', { message: v03Message('hi') }, { version: null });
    expect(v03.body['result'].kind).toBe('message');
  });

  it('REST v1 paths need the /{tenant} prefix', async () => {
    const a = await start({ tenant: 'acme' });
    const without = await rest(a, 'POST', '/message:send', { message: v1Message('hi') }, V1_HEADERS);
    expect(without.status).toBe(404);
    expect(without.body['error'].message).toContain('/acme/');
    const right = await rest(a, 'POST', '/acme/message:send', { message: v1Message('hi') }, V1_HEADERS);
    expect(right.status).toBe(200);
    expect(right.body['message'].parts[0].text).toBe('echo: hi');
  });

  it('a tenant sent to an agent without tenants is refused', async () => {
    const a = await start();
    const sent = await rpc(a, 'SendMessage', { tenant: 'acme', message: v1Message('hi') }, { version: '1.0' });
    expect(sent.body['error'].code).toBe(-32001);
  });
});
