import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type FetchLike } from '../src/index.js';
import { json, RPC_ID, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

// Ports the Fetch standard blocks ("bad port"): fetch refuses them without any network I/O, so no
// server needs to listen there.
const BLOCKED = ['http://127.0.0.1:6000', 'http://127.0.0.1:10080'];

/** The global fetch, counting the calls made through it. */
function countingFetch(): { fetch: FetchLike; calls: string[] } {
  const calls: string[] = [];
  const fetch: FetchLike = (input, init) => {
    calls.push(String(input));
    return globalThis.fetch(input, init);
  };
  return { fetch, calls };
}

async function failure(promise: Promise<unknown>): Promise<TetherError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    return error as TetherError;
  }
  throw new Error('expected a failure');
}

describe('a port fetch refuses is a permanent local failure', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it.each(BLOCKED)('connect(%s) → NETWORK, not retryable, never delivered, fetched once', async (origin) => {
    const { fetch, calls } = countingFetch();
    const error = await failure(connect(origin, { cardCache: false, fetch }));
    expect(error).toMatchObject({ code: 'NETWORK', isRetryable: false, maybeDelivered: false });
    expect(error.message).toContain(`refuses port ${new URL(origin).port}`);
    expect(calls).toEqual([`${origin}/.well-known/agent-card.json`]);
  });

  it('a call to an interface on such a port → the same error', async () => {
    const card = v1Card(BLOCKED[0] as string, { supportedInterfaces: [{ url: `${BLOCKED[0]}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
    const client = await connect(BLOCKED[0] as string, { cardCache: false, card });
    const error = await failure(client.getTask('t1'));
    expect(error).toMatchObject({ code: 'NETWORK', isRetryable: false, maybeDelivered: false, operation: 'GetTask' });
  });

  it("the client moves on to the card's next interface", async () => {
    server.on('POST /rpc', (_req, res) => json(res, 200, { jsonrpc: '2.0', id: RPC_ID, result: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } }));
    const card = v1Card(server.origin, {
      supportedInterfaces: [
        { url: `${BLOCKED[0]}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${server.origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
    });
    const client = await connect(server.url, { cardCache: false, card });
    expect((await client.getTask('t1')).id).toBe('t1');
    expect(client.interface.url).toBe(`${server.origin}/rpc`);
  });
});
