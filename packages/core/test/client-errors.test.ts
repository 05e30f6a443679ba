import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  A2AError,
  connect,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InvalidAgentResponseError,
  PushNotificationNotSupportedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  TetherError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  type A2AClient,
} from '../src/index.js';
import { json, RPC_ID, rpcFrame, sse, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  await server.close();
});

async function client(extra: Record<string, unknown> = {}): Promise<A2AClient> {
  server.on('GET /.well-known/agent-card.json', (_req, res) => json(res, 200, v1Card(server.origin, extra)));
  return connect(server.url, { cardCache: false });
}

async function failure(promise: Promise<unknown> | (() => Promise<unknown>)): Promise<TetherError> {
  try {
    await (typeof promise === 'function' ? promise() : promise);
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    return error as TetherError;
  }
  throw new Error('expected a failure');
}

async function drain(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

const task = (state: string) => ({ task: { id: 't1', contextId: 'c1', status: { state } } });

describe('card errors', () => {
  it('unreachable host → NETWORK, never delivered, naming the card URL', async () => {
    const closed = await startScriptedServer();
    await closed.close(); // a port that just stopped listening: connection refused
    const error = await failure(connect(closed.url, { cardCache: false }));
    expect(error.code).toBe('NETWORK');
    expect(error.maybeDelivered).toBe(false);
    expect(error.message).toMatch(
      new RegExp(`^GetAgentCard GET ${closed.url}/\\.well-known/agent-card\\.json: request failed: .*ECONNREFUSED`),
    );
  });

  it('404 everywhere → CARD_NOT_FOUND listing what was tried', async () => {
    const error = await failure(connect(`${server.url}/agents/x`, { cardCache: false }));
    expect(error.code).toBe('CARD_NOT_FOUND');
    expect(error.status).toBe(404);
    expect(error.message).toContain(`${server.url}/agents/x/.well-known/agent-card.json`);
    expect(error.message).toContain(`${server.url}/.well-known/agent.json`);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/agents/x/.well-known/agent-card.json',
      '/agents/x/.well-known/agent.json',
      '/.well-known/agent-card.json',
      '/.well-known/agent.json',
    ]);
  });

  it('falls back to the legacy /.well-known/agent.json', async () => {
    server.on('GET /.well-known/agent.json', (_req, res) => json(res, 200, v1Card(server.origin)));
    const c = await connect(server.url, { cardCache: false });
    expect(c.cardUrl).toBe(`${server.url}/.well-known/agent.json`);
  });

  it('invalid JSON → CARD_INVALID with a snippet', async () => {
    server.on('/.well-known/agent-card.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"name": "x", ');
    });
    const error = await failure(connect(server.url, { cardCache: false }));
    expect(error.code).toBe('CARD_INVALID');
    expect(error.message).toMatch(/GetAgentCard GET .*agent-card\.json → HTTP 200: the agent card is not JSON .*\{"name": "x",/);
  });

  it('an HTML 502 from a proxy → HTTP_STATUS 502, retryable, with the text of the page', async () => {
    server.on('/.well-known/agent-card.json', (_req, res) => {
      res.writeHead(502, 'Bad Gateway', { 'content-type': 'text/html' }).end('<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>');
    });
    const error = await failure(connect(server.url, { cardCache: false }));
    expect(error.code).toBe('HTTP_STATUS');
    expect(error.status).toBe(502);
    expect(error.isRetryable).toBe(true);
    expect(error.message).toMatch(/GetAgentCard GET http:.*agent-card\.json → HTTP 502: Bad Gateway: 502 Bad Gateway 502 Bad Gateway nginx/);
  });
});

describe('unary call errors', () => {
  it('429 with Retry-After → HTTP_STATUS with retryAfterMs', async () => {
    const c = await client();
    server.on('POST /rpc', (_req, res) => {
      res.writeHead(429, { 'retry-after': '7', 'content-type': 'text/plain' }).end('slow down');
    });
    const error = await failure(c.getTask('t1', { maxRetries: 0 }));
    expect(error).toMatchObject({ code: 'HTTP_STATUS', status: 429, retryAfterMs: 7000, isRetryable: true });
    expect(error.headers?.['retry-after']).toBe('7');
    expect(error.message).toBe(`GetTask POST ${server.url}/rpc → HTTP 429: Too Many Requests: slow down`);
  });

  it.each([
    [-32001, TaskNotFoundError],
    [-32002, TaskNotCancelableError],
    [-32003, PushNotificationNotSupportedError],
    [-32004, UnsupportedOperationError],
    [-32005, ContentTypeNotSupportedError],
    [-32006, InvalidAgentResponseError],
    [-32007, ExtendedAgentCardNotConfiguredError],
    [-32008, ExtensionSupportRequiredError],
    [-32009, VersionNotSupportedError],
  ] as const)('JSON-RPC error %i → its own class', async (code, cls) => {
    // One interface only: with two, a -32009 would (rightly) move on to the next one.
    const c = await client({ supportedInterfaces: [{ url: `${server.origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
    server.on('POST /rpc', (req, res) => {
      const { id } = JSON.parse(req.body) as { id: number };
      json(res, 200, { jsonrpc: '2.0', id, error: { code, message: `agent says ${code}` } });
    });
    const error = await failure(c.cancelTask('t1'));
    expect(error).toBeInstanceOf(cls);
    expect(error).toBeInstanceOf(A2AError);
    expect((error as A2AError).a2aCode).toBe(code);
    expect(error.isRetryable).toBe(false);
    expect(error.message).toBe(`CancelTask POST ${server.url}/rpc → HTTP 200: ${cls.errorName} ${code}: agent says ${code}`);
  });

  it('HTTP+JSON errors with only ErrorInfo.reason → the right class', async () => {
    const c = await connect(server.url, { cardCache: false, card: v1Card(server.origin), preferredBindings: ['HTTP+JSON'] });
    server.on('GET /rest/tasks/t9', (_req, res) =>
      json(res, 404, {
        error: {
          code: 404,
          status: 'NOT_FOUND',
          message: 'Task t9 not found',
          details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' }],
        },
      }),
    );
    const error = await failure(c.getTask('t9'));
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect(error.status).toBe(404);
    expect(error.message).toBe(`GetTask GET ${server.url}/rest/tasks/t9 → HTTP 404: TaskNotFoundError -32001: Task t9 not found`);
  });

  it('a JSON body that is not the protocol → INVALID_RESPONSE naming the field', async () => {
    const c = await client();
    server.on('POST /rpc', (_req, res) => json(res, 200, { jsonrpc: '2.0', id: RPC_ID, result: { id: 't1', status: { state: 7, message: 'oops' } } }));
    const error = await failure(c.getTask('t1'));
    expect(error.code).toBe('INVALID_RESPONSE');
    expect(error.message).toMatch(/task\.status\.message: expected object/);
  });

  it('timeout → TIMEOUT; caller abort → ABORTED', async () => {
    const c = await client();
    server.on('POST /rpc', () => {
      /* never answers */
    });
    const timeout = await failure(c.getTask('t1', { timeoutMs: 50 }));
    expect(timeout.code).toBe('TIMEOUT');
    expect(timeout.isRetryable).toBe(true);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('user left')), 20);
    const aborted = await failure(c.getTask('t1', { signal: controller.signal }));
    expect(aborted.code).toBe('ABORTED');
    expect((aborted.cause as Error).message).toBe('user left');
  });
});

describe('stream errors', () => {
  it('wrong content type on a stream → UNEXPECTED_CONTENT_TYPE', async () => {
    const c = await client();
    server.on('POST /rpc', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>maintenance</p>');
    });
    const error = await failure(drain(c.streamMessage('hi')));
    expect(error.code).toBe('UNEXPECTED_CONTENT_TYPE');
    expect(error.message).toMatch(/SendStreamingMessage POST .*\/rpc → HTTP 200: expected text\/event-stream, got text\/html: maintenance/);
  });

  it('an error before the stream starts arrives as JSON → the typed protocol error', async () => {
    const c = await client();
    server.on('POST /rpc', (_req, res) => json(res, 200, { jsonrpc: '2.0', id: RPC_ID, error: { code: -32004, message: 'no streaming today' } }));
    const error = await failure(drain(c.streamMessage('hi')));
    expect(error).toBeInstanceOf(UnsupportedOperationError);
    expect((error as A2AError).inStream).toBe(false);
  });

  it('a malformed SSE frame → MALFORMED_EVENT after the good events', async () => {
    const c = await client();
    server.on('POST /rpc', (_req, res) => sse(res, [rpcFrame(task('TASK_STATE_WORKING')), 'data: {"jsonrpc":"2.0","result":{nope\n\n']));
    const seen: unknown[] = [];
    const error = await failure(async () => {
      for await (const e of c.streamMessage('hi')) seen.push(e);
    });
    expect(seen).toHaveLength(1);
    expect(error.code).toBe('MALFORMED_EVENT');
    expect(error.taskId).toBe('t1');
    expect(error.message).toMatch(/event 2 is not JSON/);
  });

  it('an oversized event → EVENT_TOO_LARGE', async () => {
    server.on('GET /.well-known/agent-card.json', (_req, res) => json(res, 200, v1Card(server.origin)));
    const c = await connect(server.url, { cardCache: false, maxEventSize: 10_000 });
    const huge = { statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'x'.repeat(20_000) }] } } } };
    server.on('POST /rpc', (_req, res) => sse(res, [rpcFrame(task('TASK_STATE_WORKING')), rpcFrame(huge)]));
    const error = await failure(drain(c.streamMessage('hi')));
    expect(error.code).toBe('EVENT_TOO_LARGE');
  });

  it('a JSON-RPC error inside a stream → the same class as unary, marked inStream', async () => {
    const c = await client();
    server.on('POST /rpc', (_req, res) =>
      sse(res, [rpcFrame(task('TASK_STATE_WORKING')), `event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: RPC_ID, error: { code: -32001, message: 'vanished' } })}\n\n`]),
    );
    const error = await failure(drain(c.streamMessage('hi')));
    expect(error).toBeInstanceOf(TaskNotFoundError);
    expect((error as A2AError).inStream).toBe(true);
  });

  it('a clean close before a terminal state → STREAM_INTERRUPTED, never silent success', async () => {
    const c = await client();
    server.on('POST /rpc', (_req, res) => sse(res, [rpcFrame(task('TASK_STATE_WORKING'))]));
    const error = await failure(drain(c.streamMessage('hi')));
    expect(error).toMatchObject({ code: 'STREAM_INTERRUPTED', taskId: 't1', isRetryable: true });
  });

  it('ends normally at a terminal or interrupted state and at a message reply', async () => {
    const c = await client();
    let reply = 0;
    server.on('POST /rpc', (_req, res) => {
      const frames = [
        [rpcFrame(task('TASK_STATE_WORKING')), rpcFrame({ statusUpdate: { taskId: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } })],
        [rpcFrame(task('TASK_STATE_INPUT_REQUIRED'))],
        [rpcFrame({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } })],
      ][reply++] as string[];
      sse(res, frames);
    });
    expect(await drain(c.streamMessage('a'))).toHaveLength(2);
    expect(await drain(c.streamMessage('b'))).toHaveLength(1);
    expect(await drain(c.streamMessage('c'))).toMatchObject([{ kind: 'message', parts: [{ text: 'hi' }] }]);
  });

  it('break closes the connection; abort() ends the iteration with ABORTED; a stream iterates once', async () => {
    const c = await client();
    let closed = 0;
    server.on('POST /rpc', (req, res) => {
      req.socket.on('close', () => closed++);
      sse(res, [rpcFrame(task('TASK_STATE_WORKING'))], true);
    });
    const stream = c.streamMessage('hi');
    for await (const event of stream) {
      expect(event.kind).toBe('task');
      break;
    }
    await expect.poll(() => closed).toBe(1);
    await expect(drain(stream)).rejects.toThrow(/already iterated/);
    const second = c.streamMessage('again');
    const error = failure(async () => {
      for await (const _ of second) second.abort();
    });
    expect((await error).code).toBe('ABORTED');
  });

  it('records SSE ids and sends Last-Event-ID on subscribe', async () => {
    const c = await client();
    server.on('POST /rpc', (req, res) => {
      const { method } = JSON.parse(req.body) as { method: string };
      if (method === 'SubscribeToTask') {
        sse(res, [`id: 42\n${rpcFrame(task('TASK_STATE_COMPLETED'))}`]);
      } else sse(res, [`id: 41\n${rpcFrame(task('TASK_STATE_COMPLETED'))}`]);
    });
    // Each event comes with its SSE id (`items()`): the caller keeps the last one to resume after it.
    const ids = async (stream: AsyncIterable<{ id: string | undefined }>): Promise<(string | undefined)[]> => {
      const out: (string | undefined)[] = [];
      for await (const item of stream) out.push(item.id);
      return out;
    };
    const sent = await ids(c.streamMessage('hi').items());
    expect(sent).toEqual(['41']);
    expect(await ids(c.subscribe('t1', { lastEventId: sent.at(-1) }).items())).toEqual(['42']);
    expect(server.requests.at(-1)?.headers['last-event-id']).toBe('41');
  });

  it('refuses to stream from an agent whose card says it cannot, before any request', async () => {
    const c = await client({ capabilities: { streaming: false } });
    const before = server.requests.length;
    expect(() => c.streamMessage('hi')).toThrow(/does not stream/);
    expect(server.requests.length).toBe(before);
  });
});
