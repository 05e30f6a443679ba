import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient, type Binding } from '../src/index.js';
import { startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

function client(binding: Binding): Promise<A2AClient> {
  return connect(server.url, { cardCache: false, card: v1Card(server.origin), preferredBindings: [binding] });
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

// The task engine resends a message that surely never arrived, and looks for the task before
// resending one that may have: so which statuses mean "refused before acting" matters.
describe.each(['JSONRPC', 'HTTP+JSON'] as const)('what an HTTP status says about delivery, over %s', (binding) => {
  beforeEach(() => {
    for (const route of ['POST /rpc', 'POST /rest/message:send', 'POST /rest/tasks/t1:cancel']) {
      server.on(route, (req, res) => {
        const status = Number(req.headers['x-status']);
        res.writeHead(status, { 'content-type': 'text/html', 'retry-after': '1' }).end(`<h1>${status}</h1>`);
      });
    }
  });

  it.each([429, 503])('%i: refused before acting → maybeDelivered: false, retryable', async (status) => {
    const c = await client(binding);
    for (const call of [() => c.sendMessage('hi', { headers: { 'x-status': String(status) } }), () => c.cancelTask('t1', { headers: { 'x-status': String(status) } })]) {
      const error = await failure(call());
      expect(error).toMatchObject({ code: 'HTTP_STATUS', status, maybeDelivered: false, isRetryable: true, retryAfterMs: 1000 });
    }
  });

  it.each([500, 502, 504])('%i: may have acted → maybeDelivered: true, retryable', async (status) => {
    const c = await client(binding);
    for (const call of [() => c.sendMessage('hi', { headers: { 'x-status': String(status) } }), () => c.cancelTask('t1', { headers: { 'x-status': String(status) } })]) {
      const error = await failure(call());
      expect(error).toMatchObject({ code: 'HTTP_STATUS', status, maybeDelivered: true, isRetryable: true });
    }
  });
});
