// Secrets echoed where an answer is read as a success (issue 16): an agent answers HTTP 200 — a unary
// JSON-RPC error, a result that does not decode, a body that is not JSON — or streams frames — an
// in-stream error, an `event: error` frame, a frame that is not JSON or does not decode — and each
// quotes the request it got, credentials included. The typed error Tether throws must not carry them:
// not in its message, stack, fields (`data`, `reason`, `bodySnippet`) or cause chain.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type AuthOptions } from '../src/index.js';
import { Exposure, MARK, PLANTED, securedCard as card, type Scheme } from './helpers/planted.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});



const ids = { taskId: 't-echo', contextId: 'c-echo' };
const working = { task: { id: ids.taskId, contextId: ids.contextId, status: { state: 'TASK_STATE_WORKING' } } };

/** What the echo agent answers, by the case named in the message text; `echoed` is the request as it got it. */
const ANSWERS: Record<string, (echoed: string, id: unknown) => { sse?: string[]; json?: unknown; raw?: string }> = {
  'unary-error': (echoed, id) => ({
    json: { jsonrpc: '2.0', id, error: { code: -32603, message: `could not serve ${echoed}`, data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: echoed, echoed }] } },
  }),
  'unary-undecodable': (echoed, id) => ({
    json: { jsonrpc: '2.0', id, result: { message: { messageId: 'm', role: echoed.slice(0, 60), parts: [{ text: 'x' }] } } },
  }),
  // Starts where the credential starts: the parser's message quotes the first characters.
  'unary-not-json': (echoed) => ({ raw: `${echoed.slice(echoed.indexOf(MARK))} ${echoed}` }),
  'unary-foreign-id': (echoed) => ({ json: { jsonrpc: '2.0', id: echoed.slice(0, 60), result: working } }),
  // A decoder quotes 64 characters of a value: here the cut falls inside the credential.
  'unary-cut-quote': (echoed, id) => ({
    json: { jsonrpc: '2.0', id, result: { message: { messageId: 'm', role: `${'r'.repeat(54)}${echoed.slice(echoed.indexOf(MARK))}`, parts: [{ text: 'x' }] } } },
  }),
  'stream-error': (echoed, id) => ({ sse: [frame({ jsonrpc: '2.0', id, result: working }), frame({ jsonrpc: '2.0', id, error: { code: -32603, message: `failed: ${echoed}`, data: { echoed } } })] }),
  'stream-error-event': (echoed, id) => ({ sse: [frame({ jsonrpc: '2.0', id, result: working }), `event: error\ndata: not an error object: ${echoed}\n\n`] }),
  'stream-not-json': (echoed, id) => ({ sse: [frame({ jsonrpc: '2.0', id, result: working }), `data: ${echoed.slice(echoed.indexOf(MARK))} ${echoed}\n\n`] }),
  'stream-undecodable': (echoed, id) => ({
    sse: [frame({ jsonrpc: '2.0', id, result: working }), frame({ jsonrpc: '2.0', id, result: { message: { messageId: 'm', ...ids, role: echoed.slice(0, 60), parts: [{ text: 'x' }] } } })],
  }),
};

function frame(json: unknown): string {
  return `data: ${JSON.stringify(json)}\n\n`;
}

/** The echo agent: the card, then every JSON-RPC call answered as its message text says. */
async function echoAgent(scheme: Scheme): Promise<{ origin: string; echoes: number }> {
  const state = { origin: '', echoes: 0 };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/.well-known/agent-card.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card(`${state.origin}/rpc`, scheme)));
        return;
      }
      const call = JSON.parse(body) as { id?: unknown };
      const name = Object.keys(ANSWERS).find((key) => body.includes(`"${key}"`)) ?? 'unary-error';
      // The authorization header first: a cut quote (a role, an id) still holds the credential.
      const echoed = `auth=${req.headers.authorization ?? ''} key=${String(req.headers['x-api-key'] ?? '')} url=${req.url ?? ''} ${JSON.stringify(req.headers)}`;
      if (echoed.includes(MARK)) state.echoes++;
      const answer = (ANSWERS[name] as (typeof ANSWERS)[string])(echoed, call.id);
      if (answer.sse) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const f of answer.sse) res.write(f);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end(answer.raw ?? JSON.stringify(answer.json));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  server.on('connection', (socket) => cleanups.push(() => socket.destroy()));
  return state;
}

const CASES: [string, Scheme, AuthOptions][] = [
  ['a bearer token', 'bearer', { bearer: PLANTED.bearer }],
  ['an API key in a header', 'header', { apiKey: PLANTED.apiKey }],
  ['an API key in the query string', 'query', { apiKey: PLANTED.apiKey }],
];

async function failure(promise: Promise<unknown>): Promise<TetherError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof TetherError)) throw new Error(`expected a TetherError, got ${String(error)}`);
  return error;
}

async function streamFailure(stream: AsyncIterable<unknown>): Promise<{ error: TetherError; events: number }> {
  let events = 0;
  const error = await failure(
    (async () => {
      for await (const _event of stream) events++;
    })(),
  );
  return { error, events };
}

describe.each(CASES)('an agent that echoes %s into what it answers with HTTP 200', (_name, scheme, auth) => {
  it('unary answers (an A2A error, a result that does not decode, a body that is not JSON, a foreign id, a quote cut inside the secret): no error carries the secret', async () => {
    const agent = await echoAgent(scheme);
    const client = await connect(agent.origin, { cardCache: false, auth, maxRetries: 0 });
    const errors = {
      'unary-error': await failure(client.sendMessage('unary-error')),
      'unary-undecodable': await failure(client.sendMessage('unary-undecodable')),
      'unary-not-json': await failure(client.sendMessage('unary-not-json')),
      'unary-foreign-id': await failure(client.sendMessage('unary-foreign-id')),
      'unary-cut-quote': await failure(client.sendMessage('unary-cut-quote')),
    };
    expect(Object.fromEntries(Object.entries(errors).map(([k, e]) => [k, e.code]))).toEqual({
      'unary-error': 'A2A_ERROR',
      'unary-undecodable': 'INVALID_RESPONSE',
      'unary-not-json': 'INVALID_RESPONSE',
      'unary-foreign-id': 'INVALID_RESPONSE',
      'unary-cut-quote': 'INVALID_RESPONSE',
    });
    expect(agent.echoes).toBe(5);
    const exposure = new Exposure();
    exposure.scan('errors', errors);
    expect(exposure.found).toEqual([]);
    // The echo reached each message, redacted.
    for (const error of Object.values(errors)) expect(error.message).toContain('[REDACTED]');
  });

  it('stream frames (an in-stream error, an error event, a frame that is not JSON or does not decode): no error carries the secret', async () => {
    const agent = await echoAgent(scheme);
    const client = await connect(agent.origin, { cardCache: false, auth, maxRetries: 0 });
    const outcomes = {
      'stream-error': await streamFailure(client.streamMessage('stream-error')),
      'stream-error-event': await streamFailure(client.streamMessage('stream-error-event')),
      'stream-not-json': await streamFailure(client.streamMessage('stream-not-json')),
      'stream-undecodable': await streamFailure(client.streamMessage('stream-undecodable')),
    };
    expect(Object.fromEntries(Object.entries(outcomes).map(([k, o]) => [k, [o.error.code, o.events]]))).toEqual({
      'stream-error': ['A2A_ERROR', 1],
      'stream-error-event': ['MALFORMED_EVENT', 1],
      'stream-not-json': ['MALFORMED_EVENT', 1],
      'stream-undecodable': ['MALFORMED_EVENT', 1],
    });
    expect(agent.echoes).toBe(4);
    const exposure = new Exposure();
    exposure.scan('errors', Object.fromEntries(Object.entries(outcomes).map(([k, o]) => [k, o.error])));
    expect(exposure.found).toEqual([]);
    for (const { error } of Object.values(outcomes)) expect(error.message).toContain('[REDACTED]');
  });
});
