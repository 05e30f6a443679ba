import { startTestAgent } from '@a2a-tether/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient, type StreamEvent } from '../src/index.js';
import { json, RPC_ID, rpcFrame, sse, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

// Issue 16: a JSON-RPC 2.0 response must say `"jsonrpc": "2.0"`. One without it (or with another
// version) is not a JSON-RPC 2.0 answer, unary or in a stream frame.

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

async function client(): Promise<A2AClient> {
  server.on('GET /.well-known/agent-card.json', (_req, res) => json(res, 200, v1Card(server.origin)));
  return connect(server.url, { cardCache: false, preferredBindings: ['JSONRPC'], maxRetries: 0 });
}

async function failure(promise: Promise<unknown>): Promise<TetherError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof TetherError)) throw new Error(`expected a TetherError, got ${String(error)}`);
  return error;
}

const task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_WORKING' } };

describe('a JSON-RPC answer without "jsonrpc": "2.0"', () => {
  it.each([
    ['no jsonrpc member', { id: RPC_ID, result: task }],
    ['"jsonrpc": "1.0"', { jsonrpc: '1.0', id: RPC_ID, result: task }],
    ['"jsonrpc": 2', { jsonrpc: 2, id: RPC_ID, result: task }],
    ['an error with no jsonrpc member', { id: RPC_ID, error: { code: -32001, message: 'Task not found' } }],
  ])('unary, %s: INVALID_RESPONSE naming the member', async (_what, body) => {
    const c = await client();
    server.on('POST /rpc', (_req, res) => json(res, 200, body));
    const error = await failure(c.getTask('t-1'));
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.message).toMatch(/GetTask POST http:\/\/127\.0\.0\.1:\d+\/rpc → HTTP 200: the answer is not a JSON-RPC 2\.0 response: "jsonrpc" is (missing|"1\.0"|2), not "2\.0"/);
    expect(error.isRetryable).toBe(false);
  });

  it('in a stream frame: the events before it are delivered, then MALFORMED_EVENT naming the member', async () => {
    const c = await client();
    server.on('POST /rpc', (_req, res) =>
      sse(res, [
        rpcFrame({ task }),
        `data: ${JSON.stringify({ id: RPC_ID, result: { statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' } } } })}\n\n`,
      ]),
    );
    const events: StreamEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of c.streamMessage('hello')) events.push(event);
      })(),
    );
    expect(events.map((e) => e.kind)).toEqual(['task']);
    expect(error.code).toBe('MALFORMED_EVENT');
    expect(error.message).toMatch(/event 2 is not a JSON-RPC 2\.0 response: "jsonrpc" is missing, not "2\.0"/);
    expect(error.taskId).toBe('t-1');
  });

  it('the testkit agent always sends it (v1.0 and v0.3, unary and streamed)', async () => {
    for (const version of ['1.0', '0.3'] as const) {
      const agent = await startTestAgent({ bindings: ['JSONRPC'], versions: [version] });
      try {
        const c = await connect(agent.url, { cardCache: false });
        expect(c.interface).toMatchObject({ binding: 'JSONRPC', protocolVersion: version });
        expect((await c.sendMessage('echo hi')).kind).toBe('message');
        const kinds: string[] = [];
        for await (const event of c.streamMessage('stream updates=2 chunks=2 delayMs=1')) kinds.push(event.kind);
        expect(kinds.length).toBeGreaterThan(2);
      } finally {
        await agent.close();
      }
    }
  });
});
