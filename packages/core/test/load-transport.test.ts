import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connect, TetherError } from '../src/index.js';
import { json, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

// The binding's code is loaded once the card names it (issue 17). A page that cannot fetch that chunk
// (offline, or a deploy replaced it) must get a typed error, and a later call must load it again.

const fetchFailures = vi.hoisted(() => ({ left: 0 }));
vi.mock('../src/transport/rest-transport.js', async (importOriginal) => {
  if (fetchFailures.left > 0) {
    fetchFailures.left--;
    throw new TypeError('Failed to fetch dynamically imported module: /assets/rest-transport.js');
  }
  return importOriginal();
});

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
  vi.resetModules();
});
afterEach(async () => {
  fetchFailures.left = 0;
  await server.close();
});

const taskJson = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };

describe('loading the binding the card names', () => {
  it('connect(): a chunk that does not load is a NETWORK error naming the binding, nothing sent', async () => {
    fetchFailures.left = 1;
    const card = v1Card(server.origin, { supportedInterfaces: [{ url: `${server.origin}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }] });
    const error = await connect(server.url, { cardCache: false, card }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'NETWORK', maybeDelivered: false, isRetryable: true });
    // (vitest wraps the error a mock factory throws: the message names the binding and quotes the cause)
    expect((error as TetherError).message).toMatch(/^could not load Tether's code for HTTP\+JSON v1\.0: ./);
    expect((error as TetherError).cause).toBeInstanceOf(Error);
    expect(server.requests).toEqual([]);
  });

  it('a fallback whose chunk does not load fails that call; the next call loads it and is answered', async () => {
    server.on('GET /rest/tasks/t1', (_req, res) => json(res, 200, taskJson));
    const card = v1Card(server.origin, {
      supportedInterfaces: [
        // Not there (404 without an A2A error): the client moves on to HTTP+JSON.
        { url: `${server.origin}/missing`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${server.origin}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      ],
    });
    const client = await connect(server.url, { cardCache: false, card, maxRetries: 0 });
    fetchFailures.left = 1;
    expect(await client.getTask('t1').catch((e: unknown) => e)).toMatchObject({ code: 'NETWORK', message: expect.stringMatching(/HTTP\+JSON v1\.0/) });
    expect(client.interface.binding).toBe('HTTP+JSON');
    expect((await client.getTask('t1')).id).toBe('t1');
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /missing', 'GET /rest/tasks/t1']);
  });
});
