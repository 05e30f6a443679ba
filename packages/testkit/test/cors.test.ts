import { afterEach, describe, expect, it } from 'vitest';
import { STRICT_CORS, startTestAgent } from '../src/index.js';
import type { TestAgent, TestAgentOptions } from '../src/index.js';

let agent: TestAgent | undefined;

afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

async function start(options: TestAgentOptions): Promise<TestAgent> {
  agent = await startTestAgent(options);
  return agent;
}

function preflight(url: string, method: string, headers: string, origin = 'http://page.test'): Promise<Response> {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': headers },
  });
}

describe("strict CORS (only what Tether's browser client sends)", () => {
  it('allows a preflight for the headers Tether sends and names exactly its lists', async () => {
    const a = await start({ cors: 'strict' });
    const response = await preflight(a.jsonRpcUrl, 'POST', 'content-type,a2a-version,last-event-id');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-headers')).toBe(STRICT_CORS.allowHeaders.join(', '));
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
    const card = await fetch(a.cardUrl, { headers: { Origin: 'http://page.test' } });
    expect(card.headers.get('access-control-expose-headers')).toBe('Retry-After, WWW-Authenticate, ETag, Age');
    await card.text();
  });

  it('refuses, without CORS headers, a preflight asking for any other header or method', async () => {
    const a = await start({ cors: 'strict' });
    const header = await preflight(a.jsonRpcUrl, 'POST', 'content-type,x-custom');
    expect(header.status).toBe(403);
    expect(header.headers.get('access-control-allow-origin')).toBeNull();
    expect(await header.text()).toBe('CORS preflight refused: request header(s) x-custom not allowed');
    const method = await preflight(a.jsonRpcUrl, 'PUT', 'content-type');
    expect(method.status).toBe(403);
    expect(await method.text()).toBe('CORS preflight refused: method PUT is not allowed');
  });

  it("adds the header of the agent's credentials: Authorization for bearer, the API-key header", async () => {
    const bearer = await start({ cors: 'strict', auth: { bearer: ['t'] } });
    expect((await preflight(bearer.jsonRpcUrl, 'POST', 'authorization')).status).toBe(204);
    await bearer.close();
    const apiKey = await start({ cors: 'strict', auth: { apiKey: { header: 'X-Key', values: ['k'] } } });
    expect((await preflight(apiKey.jsonRpcUrl, 'POST', 'x-key')).status).toBe(204);
    expect((await preflight(apiKey.jsonRpcUrl, 'POST', 'authorization')).status).toBe(403);
  });

  it('an explicit policy: its own lists and allowed origins only, echoed with Vary: Origin', async () => {
    const a = await start({ cors: { allowHeaders: ['Content-Type'], exposeHeaders: [], origins: ['http://page.test'] } });
    expect((await preflight(a.jsonRpcUrl, 'POST', 'content-type,a2a-version')).status).toBe(403);
    const ok = await preflight(a.jsonRpcUrl, 'POST', 'content-type');
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://page.test');
    expect(ok.headers.get('vary')).toBe('Origin');
    expect((await preflight(a.jsonRpcUrl, 'POST', 'content-type', 'http://other.test')).status).toBe(403);
    const card = await fetch(a.cardUrl, { headers: { Origin: 'http://other.test' } });
    expect(card.status).toBe(200);
    expect(card.headers.get('access-control-allow-origin')).toBeNull();
    await card.text();
  });
});
