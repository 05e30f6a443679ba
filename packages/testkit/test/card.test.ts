import { afterEach, describe, expect, it } from 'vitest';
import { startTestAgent } from '../src/index.js';
import type { TestAgent, TestAgentOptions } from '../src/index.js';
import { rest, rpc, V1_HEADERS } from './helpers.js';
import type { Json } from './helpers.js';

let agent: TestAgent | undefined;

afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function start(options: TestAgentOptions = {}): Promise<TestAgent> {
  agent = await startTestAgent(options);
  return agent;
}

async function card(a: TestAgent): Promise<Json> {
  const response = await fetch(a.cardUrl);
  expect(response.status).toBe(200);
  return (await response.json()) as Json;
}

describe('agent card', () => {
  it('v1 shape lists every (binding × version), v1 first, JSON-RPC before HTTP+JSON', async () => {
    const a = await start();
    expect(a.cardUrl).toBe(`${a.url}/.well-known/agent-card.json`);
    const c = await card(a);
    expect(c['supportedInterfaces']).toEqual([
      { url: a.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: a.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: a.jsonRpcUrl, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: a.restUrl, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    expect(c['capabilities']).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: false });
    expect(c['url']).toBeUndefined();
    expect(c['protocolVersion']).toBeUndefined();
    expect((c['skills'] as Json[]).map((s) => s['id'])).toContain('stream');
  });

  it('v0.3 shape: url, preferredTransport, protocolVersion, additionalInterfaces', async () => {
    const a = await start({ versions: ['0.3'], capabilities: { streaming: false } });
    const c = await card(a);
    expect(c['supportedInterfaces']).toBeUndefined();
    expect(c).toMatchObject({
      protocolVersion: '0.3.0',
      url: a.jsonRpcUrl,
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [
        { url: a.jsonRpcUrl, transport: 'JSONRPC' },
        { url: a.restUrl, transport: 'HTTP+JSON' },
      ],
      capabilities: { streaming: false, pushNotifications: true },
      supportsAuthenticatedExtendedCard: false,
    });
  });

  it('cardShape 0.3 can be forced while v1 is served; bindings filter the interfaces', async () => {
    const a = await start({ cardShape: '0.3', bindings: ['HTTP+JSON'] });
    const c = await card(a);
    expect(c['url']).toBe(a.restUrl);
    expect(c['preferredTransport']).toBe('HTTP+JSON');
    expect(c['additionalInterfaces']).toEqual([{ url: a.restUrl, transport: 'HTTP+JSON' }]);
    // The JSON-RPC endpoint is not served at all.
    expect((await fetch(a.jsonRpcUrl, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('sends Cache-Control max-age and a strong ETag; If-None-Match answers 304; fetches are logged', async () => {
    const a = await start({ cardMaxAgeSeconds: 7 });
    const first = await fetch(a.cardUrl);
    expect(first.headers.get('cache-control')).toBe('max-age=7');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    await first.text();
    const second = await fetch(a.cardUrl, { headers: { 'If-None-Match': etag! } });
    expect(second.status).toBe(304);
    expect(await second.text()).toBe('');
    const third = await fetch(a.cardUrl, { headers: { 'If-None-Match': '"other"' } });
    expect(third.status).toBe(200);
    await third.text();
    expect(a.requests.filter((r) => r.path === '/.well-known/agent-card.json')).toHaveLength(3);
    expect(a.requests[1]!.headers['if-none-match']).toBe(etag);
  });

  it("cardPath 'agent.json' serves only the legacy path", async () => {
    const a = await start({ cardPath: 'agent.json' });
    expect(a.cardUrl).toBe(`${a.url}/.well-known/agent.json`);
    expect((await fetch(`${a.url}/.well-known/agent-card.json`)).status).toBe(404);
    expect((await card(a))['supportedInterfaces']).toHaveLength(4);
  });

  it('basePath puts the card and every endpoint below it', async () => {
    const a = await start({ basePath: '/agents/x/' });
    expect(a.url).toBe(`${a.origin}/agents/x`);
    const c = await card(a);
    expect((c['supportedInterfaces'] as Json[])[0]!['url']).toBe(`${a.origin}/agents/x/a2a/jsonrpc`);
    expect((await fetch(`${a.origin}/.well-known/agent-card.json`)).status).toBe(404);
    const echo = await rpc(a, 'SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, { version: '1.0' });
    expect(echo.body['result'].message.parts[0].text).toBe('echo: hi');
  });

  it('tenant is advertised on v1 interfaces only', async () => {
    const a = await start({ tenant: 'acme' });
    const interfaces = (await card(a))['supportedInterfaces'] as Json[];
    expect(interfaces.map((i) => i['tenant'])).toEqual(['acme', 'acme', undefined, undefined]);
  });

  it('declares security schemes in v1 oneof style and in v0.3 OpenAPI style', async () => {
    const auth = { bearer: ['t'], apiKey: { values: ['k'] }, basic: { username: 'u', password: 'p' } };
    const v1 = await start({ auth });
    const c1 = await card(v1);
    expect(c1['securitySchemes']).toEqual({
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } },
      apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } },
      basic: { httpAuthSecurityScheme: { scheme: 'Basic' } },
    });
    expect(c1['securityRequirements']).toEqual([
      { schemes: { bearer: {} } },
      { schemes: { apiKey: {} } },
      { schemes: { basic: {} } },
    ]);
    await v1.close();
    const v03 = await start({ auth: { apiKey: { query: 'key', values: ['k'] } }, versions: ['0.3'] });
    const c3 = await card(v03);
    expect(c3['securitySchemes']).toEqual({ apiKeyQuery: { type: 'apiKey', in: 'query', name: 'key' } });
    expect(c3['security']).toEqual([{ apiKeyQuery: [] }]);
  });

  it('answers CORS preflights and exposes headers', async () => {
    const a = await start();
    const preflight = await fetch(a.jsonRpcUrl, {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.test', 'Access-Control-Request-Headers': 'authorization,a2a-version' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization,a2a-version');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    const response = await fetch(a.cardUrl);
    expect(response.headers.get('access-control-expose-headers')).toBe('*');
    await response.text();
  });

  it('cors: false adds no CORS headers', async () => {
    const a = await start({ cors: false });
    const response = await fetch(a.cardUrl);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    await response.text();
  });
});

describe('extended agent card', () => {
  it('answers UnsupportedOperation when the capability is off', async () => {
    const a = await start();
    const viaRpc = await rpc(a, 'GetExtendedAgentCard', {}, { version: '1.0' });
    expect(viaRpc.body['error'].code).toBe(-32004);
    const viaRest = await rest(a, 'GET', '/extendedAgentCard', undefined, V1_HEADERS);
    expect(viaRest.status).toBe(400);
    expect(viaRest.body['error'].details[0].reason).toBe('UNSUPPORTED_OPERATION');
    const v03 = await rpc(a, 'agent/getAuthenticatedExtendedCard', {}, { version: null });
    expect(v03.body['error'].code).toBe(-32004);
  });

  it('returns the card plus an extra skill, in each dialect', async () => {
    const a = await start({ capabilities: { extendedAgentCard: true } });
    expect((await card(a))['capabilities'].extendedAgentCard).toBe(true);
    const v1 = (await rpc(a, 'GetExtendedAgentCard', {}, { version: '1.0' })).body['result'] as Json;
    expect((v1['skills'] as Json[]).at(-1)!['id']).toBe('extended');
    expect(v1['supportedInterfaces']).toHaveLength(4);
    const v1Rest = await rest(a, 'GET', '/extendedAgentCard', undefined, V1_HEADERS);
    expect((v1Rest.body['skills'] as Json[]).at(-1)!['id']).toBe('extended');
    const v03 = (await rpc(a, 'agent/getAuthenticatedExtendedCard', {}, { version: null })).body['result'] as Json;
    expect(v03['protocolVersion']).toBe('0.3.0');
    expect(v03['supportsAuthenticatedExtendedCard']).toBe(true);
    const v03Rest = await rest(a, 'GET', '/v1/card');
    expect(v03Rest.status).toBe(200);
    expect((v03Rest.body['skills'] as Json[]).at(-1)!['id']).toBe('extended');
  });
});
