import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, DEFAULTS, MemoryTaskStore, TetherError, type A2AClient, type StandardSchema, type Task } from '../src/index.js';
import { dataOf } from '../src/schema/data-of.js';
import { decodeStreamEvent, decodeTask } from '../src/protocol/decode.js';
import { MAX_DEPTH } from '../src/protocol/depth.js';
import { startScriptedServer, v1Card, json, type ScriptedServer } from './helpers/scripted-server.js';

// Issue 33, point 10: data nested 10,000 deep. JSON.parse builds any depth (it is iterative in V8: 10,000
// and 1,000,000 levels parse), but JSON.stringify, structuredClone and every recursive walker overflow the
// stack near 3,000–4,000 levels. Nothing deeper than DEFAULTS.maxDepth levels is decoded: each path refuses
// it with a typed error naming the limit and where (never a RangeError), and what the task had is kept.

/** JSON text of `{"a":{"a":…1…}}`, `n` objects deep (JSON.stringify of such a value would overflow). */
function nested(n: number): string {
  return '{"a":'.repeat(n) + '1' + '}'.repeat(n);
}
/** A v1 task (JSON text) whose one artifact holds a data part `data` (JSON text). */
function taskText(state: string, data: string, id = 't-1'): string {
  return `{"id":"${id}","contextId":"c-1","status":{"state":"TASK_STATE_${state}"},"artifacts":[{"artifactId":"a-1","parts":[{"data":${data}}]}]}`;
}
const CLEAN_DONE = taskText('COMPLETED', '{"ok":true}');

/**
 * The typed error of deep data: its code (one of `codes`), the limit named in its message or, for the task
 * engine's RETRY_EXHAUSTED, its cause's; no RangeError anywhere in its cause chain.
 */
function expectDepthError(error: unknown, ...codes: string[]): void {
  expect(error).toBeInstanceOf(TetherError);
  expect(codes).toContain((error as TetherError).code);
  const chain: Error[] = [];
  for (let cause: unknown = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) chain.push(cause);
  expect(chain.some((e) => e instanceof TetherError && e.message.includes(`deeper than ${DEFAULTS.maxDepth} levels`))).toBe(true);
  for (const e of chain) {
    expect(e).not.toBeInstanceOf(RangeError);
    expect(e.message).not.toMatch(/call stack/);
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected a rejection'),
    (error: unknown) => error,
  );
}

const FAST = { initialDelayMs: 5, maxDelayMs: 20, maxAttempts: 3, pollMinMs: 10, pollMaxMs: 20, streamRetryMs: 20, maxRequestsPerWindow: 1_000 };

describe('data nested 10,000 deep', () => {
  let server: ScriptedServer;
  /** JSON-RPC results by method, as JSON text (or SSE frames' results for the streaming methods). */
  let results: Record<string, string | string[]>;
  beforeEach(async () => {
    results = {};
    server = await startScriptedServer();
    server.on('GET /.well-known/agent-card.json', (_req, res) => json(res, 200, v1Card(server.origin)));
    server.on('POST /rpc', (req, res: ServerResponse) => {
      const rpc = JSON.parse(req.body) as { id: number; method: string };
      const result = results[rpc.method];
      if (result === undefined) return json(res, 200, { jsonrpc: '2.0', id: rpc.id, error: { code: -32601, message: 'no' } });
      if (Array.isArray(result)) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const frame of result) res.write(`data: {"jsonrpc":"2.0","id":${rpc.id},"result":${frame}}\n\n`);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${rpc.id},"result":${result}}`);
    });
    server.on('GET /rest/tasks/t-1', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(String(results['GetTask']));
    });
    server.on('POST /rest/message:send', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(String(results['SendMessage']));
    });
    server.on('POST /rest/message:stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const frame of results['SendStreamingMessage'] as string[]) res.write(`data: ${frame}\n\n`);
      res.end();
    });
  });
  afterEach(async () => {
    await server.close();
  });

  const client = (binding: 'JSONRPC' | 'HTTP+JSON', extra: Parameters<typeof connect>[1] = {}): Promise<A2AClient> =>
    connect(server.url, { cardCache: false, preferredBindings: [binding], resilience: FAST, ...extra });

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`unary answers over ${binding}: getTask and sendMessage at 10,000 and 100,000 levels are INVALID_RESPONSE naming the limit and the path`, async () => {
      const c = await client(binding);
      for (const depth of [10_000, 100_000]) {
        results['GetTask'] = taskText('WORKING', nested(depth));
        results['SendMessage'] = `{"task":${taskText('WORKING', nested(depth))}}`;
        const got = await rejection(c.getTask('t-1', { maxRetries: 0 }));
        expectDepthError(got, 'INVALID_RESPONSE');
        expect((got as Error).message).toContain('artifacts.0.parts.0.data.a.a');
        expectDepthError(await rejection(c.sendMessage('hi')), 'INVALID_RESPONSE');
      }
    });

    it(`a stream event over ${binding}: MALFORMED_EVENT naming the limit, after the events before it`, async () => {
      const c = await client(binding);
      const deepEvent = `{"artifactUpdate":{"taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a-1","parts":[{"data":${nested(10_000)}}]}}}`;
      results['SendStreamingMessage'] = [`{"task":${taskText('WORKING', '{"ok":1}')}}`, deepEvent];
      const seen: string[] = [];
      const error = await rejection(
        (async () => {
          for await (const event of c.streamMessage('hi')) seen.push(event.kind);
        })(),
      );
      expect(seen).toEqual(['task']);
      expectDepthError(error, 'MALFORMED_EVENT');
    });
  }

  it('the task engine, streaming: a deep event is an in-stream protocol error; the task ends as GetTask shows it', async () => {
    results['SendStreamingMessage'] = [
      `{"task":${taskText('WORKING', '{"ok":1}')}}`,
      `{"artifactUpdate":{"taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a-2","parts":[{"data":${nested(10_000)}}]}}}`,
    ];
    results['GetTask'] = CLEAN_DONE;
    results['SubscribeToTask'] = [CLEAN_DONE];
    const handle = await (await client('JSONRPC')).start('hi');
    const done = await handle.done();
    expect(done.status.state).toBe('completed');
    expect(done.artifacts).toEqual([{ artifactId: 'a-1', parts: [{ kind: 'data', data: { ok: true } }] }]);
  });

  it('the task engine, streaming and polling, when the task itself holds deep data: a typed error, the task kept in the store', async () => {
    for (const delivery of ['stream', 'poll'] as const) {
      const store = new MemoryTaskStore();
      const deepEvent = `{"artifactUpdate":{"taskId":"t-1","contextId":"c-1","artifact":{"artifactId":"a-2","parts":[{"data":${nested(10_000)}}]}}}`;
      results['SendStreamingMessage'] = [`{"task":${taskText('WORKING', '{"ok":1}')}}`, deepEvent];
      results['SendMessage'] = `{"task":${taskText('WORKING', '{"ok":1}')}}`;
      results['GetTask'] = taskText('COMPLETED', nested(10_000));
      results['SubscribeToTask'] = [taskText('COMPLETED', nested(10_000))];
      const c = await client('JSONRPC', { store });
      const handle = await c.start('hi', { delivery });
      // The engine's budget ends a follow that makes no progress: its error has the refusal as cause.
      expectDepthError(await rejection(handle.done()), 'INVALID_RESPONSE', 'RETRY_EXHAUSTED');
      expect((await store.get(c.taskKey('t-1')))?.taskId).toBe('t-1');
    }
  });

  it('the task engine: a send whose first event is deep rejects start() with MALFORMED_EVENT (was a RangeError inside PROTOCOL_VIOLATION)', async () => {
    results['SendStreamingMessage'] = [`{"task":${taskText('WORKING', nested(10_000))}}`];
    expectDepthError(await rejection((await client('JSONRPC')).start('hi')), 'MALFORMED_EVENT');
  });

  it(`at the limit a value decodes (and clones and stringifies); one level more is refused — in every decoder`, () => {
    expect(MAX_DEPTH).toBe(DEFAULTS.maxDepth);
    // task (1) → artifacts (2) → artifact (3) → parts (4) → part (5) → the data's own levels.
    const fits = DEFAULTS.maxDepth - 5;
    const decoded = decodeTask(JSON.parse(taskText('WORKING', nested(fits))) as unknown, 'v1');
    expect(JSON.stringify(structuredClone(decoded)).length).toBeGreaterThan(fits * 5);
    expectDepthError(rejectionOf(() => decodeTask(JSON.parse(taskText('WORKING', nested(fits + 1))) as unknown, 'v1')), 'INVALID_RESPONSE');
    const event = `{"statusUpdate":{"taskId":"t-1","contextId":"c-1","status":{"state":"TASK_STATE_WORKING"},"metadata":${nested(10_000)}}}`;
    expectDepthError(rejectionOf(() => decodeStreamEvent(JSON.parse(event) as unknown, 'v1')), 'INVALID_RESPONSE');
  });

  it('typed results: dataOf (task.data(schema)) refuses deep data before the validator walks it', async () => {
    let validated = 0;
    const anything: StandardSchema<unknown, unknown> = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: (value: unknown) => {
          validated += 1;
          JSON.stringify(value); // a validator walks the value: this one overflows on deep data
          return { value };
        },
      },
    };
    const make = (data: unknown): Task => ({ kind: 'task', id: 't-1', contextId: 'c-1', status: { state: 'completed' }, artifacts: [{ artifactId: 'a-1', parts: [{ kind: 'data', data }] }], history: [] });
    expect(await dataOf(make(JSON.parse(nested(50)) as unknown), anything)).toBeTruthy();
    expectDepthError(await rejection(dataOf(make(JSON.parse(nested(10_000)) as unknown), anything)), 'INVALID_RESPONSE');
    expect(validated).toBe(1);
  });
});

function rejectionOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return new Error('expected a throw');
}
