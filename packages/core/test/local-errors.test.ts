import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, toMessage, type A2AClient } from '../src/index.js';
import { json, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

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

function v03Card(origin: string, binding: 'JSONRPC' | 'HTTP+JSON', streaming = true): Record<string, unknown> {
  return {
    name: 'v03',
    description: 'v0.3 agent',
    version: '1',
    protocolVersion: '0.3.0',
    url: `${origin}/${binding === 'JSONRPC' ? 'rpc' : 'rest'}`,
    preferredTransport: binding,
    capabilities: { streaming },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/** A client for `card`, and how many requests the server had seen once it was built. */
async function clientFor(card: Record<string, unknown>): Promise<{ c: A2AClient; before: number }> {
  const c = await connect(server.url, { cardCache: false, card });
  return { c, before: server.requests.length };
}

describe('errors raised before any request say maybeDelivered: false', () => {
  it('TetherError defaults maybeDelivered by code: local-only codes false, the rest true', () => {
    for (const code of ['INVALID_ARGUMENT', 'UNSUPPORTED_OPERATION', 'NO_COMPATIBLE_INTERFACE'] as const) {
      expect(new TetherError(code, 'x').maybeDelivered).toBe(false);
    }
    for (const code of ['NETWORK', 'TIMEOUT', 'HTTP_STATUS', 'INVALID_RESPONSE', 'STREAM_INTERRUPTED'] as const) {
      expect(new TetherError(code, 'x').maybeDelivered).toBe(true);
    }
    expect(new TetherError('NETWORK', 'x', { maybeDelivered: false }).maybeDelivered).toBe(false);
  });

  it('INVALID_ARGUMENT: a relative URL given to connect()', async () => {
    const error = await failure(() => connect('/agents/x'));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    expect(server.requests).toHaveLength(0);
  });

  it('INVALID_ARGUMENT: a message without parts', async () => {
    const { c, before } = await clientFor(v1Card(server.origin));
    const error = await failure(() => c.sendMessage({ parts: [] }));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    expect(() => toMessage({}, () => 'id')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', maybeDelivered: false }));
    expect(server.requests.length).toBe(before);
  });

  it('INVALID_ARGUMENT: a data part that is not an object, for a v0.3 agent', async () => {
    const { c, before } = await clientFor(v03Card(server.origin, 'JSONRPC'));
    const error = await failure(() => c.sendMessage({ parts: [{ kind: 'data', data: [1, 2] as unknown as Record<string, unknown> }] }));
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    expect(server.requests.length).toBe(before);
  });

  it.each(['JSONRPC', 'HTTP+JSON'] as const)('UNSUPPORTED_OPERATION: listTasks on a v0.3 %s agent', async (binding) => {
    const { c, before } = await clientFor(v03Card(server.origin, binding));
    const error = await failure(() => c.listTasks());
    expect(error).toMatchObject({ code: 'UNSUPPORTED_OPERATION', maybeDelivered: false });
    expect(server.requests.length).toBe(before);
  });

  it('UNSUPPORTED_OPERATION: streaming from an agent whose card says it does not stream', async () => {
    const { c, before } = await clientFor(v1Card(server.origin, { capabilities: { streaming: false } }));
    const error = await failure(() => c.streamMessage('hi'));
    expect(error).toMatchObject({ code: 'UNSUPPORTED_OPERATION', maybeDelivered: false });
    expect(server.requests.length).toBe(before);
  });

  it('NO_COMPATIBLE_INTERFACE: a card with nothing this client speaks', async () => {
    server.on('GET /.well-known/agent-card.json', (_req, res) =>
      json(res, 200, v1Card(server.origin, { supportedInterfaces: [{ url: `${server.origin}/grpc`, protocolBinding: 'GRPC', protocolVersion: '1.0' }] })),
    );
    const error = await failure(() => connect(server.url, { cardCache: false }));
    expect(error).toMatchObject({ code: 'NO_COMPATIBLE_INTERFACE', maybeDelivered: false });
  });

  it('INVALID_ARGUMENT: iterating an event stream a second time', async () => {
    const { c } = await clientFor(v1Card(server.origin));
    server.on('POST /rpc', (_req, res) => {
      res.writeHead(503).end();
    });
    const stream = c.subscribe('t1');
    await failure(() => stream);
    const before = server.requests.length;
    const error = await failure(() => stream);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    expect(server.requests.length).toBe(before);
  });

  it('ABORTED: a call whose signal was aborted before it began', async () => {
    const { c, before } = await clientFor(v1Card(server.origin));
    const error = await failure(() => c.getTask('t1', { signal: AbortSignal.abort(new Error('not now')) }));
    expect(error).toMatchObject({ code: 'ABORTED', maybeDelivered: false });
    expect(server.requests.length).toBe(before);
  });
});
