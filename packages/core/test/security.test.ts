import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type AuthOptions } from '../src/index.js';
import { json, RPC_ID, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

async function failure(promise: Promise<unknown>): Promise<TetherError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    return error as TetherError;
  }
  throw new Error('expected a failure');
}

const task = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } };

describe('credentials follow the origin the caller named (G7)', () => {
  // Server A is the URL the caller passes to connect(); its well-known card redirects to server B,
  // whose card lists interfaces on B only.
  let a: ScriptedServer;
  let b: ScriptedServer;
  beforeEach(async () => {
    a = await startScriptedServer();
    b = await startScriptedServer();
    a.on('GET /.well-known/agent-card.json', (_req, res) => {
      res.writeHead(302, { location: `${b.origin}/.well-known/agent-card.json` }).end();
    });
    b.on('GET /.well-known/agent-card.json', (_req, res) => json(res, 200, v1Card(b.origin)));
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  const schemes: [string, AuthOptions, string, string][] = [
    ['a bearer token', { bearer: 'secret' }, 'authorization', 'Bearer secret'],
    ['an API key', { apiKey: 'key-1' }, 'x-api-key', 'key-1'],
    ['auth.headers()', { headers: () => ({ 'X-Signature': 'sig-1' }) }, 'x-signature', 'sig-1'],
  ];

  describe.each(schemes)('%s', (_name, auth, header, value) => {
    beforeEach(() => {
      b.on('POST /rpc', (req, res) => {
        if (req.headers[header] === undefined) {
          res.writeHead(401, { 'www-authenticate': 'Bearer realm="b"', 'content-type': 'text/plain' }).end('who are you');
          return;
        }
        json(res, 200, { jsonrpc: '2.0', id: RPC_ID, result: task });
      });
    });

    it('a card reached through a cross-origin redirect, and its interfaces there, get none', async () => {
      const client = await connect(a.url, { cardCache: false, auth });
      expect(client.cardUrl).toBe(`${b.origin}/.well-known/agent-card.json`);
      const error = await failure(client.getTask('t1'));
      expect(error.code).toBe('UNAUTHENTICATED');
      expect(error.message).toContain(`no credentials were sent: ${b.origin} is not an allowed origin (${a.origin}); add it to auth.origins`);
      // The origin the caller named got them; the one it was redirected to never did.
      expect(a.requests[0]?.headers[header]).toBe(value);
      expect(b.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /.well-known/agent-card.json', 'POST /rpc']);
      expect(b.requests.map((r) => r.headers[header])).toEqual([undefined, undefined]);
    });

    it('are sent there once auth.origins lists that origin', async () => {
      const client = await connect(a.url, { cardCache: false, auth: { ...auth, origins: [b.origin] } });
      expect((await client.getTask('t1')).id).toBe('t1');
      expect(b.requests.map((r) => r.headers[header])).toEqual([value, value]);
    });
  });
});
