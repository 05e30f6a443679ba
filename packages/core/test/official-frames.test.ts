import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { normalizeCard } from '../src/card/normalize-card.js';
import { parseAgentError } from '../src/errors/error-body.js';
import { endsStream } from '../src/model/task-state.js';
import type { Message, PushNotificationConfig, StreamEvent, Task, TaskPage, TaskState } from '../src/model/types.js';
import {
  decodeMessage,
  decodePushConfig,
  decodePushConfigList,
  decodeSendResult,
  decodeStreamEvent,
  decodeTask,
  decodeTaskPage,
} from '../src/protocol/decode.js';
import type { Dialect } from '../src/protocol/dialect.js';
import { encodeMessage, encodePushConfig, encodeSendParams } from '../src/protocol/encode.js';

// Codec round trips on the 157 frames captured from the official @a2a-js/sdk servers
// (1.3.0 = A2A v1.0, 0.3.14 = A2A v0.3); see fixtures/official/INDEX.md, whose "Surprises"
// are referenced below as "Surprise N".

type Json = Record<string, unknown>;

interface Fixture {
  name: string;
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown };
}

const DIR = fileURLToPath(new URL('./fixtures/official/', import.meta.url));
const FIXTURES: Fixture[] = readdirSync(DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({ name: file.slice(0, -'.json'.length), ...(JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Omit<Fixture, 'name'>) }));
const BY_NAME = new Map(FIXTURES.map((fixture) => [fixture.name, fixture]));

function fixture(name: string): Fixture {
  const found = BY_NAME.get(name);
  if (!found) throw new Error(`no fixture ${name}`);
  return found;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const isJsonRpc = (f: Fixture): boolean => f.request.path.endsWith('/jsonrpc');

/**
 * The dialect of a frame, from its file name prefix (`v1-`, `v03-jsonrpc-`, `v03-rest-`). The
 * `v1compat-` frames come from a v1 server with the v0.3 compatibility layer: they are v1 when
 * the request carried `A2A-Version: 1.0`, otherwise v0.3 (JSON-RPC or REST).
 */
function dialectOf(f: Fixture): Dialect {
  if (f.name.startsWith('v1-')) return 'v1';
  if (f.name.startsWith('v03-jsonrpc-')) return 'v03';
  if (f.name.startsWith('v03-rest-')) return 'v03-proto';
  if (f.name.startsWith('v1compat-')) {
    if (f.request.headers['a2a-version'] === '1.0') return 'v1';
    return isJsonRpc(f) ? 'v03' : 'v03-proto';
  }
  if (f.name.startsWith('v03-wellknown')) return 'v03';
  throw new Error(`unknown fixture prefix: ${f.name}`);
}

type Operation =
  | 'card'
  | 'send'
  | 'stream'
  | 'get'
  | 'list'
  | 'cancel'
  | 'subscribe'
  | 'pushCreate'
  | 'pushGet'
  | 'pushList'
  | 'pushDelete'
  | 'extendedCard'
  | 'other';

const RPC_OPERATIONS: Record<string, Operation> = {
  SendMessage: 'send',
  'message/send': 'send',
  SendStreamingMessage: 'stream',
  'message/stream': 'stream',
  GetTask: 'get',
  'tasks/get': 'get',
  ListTasks: 'list',
  'tasks/list': 'list',
  CancelTask: 'cancel',
  'tasks/cancel': 'cancel',
  SubscribeToTask: 'subscribe',
  'tasks/resubscribe': 'subscribe',
  CreateTaskPushNotificationConfig: 'pushCreate',
  'tasks/pushNotificationConfig/set': 'pushCreate',
  GetTaskPushNotificationConfig: 'pushGet',
  'tasks/pushNotificationConfig/get': 'pushGet',
  ListTaskPushNotificationConfigs: 'pushList',
  'tasks/pushNotificationConfig/list': 'pushList',
  DeleteTaskPushNotificationConfig: 'pushDelete',
  'tasks/pushNotificationConfig/delete': 'pushDelete',
  GetExtendedAgentCard: 'extendedCard',
  'agent/getAuthenticatedExtendedCard': 'extendedCard',
};

/** The operation a frame's request performs (JSON-RPC method, or REST method + path). */
function operationOf(f: Fixture): Operation {
  const { method, path, body } = f.request;
  if (path === '/.well-known/agent-card.json') return 'card';
  if (isJsonRpc(f)) return isObject(body) && typeof body['method'] === 'string' ? (RPC_OPERATIONS[body['method']] ?? 'other') : 'other';
  const rest = path.replace(/^\/a2a\/rest(\/v1)?/, '').split('?')[0] ?? '';
  const routes: [string, RegExp, Operation][] = [
    ['POST', /^\/message:send$/, 'send'],
    ['POST', /^\/message:stream$/, 'stream'],
    ['GET', /^\/tasks$/, 'list'],
    ['GET', /^\/tasks\/[^/:]+$/, 'get'],
    ['POST', /^\/tasks\/[^/:]+:cancel$/, 'cancel'],
    ['*', /^\/tasks\/[^/:]+:subscribe$/, 'subscribe'],
    ['POST', /^\/tasks\/[^/]+\/pushNotificationConfigs$/, 'pushCreate'],
    ['GET', /^\/tasks\/[^/]+\/pushNotificationConfigs$/, 'pushList'],
    ['GET', /^\/tasks\/[^/]+\/pushNotificationConfigs\/[^/]+$/, 'pushGet'],
    ['DELETE', /^\/tasks\/[^/]+\/pushNotificationConfigs\/[^/]+$/, 'pushDelete'],
    ['GET', /^\/(extendedAgentCard|card)$/, 'extendedCard'],
  ];
  return routes.find(([m, re]) => (m === '*' || m === method) && re.test(rest))?.[2] ?? 'other';
}

/** The task a request is about (push-config listings need it: their answers may not name it). */
function requestTaskId(f: Fixture): string {
  if (isJsonRpc(f)) {
    const params = isObject(f.request.body) && isObject(f.request.body['params']) ? f.request.body['params'] : {};
    return String(params['taskId'] ?? params['id'] ?? '');
  }
  return decodeURIComponent(/\/tasks\/([^/:?]+)/.exec(f.request.path)?.[1] ?? '');
}

/** An agent error: a JSON-RPC `error`, or any non-2xx answer (304 is a cache revalidation). */
function isErrorFrame(f: Fixture): boolean {
  const body = f.response.body;
  if (isObject(body) && body['error'] !== undefined && body['error'] !== null) return true;
  return f.response.status >= 400;
}

function isCardFrame(f: Fixture): boolean {
  const op = operationOf(f);
  return (op === 'card' || op === 'extendedCard') && !isErrorFrame(f) && f.response.status === 200;
}

const isSse = (f: Fixture): boolean => /^text\/event-stream/.test(f.response.headers['content-type'] ?? '');

/** The `data:` payloads of a raw SSE body (these servers write one `data:` line per event). */
function sseData(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice('data:'.length).trim()) as unknown);
}

/** The A2A payload of an answer: JSON-RPC `result`, or the REST body as is. */
function payloadOf(f: Fixture, body: unknown = f.response.body): unknown {
  return isJsonRpc(f) && isObject(body) ? body['result'] : body;
}

/** Wire payloads of a successful frame: one per SSE event, or the single JSON answer. */
function wirePayloads(f: Fixture): unknown[] {
  return isSse(f) ? sseData(String(f.response.body)).map((event) => payloadOf(f, event)) : [payloadOf(f)];
}

type Decoded =
  | { op: 'events'; events: StreamEvent[] }
  | { op: 'page'; page: TaskPage }
  | { op: 'push'; configs: PushNotificationConfig[] }
  | { op: 'empty' };

/** Decodes a successful frame with Tether's decoder, in the frame's dialect. */
function decodeFrame(f: Fixture): Decoded {
  const dialect = dialectOf(f);
  const payloads = wirePayloads(f);
  const [payload] = payloads;
  switch (operationOf(f)) {
    case 'send':
      return { op: 'events', events: [decodeSendResult(payload, dialect)] };
    case 'stream':
    case 'subscribe':
      return { op: 'events', events: payloads.map((p) => decodeStreamEvent(p, dialect)) };
    case 'get':
    case 'cancel':
      return { op: 'events', events: [decodeTask(payload, dialect)] };
    case 'list':
      return { op: 'page', page: decodeTaskPage(payload) };
    case 'pushCreate':
    case 'pushGet':
      return { op: 'push', configs: [decodePushConfig(payload, requestTaskId(f))] };
    case 'pushList':
      return { op: 'push', configs: decodePushConfigList(payload, requestTaskId(f)) };
    case 'pushDelete':
      // JSON-RPC `result: null`, REST 204 with an empty body (Surprise 10).
      expect(payload === null || payload === '').toBe(true);
      return { op: 'empty' };
    default:
      throw new Error(`no decoder for ${f.name} (${operationOf(f)})`);
  }
}

function events(f: Fixture): StreamEvent[] {
  const decoded = decodeFrame(f);
  if (decoded.op !== 'events') throw new Error(`${f.name} has no events`);
  return decoded.events;
}

function task(name: string): Task {
  const [only] = events(fixture(name));
  if (only?.kind !== 'task') throw new Error(`${name} is not a task`);
  return only;
}

function page(name: string): TaskPage {
  const decoded = decodeFrame(fixture(name));
  if (decoded.op !== 'page') throw new Error(`${name} is not a task page`);
  return decoded.page;
}

function pushConfigs(name: string): PushNotificationConfig[] {
  const decoded = decodeFrame(fixture(name));
  if (decoded.op !== 'push') throw new Error(`${name} is not a push config answer`);
  return decoded.configs;
}

const textOf = (parts: Message['parts']): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
const artifactText = (t: Task): string => t.artifacts.map((a) => textOf(a.parts)).join('');
const statesOf = (list: readonly StreamEvent[]): TaskState[] =>
  list.flatMap((e) => (e.kind === 'task' || e.kind === 'status-update' ? [e.status.state] : []));

// ---------------------------------------------------------------------------------------------
// Messages and their wire JSON, side by side.

/** The object inside a one-key wrapper (`{task}`, `{message}`, `{msg}`, `{statusUpdate}`, `{artifactUpdate}`). */
function unwrap(wire: unknown): Json {
  if (!isObject(wire)) throw new Error(`not an object: ${JSON.stringify(wire)}`);
  for (const key of ['task', 'message', 'msg', 'statusUpdate', 'artifactUpdate']) {
    if (isObject(wire[key])) return wire[key];
  }
  return wire;
}

type MessagePair = [decoded: Message, wire: unknown];

function statusPairs(status: Task['status'], wireStatus: unknown): MessagePair[] {
  if (!status.message) return [];
  const wire = isObject(wireStatus) ? (wireStatus['message'] ?? wireStatus['update']) : undefined;
  return [[status.message, wire]];
}

function taskPairs(decoded: Task, wire: Json): MessagePair[] {
  const history = Array.isArray(wire['history']) ? wire['history'] : [];
  expect(decoded.history).toHaveLength(history.length);
  return [...statusPairs(decoded.status, wire['status']), ...decoded.history.map((m, i): MessagePair => [m, history[i]])];
}

/** Every decoded Message of a frame, paired with the wire JSON it came from. */
function messagePairs(f: Fixture): MessagePair[] {
  const decoded = decodeFrame(f);
  const payloads = wirePayloads(f);
  switch (decoded.op) {
    case 'events':
      expect(decoded.events).toHaveLength(payloads.length);
      return decoded.events.flatMap((event, i) => {
        const wire = unwrap(payloads[i]);
        switch (event.kind) {
          case 'message':
            return [[event, wire] as MessagePair];
          case 'task':
            return taskPairs(event, wire);
          case 'status-update':
            return statusPairs(event.status, wire['status']);
          case 'artifact-update':
            return [];
        }
      });
    case 'page': {
      const wireTasks = (payloads[0] as { tasks: Json[] }).tasks;
      return decoded.page.tasks.flatMap((t, i) => taskPairs(t, wireTasks[i] as Json));
    }
    default:
      return [];
  }
}

/**
 * The wire JSON of a message minus the defaults a server may write and Tether's decoder
 * reads as "absent" (so `encodeMessage` does not write them back):
 * - `""` and `null` in any field (ProtoJSON writers emit `""` for unset strings: `contextId`,
 *   `taskId`, part `filename`/`mediaType`, v0.3 `file.name`/`file.mimeType` …);
 * - empty `extensions` and `referenceTaskIds` lists.
 * Kept: `metadata: {}` (Tether keeps an empty metadata object as the agent sent it), `parts`/
 * `content` even when empty (required), and everything inside `data` and `metadata` values.
 * None of the 157 captured messages carries such a default (the SDKs drop them), so on the
 * captures this is the identity; the "server-written defaults" test below exercises it.
 */
function dropDefaults(wire: unknown): unknown {
  if (Array.isArray(wire)) return wire.map(dropDefaults);
  if (!isObject(wire)) return wire;
  const out: Json = {};
  for (const [key, value] of Object.entries(wire)) {
    if (value === '' || value === null || value === undefined) continue;
    if ((key === 'extensions' || key === 'referenceTaskIds') && Array.isArray(value) && value.length === 0) continue;
    out[key] = key === 'data' || key === 'metadata' ? value : dropDefaults(value);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

const cardFrames = FIXTURES.filter(isCardFrame);
const errorFrames = FIXTURES.filter(isErrorFrame);
const successFrames = FIXTURES.filter((f) => !isCardFrame(f) && !isErrorFrame(f) && f.response.status !== 304);

/** The A2A code `parseAgentError` must find in each error frame (`undefined`: not an A2A error). */
const EXPECTED_ERRORS: Record<string, number | undefined> = {
  'v1-jsonrpc-error-content-type': -32005,
  'v1-jsonrpc-error-extended-card-unsupported': -32004,
  'v1-jsonrpc-error-invalid-params': -32602,
  'v1-jsonrpc-error-invalid-request': -32602, // not -32600 (Surprise 17)
  'v1-jsonrpc-error-method-not-found': -32601,
  'v1-jsonrpc-error-parse': -32700,
  'v1-jsonrpc-error-push-not-supported': -32003,
  'v1-jsonrpc-error-send-to-terminal-task': -32004,
  'v1-jsonrpc-error-task-not-cancelable': -32002,
  'v1-jsonrpc-error-task-not-found': -32001,
  'v1-jsonrpc-error-version-0.3': -32009,
  'v1-jsonrpc-error-version-missing': -32009,
  'v1-jsonrpc-push-get-deleted': -32001, // a missing push config is TaskNotFound (Surprise 20)
  'v1-jsonrpc-subscribe-finished': -32004,
  // v1 REST: google.rpc.Status whose `code` is the HTTP status; the ErrorInfo reason decides (Surprise 16).
  'v1-rest-error-extended-card-unsupported': -32004,
  'v1-rest-error-invalid-params': -32602,
  'v1-rest-error-parse': -32602, // reason INVALID_PARAMS (Surprise 18)
  'v1-rest-error-push-not-supported': -32003,
  'v1-rest-error-send-to-terminal-task': -32004,
  'v1-rest-error-task-not-cancelable': -32002,
  'v1-rest-error-task-not-found': -32001,
  'v1-rest-error-unknown-path': undefined, // Express HTML 404 (Surprise 23)
  'v1-rest-error-version-missing': -32009,
  'v1-rest-push-get-deleted': -32001,
  'v1-rest-subscribe-finished': -32004,
  'v03-jsonrpc-error-extended-card-unsupported': -32004,
  'v03-jsonrpc-error-invalid-params': -32603, // leaks as an internal error (Surprise 19)
  'v03-jsonrpc-error-invalid-request': -32600,
  'v03-jsonrpc-error-list-tasks': -32601,
  'v03-jsonrpc-error-method-not-found': -32601,
  'v03-jsonrpc-error-parse': -32700,
  'v03-jsonrpc-error-push-not-supported': -32003,
  'v03-jsonrpc-error-send-to-terminal-task': -32600, // (Surprise 21)
  'v03-jsonrpc-error-task-not-cancelable': -32002,
  'v03-jsonrpc-error-task-not-found': -32001,
  'v03-jsonrpc-push-get-deleted': -32603,
  // v0.3 REST: a flat `{code, message}` with the A2A code.
  'v03-rest-error-extended-card-unsupported': -32004,
  'v03-rest-error-invalid-params': -32602,
  'v03-rest-error-list-tasks': undefined, // Express HTML 404: 0.3.14 serves no GET /v1/tasks
  'v03-rest-error-parse': -32700,
  'v03-rest-error-push-not-supported': -32003,
  'v03-rest-error-send-to-terminal-task': -32600,
  'v03-rest-error-task-not-cancelable': -32002,
  'v03-rest-error-task-not-found': -32001,
  'v03-rest-push-create-client-shape': -32602, // the 0.3.14 client's own body shape (Surprise 12)
  'v03-rest-push-get-deleted': -32603,
};

describe('official frames: inventory', () => {
  it('has every captured frame, each classified exactly once', () => {
    expect(FIXTURES).toHaveLength(157);
    const notModified = FIXTURES.filter((f) => f.response.status === 304);
    expect(notModified.map((f) => f.name)).toEqual(['v1-wellknown-card-not-modified']);
    expect(notModified[0]?.response.body).toBe('');
    expect(cardFrames.length + errorFrames.length + successFrames.length + notModified.length).toBe(FIXTURES.length);
    expect(errorFrames.map((f) => f.name).sort()).toEqual(Object.keys(EXPECTED_ERRORS).sort());
    expect(cardFrames).toHaveLength(10);
    for (const f of FIXTURES) expect(['v1', 'v03', 'v03-proto']).toContain(dialectOf(f));
    for (const f of successFrames) expect(operationOf(f)).not.toBe('other');
  });
});

describe('official frames: every successful answer decodes', () => {
  it.each(successFrames.map((f) => [f.name, f] as const))('%s', (_name, f) => {
    const decoded = decodeFrame(f);
    if (decoded.op === 'events') {
      expect(decoded.events.length).toBeGreaterThan(0);
      // Every captured stream ends on a message, a terminal or an interrupted state.
      if (isSse(f)) expect(endsStream(decoded.events.at(-1) as StreamEvent)).toBe(true);
    }
    for (const [message, wire] of messagePairs(f)) {
      expect(isObject(wire)).toBe(true);
      expect(message.parts.length).toBeGreaterThan(0);
    }
  });
});

describe('official frames: message round trips', () => {
  const withMessages = successFrames.filter((f) => !operationOf(f).startsWith('push'));

  it.each(withMessages.map((f) => [f.name, f] as const))('%s', (_name, f) => {
    const dialect = dialectOf(f);
    const pairs = messagePairs(f);
    for (const [message, wire] of pairs) {
      expect(decodeMessage(encodeMessage(message, dialect), dialect)).toEqual(message);
      expect(encodeMessage(message, dialect)).toEqual(dropDefaults(wire));
    }
  });

  it('covers every kind of message: user turns, agent status messages, echo replies', () => {
    const all = withMessages.flatMap((f) => messagePairs(f).map(([m]) => ({ dialect: dialectOf(f), m })));
    expect(all.length).toBeGreaterThan(300);
    for (const dialect of ['v1', 'v03', 'v03-proto'] as const) {
      const texts = new Set(all.filter((x) => x.dialect === dialect).map((x) => `${x.m.role}:${textOf(x.m.parts)}`));
      for (const expected of ['user:stream updates=2 chunks=3', 'agent:step 0', 'agent:echo: echo hello', 'agent:need input']) {
        expect(texts).toContain(expected);
      }
    }
  });

  it('drops the defaults a server may write, and only those', () => {
    const base = fixture('v1-jsonrpc-send-stream-blocking');
    const wireUser = ((payloadOf(base) as Json)['task'] as { history: Json[] }).history[0] as Json;
    const withDefaults = {
      ...wireUser,
      extensions: [],
      referenceTaskIds: [],
      metadata: { kept: {} },
      parts: [{ text: 'hi', filename: '', mediaType: '', metadata: { empty: '' } }],
    };
    const decoded = decodeMessage(withDefaults, 'v1');
    expect(decoded.extensions).toBeUndefined();
    expect(decoded.parts).toEqual([{ kind: 'text', text: 'hi', metadata: { empty: '' } }]);
    expect(encodeMessage(decoded, 'v1')).toEqual(dropDefaults(withDefaults));
    expect(dropDefaults(withDefaults)).toEqual({
      ...wireUser,
      metadata: { kept: {} },
      parts: [{ text: 'hi', metadata: { empty: '' } }],
    });
  });
});

describe('official frames: decoded values', () => {
  it.each([
    ['v1-jsonrpc-send-echo'],
    ['v1-rest-send-echo'],
    ['v03-jsonrpc-send-echo'],
    ['v03-rest-send-echo'],
    ['v1compat-jsonrpc-send-echo-no-version'],
    ['v1compat-jsonrpc-send-echo-v1'],
    ['v1compat-rest-send-echo-v03-path'],
  ])('%s: an agent Message reply', (name) => {
    const [reply] = events(fixture(name));
    if (reply?.kind !== 'message') throw new Error('expected a message');
    expect(reply.role).toBe('agent');
    expect(reply.parts).toEqual([
      { kind: 'text', text: 'echo: echo hello', ...(dialectOf(fixture(name)) === 'v1' ? { mediaType: 'text/plain' } : {}) },
    ]);
    expect(reply.contextId).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.taskId).toBeUndefined();
  });

  it.each([['v1-jsonrpc'], ['v1-rest'], ['v03-jsonrpc'], ['v03-rest']])('%s-send-stream-blocking: completed task, whole artifact, history', (prefix) => {
    const t = task(`${prefix}-send-stream-blocking`);
    expect(t.status.state).toBe('completed');
    expect(t.artifacts).toHaveLength(1);
    expect(t.artifacts[0]?.artifactId).toBe('result');
    expect(t.artifacts[0]?.name).toBe('result');
    expect(t.artifacts[0]?.parts.map((p) => (p.kind === 'text' ? p.text : ''))).toEqual(['chunk-0;', 'chunk-1;', 'chunk-2;']);
    expect(t.history.map((m) => [m.role, textOf(m.parts), m.taskId, m.contextId])).toEqual([
      ['user', 'stream updates=2 chunks=3', t.id, t.contextId],
      ['agent', 'step 0', t.id, t.contextId],
      ['agent', 'step 1', t.id, t.contextId],
    ]);
  });

  it.each([['v1-jsonrpc'], ['v1-rest'], ['v03-jsonrpc'], ['v03-rest'], ['v1compat-jsonrpc']])('%s-stream: states, chunks and flags in order', (prefix) => {
    const name = prefix === 'v1compat-jsonrpc' ? 'v1compat-jsonrpc-stream-no-version' : `${prefix}-stream`;
    const list = events(fixture(name));
    expect(list.map((e) => e.kind)).toEqual(['task', 'status-update', 'artifact-update', 'status-update', 'artifact-update', 'artifact-update', 'status-update']);
    expect(statesOf(list)).toEqual(['submitted', 'working', 'working', 'completed']);
    const chunks = list.flatMap((e) => (e.kind === 'artifact-update' ? [[textOf(e.artifact.parts), e.append, e.lastChunk]] : []));
    expect(chunks).toEqual([
      ['chunk-0;', false, false],
      ['chunk-1;', true, false],
      ['chunk-2;', true, true],
    ]);
    const finals = list.flatMap((e) => (e.kind === 'status-update' ? [e.final] : []));
    const expectedFinals: Record<string, (boolean | undefined)[]> = {
      'v1-jsonrpc': [undefined, undefined, undefined], // v1 has no `final`
      'v1-rest': [undefined, undefined, undefined],
      'v03-jsonrpc': [false, false, true],
      'v03-rest': [undefined, undefined, true], // omitted when false (Surprise 8)
      'v1compat-jsonrpc': [false, false, true],
    };
    expect(finals).toEqual(expectedFinals[prefix]);
    const [first] = list;
    if (first?.kind !== 'task') throw new Error('expected the task first');
    for (const e of list.slice(1)) expect(e).toMatchObject({ taskId: first.id, contextId: first.contextId });
  });

  it.each([['v1-jsonrpc'], ['v1-rest'], ['v03-jsonrpc'], ['v03-rest']])('%s: input, follow-up, fail and reject', (prefix) => {
    const v03 = prefix.startsWith('v03');
    const input = events(fixture(`${prefix}-stream-input`));
    expect(statesOf(input)).toEqual(['submitted', 'working', 'input-required']);
    const last = input.at(-1);
    if (last?.kind !== 'status-update') throw new Error('expected a status update last');
    expect(last.final).toBe(v03 ? true : undefined); // v0.3: `final` is true on input-required too
    expect(textOf(last.status.message?.parts ?? [])).toBe('need input');

    const followUp = events(fixture(`${prefix}-stream-input-followup`));
    // v1 re-sends the Task (still input-required) first; v0.3 starts with a status update.
    expect(statesOf(followUp)).toEqual(v03 ? ['working', 'completed'] : ['input-required', 'working', 'completed']);
    expect(followUp.flatMap((e) => (e.kind === 'artifact-update' ? [[e.artifact.artifactId, textOf(e.artifact.parts), e.lastChunk]] : []))).toEqual([
      ['answer', 'got: blue', true],
    ]);

    const fail = events(fixture(`${prefix}-stream-fail`));
    expect(statesOf(fail)).toEqual(['submitted', 'working', 'failed']);
    const failed = fail.at(-1);
    expect(failed?.kind === 'status-update' && textOf(failed.status.message?.parts ?? [])).toBe('failed on purpose');
    expect(failed?.kind === 'status-update' && failed.status.message?.role).toBe('agent');

    const rejected = task(`${prefix}-send-reject`);
    expect(rejected.status.state).toBe('rejected');
    expect(textOf(rejected.status.message?.parts ?? [])).toBe('rejected on purpose');
  });

  it.each([['v1-jsonrpc'], ['v1-rest'], ['v03-jsonrpc'], ['v03-rest']])('%s: getTask historyLength semantics (Surprise 7)', (prefix) => {
    const history = (name: string): string[] => task(`${prefix}-${name}`).history.map((m) => textOf(m.parts));
    const all = ['stream updates=2 chunks=3', 'step 0', 'step 1'];
    expect(history('get-history-length-1')).toEqual(['step 1']);
    if (prefix.startsWith('v1')) {
      expect(history('get')).toEqual(all);
      expect(history('get-history-length-0')).toEqual([]);
    } else {
      expect(history('get')).toEqual([]);
      expect(history('get-history-length-0')).toEqual(all);
    }
    for (const name of ['get', 'get-history-length-0', 'get-history-length-1']) {
      const t = task(`${prefix}-${name}`);
      expect(t.status.state).toBe('completed');
      expect(artifactText(t)).toBe('chunk-0;chunk-1;chunk-2;');
    }
  });

  it.each([['v1-jsonrpc'], ['v1-rest'], ['v03-jsonrpc'], ['v03-rest']])('%s: non-blocking sends, cancel and subscribe', (prefix) => {
    const nonBlocking = task(`${prefix}-send-stream-nonblocking`);
    // v1 answers the first state; v0.3 may serialize a later one (Surprise 5).
    expect(nonBlocking.status.state).toBe(prefix.startsWith('v1') ? 'submitted' : 'working');
    expect(task(`${prefix}-send-slow-nonblocking`).status.state).not.toBe('completed');

    const canceled = task(`${prefix}-cancel`);
    expect(canceled.id).toBe(task(`${prefix}-send-slow-nonblocking`).id);
    expect(canceled.status.state).toBe('canceled'); // v0.3 REST spells it TASK_STATE_CANCELLED (Surprise 9)
    expect(textOf(canceled.status.message?.parts ?? [])).toMatch(/^canceled at step \d+$/);

    const subscribed = events(fixture(`${prefix}-subscribe`));
    const [snapshot] = subscribed;
    if (snapshot?.kind !== 'task') throw new Error('a subscription opens with a task snapshot (Surprise 13)');
    expect(snapshot.id).toBe(task(`${prefix}-send-slow-for-subscribe`).id);
    expect(snapshot.status.state).toBe('working');
    // The snapshot carries the chunks so far as separate parts (Surprise 15); live chunks follow.
    const soFar = snapshot.artifacts[0]?.parts.length ?? 0;
    expect(soFar).toBeGreaterThan(0);
    const live = subscribed.flatMap((e) => (e.kind === 'artifact-update' ? [textOf(e.artifact.parts)] : []));
    expect([...(snapshot.artifacts[0]?.parts ?? []).map((p) => (p.kind === 'text' ? p.text : '')), ...live]).toEqual(
      ['chunk-0;', 'chunk-1;', 'chunk-2;', 'chunk-3;', 'chunk-4;', 'chunk-5;'],
    );
    expect(statesOf(subscribed).at(-1)).toBe('completed');
  });

  it('v0.3 subscribe to a finished task: one event, the final Task (Surprise 13)', () => {
    for (const name of ['v03-jsonrpc-subscribe-finished', 'v03-rest-subscribe-finished']) {
      const list = events(fixture(name));
      expect(list).toHaveLength(1);
      const [only] = list;
      expect(only?.kind === 'task' && [only.status.state, artifactText(only), only.history.length]).toEqual(['completed', 'chunk-0;chunk-1;chunk-2;', 3]);
    }
  });

  it('REST subscribe with GET streams the same way (Surprise 14)', () => {
    for (const prefix of ['v1-rest', 'v03-rest']) {
      expect(fixture(`${prefix}-subscribe-get`).request.method).toBe('GET');
      const list = events(fixture(`${prefix}-subscribe-get`));
      expect(list[0]?.kind === 'task' && list[0].id).toBe(task(`${prefix}-send-slow-for-subscribe-get`).id);
      expect(statesOf(list).at(-1)).toBe('completed');
    }
  });

  it('push configs: ids, urls and tokens per server (Surprise 11, 12)', () => {
    const webhook = { url: 'http://127.0.0.1:9/tether-webhook', token: 'capture-token' };
    for (const prefix of ['v1-jsonrpc', 'v1-rest', 'v03-jsonrpc', 'v03-rest']) {
      const taskId = requestTaskId(fixture(`${prefix}-push-create`));
      const [created] = pushConfigs(`${prefix}-push-create`);
      expect(created).toMatchObject({ taskId, ...webhook });
      const id = created?.id;
      if (prefix.startsWith('v1')) expect(id).toMatch(/^[0-9a-f-]{36}$/);
      else if (prefix === 'v03-jsonrpc') expect(id).toBe(taskId); // defaults to the task id
      else expect(id).toBe('cfg-1'); // from the resource name / configId
      expect(pushConfigs(`${prefix}-push-get`)).toEqual([created]);
      expect(pushConfigs(`${prefix}-push-list`)).toEqual([created]);
      expect(decodeFrame(fixture(`${prefix}-push-delete`)).op).toBe('empty');
      expect(decodeFrame(fixture(`${prefix}-push-delete-again`)).op).toBe('empty');
    }
  });

  it('ListTasks: paging, defaults and includeArtifacts', () => {
    const all = page('v1-jsonrpc-list');
    expect(all.tasks).toHaveLength(19);
    expect(all).toMatchObject({ nextPageToken: '', pageSize: 50, totalSize: 19 });
    expect(all.tasks.every((t) => t.artifacts.length === 0)).toBe(true); // omitted without includeArtifacts

    const first = page('v1-jsonrpc-list-page-size-2');
    expect(first.tasks.map((t) => t.id)).toEqual(all.tasks.slice(0, 2).map((t) => t.id));
    expect(first.tasks.map((t) => t.status.state)).toEqual(['input-required', 'completed']);
    expect(first).toMatchObject({ pageSize: 2, totalSize: 19 });
    expect(first.nextPageToken).not.toBe('');
    expect(page('v1-rest-list-page-size-2')).toEqual(first);

    const next = fixture('v1-rest-list-next-page');
    expect(new URLSearchParams(next.request.path.split('?')[1]).get('pageToken')).toBe(first.nextPageToken);
    expect(page('v1-rest-list-next-page').tasks.map((t) => t.id)).toEqual(all.tasks.slice(2, 4).map((t) => t.id));

    const withArtifacts = page('v1-rest-list-include-artifacts');
    expect(withArtifacts.tasks).toHaveLength(1);
    expect(withArtifacts.tasks[0]?.history).toEqual([]); // historyLength=0
    expect(withArtifacts.tasks[0]?.artifacts).toEqual([]);
    expect(withArtifacts).toMatchObject({ pageSize: 1, totalSize: 19 });
  });
});

describe('official frames: errors', () => {
  it.each(errorFrames.map((f) => [f.name, f] as const))('%s', (name, f) => {
    const expected = EXPECTED_ERRORS[name];
    const parsed = parseAgentError(f.response.body);
    if (expected === undefined) {
      expect(f.response.headers['content-type']).toMatch(/^text\/html/);
      expect(parsed).toBeUndefined();
      return;
    }
    expect(parsed?.a2aCode).toBe(expected);
    const inner = isObject(f.response.body) && isObject(f.response.body['error']) ? f.response.body['error'] : f.response.body;
    expect(parsed?.message).toBe((inner as Json)['message']);
    // v1 errors carry a google.rpc.ErrorInfo, except JSON-RPC "method not found" and parse
    // errors (Surprise 17, 18); v0.3 errors never do.
    const bareV1 = isJsonRpc(f) && (expected === -32601 || expected === -32700);
    if (dialectOf(f) === 'v1' && !bareV1) expect(parsed?.reason).toMatch(/^[A-Z_]+$/);
    else expect(parsed?.reason).toBeUndefined();
  });

  it('v1 REST errors carry the HTTP status in `code`, the reason decides (Surprise 16)', () => {
    const f = fixture('v1-rest-error-task-not-found');
    expect(f.response.status).toBe(404);
    expect(parseAgentError(f.response.body)).toMatchObject({ a2aCode: -32001, reason: 'TASK_NOT_FOUND', message: 'Task not found: no-such-task' });
    expect(parseAgentError(fixture('v1-rest-error-task-not-cancelable').response.body)).toMatchObject({ a2aCode: -32002, reason: 'TASK_NOT_CANCELABLE' });
    expect(parseAgentError(fixture('v03-rest-error-task-not-found').response.body)).toEqual({ a2aCode: -32001, message: 'Task not found: no-such-task' });
  });
});

describe('official frames: agent cards', () => {
  const rpcUrl = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/jsonrpc$/) as unknown as string;
  const restUrl = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/rest$/) as unknown as string;
  const both = (version: string) => [
    { binding: 'JSONRPC', protocolVersion: version, url: rpcUrl },
    { binding: 'HTTP+JSON', protocolVersion: version, url: restUrl },
  ];

  it.each(cardFrames.map((f) => [f.name, f] as const))('%s normalizes', (_name, f) => {
    const card = normalizeCard(payloadOf(f), `http://127.0.0.1${f.request.path}`);
    expect(card.name).toMatch(/^Tether interop agent \(@a2a-js\/sdk (1\.3\.0|0\.3\.14)\)$/);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.skills[0]?.id).toBe('scenarios');
    expect(card.defaultInputModes).toEqual(['text/plain']);
  });

  it('v1 cards: raw JSON.stringify and ProtoJSON read the same (Surprise 2)', () => {
    for (const name of ['v1-wellknown-card', 'v1-wellknown-card-no-version', 'v1-wellknown-card-if-none-match', 'v1-jsonrpc-extended-card', 'v1-rest-extended-card']) {
      const card = normalizeCard(payloadOf(fixture(name)));
      expect(card.cardFormat).toBe('1.0');
      expect(card.interfaces).toEqual(both('1.0')); // `tenant: ""` and no tenant alike: none
      expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: true, extensions: [] });
      expect(card.securitySchemes).toEqual({});
      expect(card.securityRequirements).toEqual([]);
    }
    expect(normalizeCard(payloadOf(fixture('v1-jsonrpc-extended-card'))).skills.map((s) => s.id)).toEqual(['scenarios', 'extended-only']);
    expect(normalizeCard(payloadOf(fixture('v1-rest-extended-card'))).description).toMatch(/\(extended card\)$/);
  });

  it('v0.3 cards: url + additionalInterfaces, supportsAuthenticatedExtendedCard', () => {
    for (const name of ['v03-wellknown-card', 'v03-jsonrpc-extended-card', 'v03-rest-extended-card']) {
      const card = normalizeCard(payloadOf(fixture(name)));
      expect(card.cardFormat).toBe('0.3');
      expect(card.interfaces).toEqual(both('0.3')); // the JSON-RPC entry listed twice is deduplicated
      expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: true, extensions: [] });
    }
    expect(normalizeCard(payloadOf(fixture('v03-rest-extended-card'))).skills.map((s) => s.id)).toEqual(['scenarios', 'extended-only']);
  });

  it('v1 compat cards list 1.0 and 0.3 interfaces, with or without A2A-Version (Surprise 3)', () => {
    const withVersion = normalizeCard(payloadOf(fixture('v1compat-wellknown-card')));
    expect(withVersion.cardFormat).toBe('1.0');
    expect(withVersion.interfaces).toEqual([...both('1.0'), ...both('0.3')]);
    const hybrid = fixture('v1compat-wellknown-card-no-version');
    expect(hybrid.response.headers['vary']).toBe('A2A-Version');
    expect((hybrid.response.body as Json)['protocolVersion']).toBe('0.3');
    // The hybrid card carries `supportedInterfaces` too, so it reads as the v1 card it embeds.
    const card = normalizeCard(hybrid.response.body);
    expect(card.interfaces).toEqual([...both('1.0'), ...both('0.3')]);
  });
});

describe('official frames: Tether writes requests the servers accepted', () => {
  const sends = FIXTURES.filter((f) => {
    const params = isJsonRpc(f) && isObject(f.request.body) ? f.request.body['params'] : f.request.body;
    return (operationOf(f) === 'send' || operationOf(f) === 'stream') && isObject(params) && isObject(params['message']);
  });

  it.each(sends.map((f) => [f.name, f] as const))('%s: encodeSendParams matches the captured body', (_name, f) => {
    const dialect = dialectOf(f);
    const captured = (isJsonRpc(f) ? (f.request.body as Json)['params'] : f.request.body) as Json;
    const configuration = isObject(captured['configuration']) ? captured['configuration'] : undefined;
    const blocking =
      dialect === 'v1' ? configuration?.['returnImmediately'] !== true : (configuration?.['blocking'] ?? true) === true;
    const message = decodeMessage(captured['message'], dialect);
    const encoded = encodeSendParams({ message, blocking }, dialect);

    expect(Object.keys(encoded).sort()).toEqual(['configuration', 'message']);
    expect(encoded['message']).toEqual(captured['message']);
    if (configuration) {
      expect(encoded['configuration']).toEqual(configuration);
      expect(Object.keys(captured).sort()).toEqual(['configuration', 'message']);
    } else {
      // Streams (and the version-error probes) were captured without a configuration; Tether
      // always writes the blocking flag explicitly (wire notes, gotcha 7).
      expect(Object.keys(captured)).toEqual(['message']);
      expect(encoded['configuration']).toEqual(dialect === 'v1' ? { returnImmediately: false } : { blocking: true });
    }
  });

  it('covers every dialect and both send and stream', () => {
    const seen = new Set(sends.map((f) => `${dialectOf(f)} ${operationOf(f)}`));
    expect([...seen].sort()).toEqual(['v03 send', 'v03 stream', 'v03-proto send', 'v03-proto stream', 'v1 send', 'v1 stream']);
    // Follow-ups name their task and context: those fields are covered too.
    expect(sends.filter((f) => f.name.endsWith('send-to-terminal-task')).map(dialectOf).sort()).toEqual(['v03', 'v03-proto', 'v1', 'v1']);
  });

  it('encodePushConfig matches the captured push-config creations', () => {
    const cases: [string, string | undefined][] = [
      ['v1-jsonrpc-push-create', undefined],
      ['v1-rest-push-create', undefined],
      ['v03-jsonrpc-push-create', undefined],
      ['v03-rest-push-create', 'cfg-1'],
    ];
    for (const [name, id] of cases) {
      const f = fixture(name);
      const captured = (isJsonRpc(f) ? (f.request.body as Json)['params'] : f.request.body) as Json;
      const config: PushNotificationConfig = {
        taskId: requestTaskId(f),
        url: 'http://127.0.0.1:9/tether-webhook',
        token: 'capture-token',
        ...(id === undefined ? {} : { id }),
      };
      const encoded = encodePushConfig(config, dialectOf(f));
      // v1 REST carries the task in the path; Tether also names it in the body, which the server accepts.
      expect(encoded).toEqual(name === 'v1-rest-push-create' ? { taskId: config.taskId, ...captured } : captured);
    }
  });
});
