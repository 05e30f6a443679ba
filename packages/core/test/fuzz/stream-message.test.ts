import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient, type FetchLike } from '../../src/index.js';
import { v1Card } from '../helpers/scripted-server.js';
import { fuzzRuns, fuzzSeed } from './fuzz-config.js';

// Property-based test of the whole stream path behind `streamMessage()` (issue 10): hostile SSE
// bodies — good frames, broken JSON, error frames, random results with prototype keys, stray bytes,
// mixed line ends, a BOM — cut into random chunks. Whatever happens, what comes out is a TetherError.

const ORIGIN = 'http://agent.test';
let body: Uint8Array[] = [];
let client: A2AClient;

/** Answers every JSON-RPC stream request with the chunks in `body`, as the request's own id. */
const fetch: FetchLike = (_input, init) => {
  const id = (JSON.parse(String(init?.body)) as { id: unknown }).id;
  const chunks = body.map((chunk) => new TextEncoder().encode(new TextDecoder().decode(chunk).replaceAll('"$id"', JSON.stringify(id))));
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  return Promise.resolve(new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
};

let prototypeKeys: string[];
beforeAll(async () => {
  prototypeKeys = Reflect.ownKeys(Object.prototype).map(String).sort();
  client = await connect(`${ORIGIN}/`, { card: v1Card(ORIGIN), fetch, streamFetch: fetch, cardCache: false, maxEventSize: 4_096 });
});
afterAll(() => {
  expect(Reflect.ownKeys(Object.prototype).map(String).sort()).toEqual(prototypeKeys);
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
});

const status = (state: string) => ({ statusUpdate: { taskId: 't1', contextId: 'c1', status: { state } } });
const goodResult = fc.constantFrom<unknown>(
  { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_WORKING' } } },
  status('TASK_STATE_WORKING'),
  status('TASK_STATE_COMPLETED'),
  status('TASK_STATE_INPUT_REQUIRED'),
  { artifactUpdate: { taskId: 't1', contextId: 'c1', artifact: { artifactId: 'a', parts: [{ text: 'hi' }] } } },
  { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } },
);
/** JSON text of any shape, with prototype names among the keys. */
const hostileJson = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.constantFrom('{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '{"statusUpdate":{"taskId":"t1","status":{"state":"constructor"}}}'),
);
/** One frame's data line(s), before its line ends are chosen. */
const frame = fc.oneof(
  { weight: 12, arbitrary: goodResult.map((result) => `data: ${JSON.stringify({ jsonrpc: '2.0', id: '$id', result })}`) },
  { weight: 2, arbitrary: hostileJson.map((json) => `data: {"jsonrpc":"2.0","id":"$id","result":${json}}`) },
  { weight: 1, arbitrary: hostileJson.map((json) => `data: ${json}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.oneof(fc.constantFrom(-32001, -32603, -32700), fc.integer({ min: -33_000, max: 1_000 })), fc.string({ maxLength: 40 }), hostileJson)
      .map(([code, message, data]) => `event: error\ndata: {"jsonrpc":"2.0","id":"$id","error":{"code":${code},"message":${JSON.stringify(message)},"data":${data}}}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('data: {nope', 'data:', ': keep-alive', 'id: 7', 'retry: x', `data: ${'<a'.repeat(3_000)}`, 'data: \u001e{"jsonrpc":"2.0","id":"$id","result":{}}') },
);
const eol = fc.constantFrom('\n', '\r', '\r\n');
const sseBody = fc
  .tuple(fc.constantFrom('', '\ufeff'), fc.array(fc.tuple(frame, eol), { maxLength: 6 }), fc.uint8Array({ maxLength: 3 }))
  .map(([bom, frames, tail]) => Uint8Array.from([...new TextEncoder().encode(bom + frames.map(([f, e]) => f.replaceAll('\n', e) + e + e).join('')), ...tail]));
const chunked = sseBody.chain((bytes) =>
  fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, bytes.length - 1) }), { maxLength: 6 }).map((cuts) => {
    const sorted = cuts.filter((c) => c < bytes.length).sort((a, b) => a - b);
    return [0, ...sorted].map((from, i) => bytes.subarray(from, sorted[i] ?? bytes.length));
  }),
);

describe('streamMessage (fuzz)', () => {
  it('throws nothing but TetherErrors on hostile bodies, however they are cut', async () => {
    await fc.assert(
      fc.asyncProperty(chunked, async (chunks) => {
        body = chunks;
        try {
          for await (const event of client.streamMessage('hi')) expect(typeof event.kind).toBe('string');
        } catch (error) {
          if (!(error instanceof TetherError)) throw new Error(`a plain ${String(error)} escaped`, { cause: error });
          expect(error.message.length).toBeLessThan(4_200);
        }
      }),
      { numRuns: fuzzRuns(500), seed: fuzzSeed() },
    );
  });
});
