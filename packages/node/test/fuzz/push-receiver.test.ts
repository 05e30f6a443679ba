import { createHmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeStreamEvent } from '@a2a-tether/core/protocol';
import { createPushReceiver, TetherError } from '../../src/index.js';
import type { PushReceiver } from '../../src/index.js';
import { fuzzRuns, fuzzSeed } from '../../../core/test/fuzz/fuzz-config.js';
import { serve, settle } from '../push/helpers.js';

// Property-based fuzzing of the push receiver's request handling: random methods, headers, bodies
// (valid pushes, mutated ones, invalid UTF-8, deep JSON, long strings) and credentials (right, wrong,
// another task's, forged or valid HMAC signatures). Whatever comes in: an answer (never a throw,
// never a 500), refusals only as TetherError PUSH_REFUSED, bounded state, and no task event from a
// forged or invalid call. Fixed seed and bounded runs; FUZZ_RUNS / FUZZ_SEED for more.

const TOKEN = 'receiver-wide-token';
const T2_TOKEN = 'token-of-t2';
const SECRET = 'hmac-secret-of-the-fuzz';
const NOW_SEC = 1_900_000_000;
const ANSWERS = [200, 202, 400, 401, 404, 405, 409, 413, 415, 429, 503];
const MAX_BODY = 4_096;
const MAX_PENDING = 20;
const MAX_BODIES = 30;

type Json = Record<string, unknown>;

/** Push bodies as the official senders write them (v1.0 StreamResponse, v0.3 whole Task). */
function pushBody(kind: number, taskId: string, state: string): Json {
  switch (kind % 5) {
    case 0:
      return { statusUpdate: { taskId, contextId: 'c', status: { state, timestamp: '2026-01-01T00:00:00Z' } } };
    case 1:
      return { kind: 'task', id: taskId, contextId: 'c', status: { state }, history: [], artifacts: [] };
    case 2:
      return { task: { id: taskId, contextId: 'c', status: { state, message: { messageId: 'm', role: 'ROLE_AGENT', taskId, parts: [{ text: 'x' }] } } } };
    case 3:
      return { artifactUpdate: { taskId, contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'chunk' }] }, append: true } };
    default:
      return { message: { messageId: 'm', role: 'ROLE_AGENT', taskId, parts: [{ text: 'hi' }] } };
  }
}

/** Replaces one field somewhere in `body` (by a walk of `path` indexes) with `value`. */
function mutate(body: Json, path: number[], value: unknown): Json {
  let node: Json = body;
  for (const step of path) {
    const keys = Object.keys(node);
    const key = keys[step % Math.max(1, keys.length)];
    if (key === undefined) break;
    const child = node[key];
    if (typeof child !== 'object' || child === null || Array.isArray(child) || step % 3 === 0) {
      Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
      return body;
    }
    node = child as Json;
  }
  return body;
}

const state = fc.constantFrom('TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'working', 'input-required', 'TASK_STATE_COMPLETED', 'TASK_STATE_SUBMITTED', 'constructor', '__proto__', 'x');
const taskId = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('t1', 't2') }, { weight: 1, arbitrary: fc.constantFrom('t3', '', '__proto__', 'constructor') });

/** A body: a push (maybe mutated), or bytes that are not one. */
const bodyArb: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 10, arbitrary: fc.tuple(fc.nat(), taskId, state).map(([kind, id, s]) => encode(JSON.stringify(pushBody(kind, id, s)))) },
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.nat(), taskId, state, fc.array(fc.nat({ max: 20 }), { maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }))
      .map(([kind, id, s, path, value]) => encode(JSON.stringify(mutate(pushBody(kind, id, s), path, value)))),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 100_000 }).map((depth) => encode('['.repeat(depth) + ']'.repeat(depth))) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 100_000 }).map((n) => encode(JSON.stringify({ statusUpdate: { taskId: 't1', status: { state: 'x'.repeat(n) } } })))},
  { weight: 1, arbitrary: fc.constantFrom(encode(''), encode('null'), encode('[]'), encode('\ufeff{}'), new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), new Uint8Array([0xe2])) },
);

function encode(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** Which credentials a call presents: `genuine` ones hold a secret the receiver accepts for some task. */
type Credentials =
  | 'none'
  | 'token'
  | 'token-header'
  | 't2-token'
  | 'wrong-token'
  | 'jwt-like'
  | 'hmac'
  | 'hmac+t2-token'
  | 'hmac-forged'
  | 'hmac-stale'
  | 'hmac-other-body';

const credentialsArb = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom<Credentials>('token', 'token-header', 't2-token', 'hmac', 'hmac+t2-token') },
  { weight: 1, arbitrary: fc.constantFrom<Credentials>('none', 'wrong-token', 'jwt-like', 'hmac-forged', 'hmac-stale', 'hmac-other-body') },
);

/** Credentials that hold no secret the receiver accepts. */
const FORGED: ReadonlySet<Credentials> = new Set(['none', 'wrong-token', 'jwt-like', 'hmac-forged', 'hmac-stale', 'hmac-other-body']);

let webhookIds = 0;
function hmacHeaders(body: Uint8Array, timestamp = NOW_SEC, secret = SECRET): Record<string, string> {
  const id = `msg-${++webhookIds}`;
  const mac = createHmac('sha256', secret).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${mac}` };
}

function credentialHeaders(credentials: Credentials, body: Uint8Array): Record<string, string> {
  switch (credentials) {
    case 'none':
      return {};
    case 'token':
      return { authorization: `Bearer ${TOKEN}` };
    case 'token-header':
      return { 'x-a2a-notification-token': TOKEN };
    case 't2-token':
      return { authorization: `Bearer ${T2_TOKEN}` };
    case 'wrong-token':
      return { authorization: `Bearer ${TOKEN}x` };
    case 'jwt-like':
      return { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJ0YXNrSWQiOiJ0MSJ9.' };
    case 'hmac':
      return hmacHeaders(body);
    case 'hmac+t2-token':
      return { ...hmacHeaders(body), 'x-a2a-notification-token': T2_TOKEN };
    case 'hmac-forged':
      return hmacHeaders(body, NOW_SEC, `${SECRET}x`);
    case 'hmac-stale':
      return hmacHeaders(body, NOW_SEC - 3_600);
    case 'hmac-other-body':
      return hmacHeaders(encode('{}'));
  }
}

const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/);
const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);

interface Call {
  method: string;
  contentType: string;
  credentials: Credentials;
  body: Uint8Array;
  extra: Record<string, string>;
  contentLength: number | undefined;
}

const callArb: fc.Arbitrary<Call> = fc.record({
  method: fc.oneof({ weight: 8, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') }),
  contentType: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/a2a+json', 'application/json; charset=utf-8', 'APPLICATION/JSON') },
    { weight: 1, arbitrary: fc.constantFrom('text/plain', '', 'application/jsonx', 'application/json;', ' application/json') },
  ),
  credentials: credentialsArb,
  body: bodyArb,
  extra: fc.dictionary(headerName, headerValue, { maxKeys: 3 }),
  contentLength: fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.integer({ min: -1, max: 2 * MAX_BODY }) }),
});

function headersOf(call: Call): Record<string, string> {
  const headers: Record<string, string> = { ...call.extra, ...credentialHeaders(call.credentials, call.body) };
  if (call.contentType !== '') headers['content-type'] = call.contentType;
  if (call.contentLength !== undefined) headers['content-length'] = String(call.contentLength);
  return headers;
}

/** The task a body names when it is an A2A event (the core decoder, as the receiver uses it), else undefined. */
function namedTask(body: Uint8Array): string | undefined {
  try {
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
    const v03 = typeof parsed === 'object' && parsed !== null && 'kind' in parsed;
    const event = decodeStreamEvent(parsed, v03 ? 'v03' : 'v1');
    return event.kind === 'task' ? event.id : event.taskId;
  } catch {
    return undefined;
  }
}

interface Harness {
  receiver: PushReceiver;
  refused: TetherError[];
  listenerErrors: unknown[];
  pushes: Map<string, number>;
}

function harness(): Harness {
  const refused: TetherError[] = [];
  const listenerErrors: unknown[] = [];
  const receiver = createPushReceiver({
    token: TOKEN,
    hmac: { secret: SECRET },
    maxBodyBytes: MAX_BODY,
    maxPendingPerTask: MAX_PENDING,
    maxRememberedBodies: MAX_BODIES,
    replayCacheSize: 100,
    now: () => NOW_SEC * 1000,
    onRefused: (error) => refused.push(error),
    onListenerError: (error) => listenerErrors.push(error),
  });
  receiver.expect('t1');
  receiver.expect('t2', { token: T2_TOKEN });
  receiver.expect('__proto__');
  const pushes = new Map<string, number>();
  for (const id of ['t1', 't2', '__proto__']) {
    receiver.subscribe(id, (notice) => {
      pushes.set(id, (pushes.get(id) ?? 0) + notice.pushes);
    });
  }
  return { receiver, refused, listenerErrors, pushes };
}

const stats = { calls: 0, accepted: 0, byStatus: new Map<number, number>() };
afterAll(() => {
  const statuses = [...stats.byStatus].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
  console.log(`fuzz (seed ${fuzzSeed()}): push receiver: ${stats.calls} calls, ${stats.accepted} accepted; ${statuses}`);
});

/** The checks after each call: a known answer, typed refusals, bounded state, nothing from a forged or invalid call. */
function checkAnswer(h: Harness, call: Call, status: number, text: string, accepted: Map<string, number>): void {
  stats.calls++;
  stats.byStatus.set(status, (stats.byStatus.get(status) ?? 0) + 1);
  expect(ANSWERS, `status ${status}: ${text}`).toContain(status);
  expect(() => JSON.parse(text) as unknown).not.toThrow();
  for (const error of h.refused.splice(0)) {
    expect(error).toBeInstanceOf(TetherError);
    expect(error.code).toBe('PUSH_REFUSED');
    expect(error.message.length).toBeLessThan(1_000);
  }
  const named = namedTask(call.body);
  if (status === 200 || status === 202) {
    // Accepted (or a duplicate of an accepted one): genuine credentials, a valid event, an expected task.
    expect(FORGED.has(call.credentials), `${call.credentials} accepted with ${status}`).toBe(false);
    expect(named, 'accepted a body that is not an A2A event').toBeDefined();
    expect(call.method).toBe('POST');
    // A task with its own token takes only that token (the receiver-wide one says nothing about it).
    if (named === 't2') expect(['t2-token', 'hmac+t2-token']).toContain(call.credentials);
  }
  if (status === 202 && named !== undefined) {
    stats.accepted++;
    accepted.set(named, (accepted.get(named) ?? 0) + 1);
  }
  const held = h.receiver.stats();
  expect(held.heldNotices).toBeLessThanOrEqual(held.tasks);
  // Per task and sender: t1 and __proto__ take the receiver's token and the signature, t2 only its own token.
  expect(held.pendingPushes).toBeLessThanOrEqual(5 * MAX_PENDING);
  expect(held.rememberedBodies).toBeLessThanOrEqual(held.tasks * MAX_BODIES);
  // Per sender: the signature's share and t2's.
  expect(held.replayIds).toBeLessThanOrEqual(2 * 100);
  // Every call was answered: no body is being read.
  expect(held.unverifiedBytes).toBe(0);
  expect(h.listenerErrors).toEqual([]);
}

describe('fuzz the push receiver', { timeout: 120_000 }, () => {
  it('handle(): an answer to every request, typed refusals, and only genuine valid pushes delivered', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 8 }), async (calls) => {
        const h = harness();
        const accepted = new Map<string, number>();
        for (const call of calls) {
          const withBody = call.method !== 'GET' && call.method !== 'HEAD';
          const request = new Request('http://receiver.test/hook', {
            method: call.method,
            headers: headersOf(call),
            ...(withBody ? { body: new Uint8Array(call.body) } : {}),
          });
          const started = performance.now();
          const response = await h.receiver.handle(request);
          expect(performance.now() - started, 'time per request').toBeLessThan(500);
          checkAnswer(h, call, response.status, await response.text(), accepted);
        }
        await settle();
        // Every notice stands for accepted pushes of its task, and every accepted push is in one.
        expect(Object.fromEntries(h.pushes)).toEqual(Object.fromEntries(accepted));
        h.receiver.close();
      }),
      { numRuns: fuzzRuns(150), seed: fuzzSeed() },
    );
  });

  it('nodeHandler: the same over a real socket, never a 500', async () => {
    const h = harness();
    const server = await serve(h.receiver);
    try {
      const accepted = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(callArb, async (call) => {
          const { status, text } = await send(server.url, call);
          checkAnswer(h, call, status, text, accepted);
        }),
        { numRuns: fuzzRuns(60), seed: fuzzSeed() },
      );
      await settle();
      expect(Object.fromEntries(h.pushes)).toEqual(Object.fromEntries(accepted));
    } finally {
      h.receiver.close();
      await server.close();
    }
  });
});

/** One request over node:http (which lets a body disagree with its content-length). */
function send(url: string, call: Call): Promise<{ status: number; text: string }> {
  const headers = headersOf(call);
  // node:http writes exactly a declared content-length, and without one frames only some methods'
  // bodies: declare the true length (a false one is the WHATWG test's).
  const withBody = call.method !== 'GET' && call.method !== 'HEAD';
  if (withBody) headers['content-length'] = String(call.body.byteLength);
  else delete headers['content-length'];
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method: call.method, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // The receiver may answer (413, 415 …) and close before reading a body still being written.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(withBody ? Buffer.from(call.body) : undefined);
  });
}
