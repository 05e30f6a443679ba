import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { cardFromWire, normalizeCard } from '../card/normalize-card.js';
import { wireCard as zodCard } from '../card/card-schema.zod.js';
import { TetherError } from '../errors/tether-error.js';
import { isObject } from '../util/is-object.js';
import {
  artifactUpdateFromWire,
  decodeMessage,
  decodePushConfig,
  decodeStreamEvent,
  decodeStreamEventWithSchemas,
  decodeTask,
  decodeTaskPage,
  decodeTaskWithSchemas,
  messageFromWire,
  pushConfigFromFlat,
  pushConfigFromNested,
  statusUpdateFromWire,
  taskFromWire,
  taskPageFromWire,
} from './decode.js';
import { DecodeError } from './decode-error.js';
import type { Dialect } from './dialect.js';
import * as zod from './wire-schemas.zod.js';

// The differential test of D15: the decoders check wire data with the hand-written shapes of
// `wire-shapes.ts` / `card-shape.ts`; the zod/mini schemas they replaced are the oracle. A seeded,
// bounded generator makes valid objects of every kind in every dialect (and cards of both versions),
// then mutates them (missing fields, wrong types, nulls, unknown fields, `__proto__` keys, long
// arrays). Each object goes through the decoder as it is now and through the decoder as it was
// (the zod schema, then the same conversion): both accept with equal results, or both reject with
// the same error — same class, same message (path and expected type).

// ---- a seeded random source (mulberry32) -------------------------------------------------------

interface Rand {
  int(below: number): number;
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

function rand(seed: number): Rand {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (below) => Math.floor(next() * below),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
  };
}

// ---- valid objects, per dialect ----------------------------------------------------------------

type Json = Record<string, unknown>;
const DIALECTS: Dialect[] = ['v1', 'v03', 'v03-proto'];

function maybe(r: Rand, out: Json, key: string, make: () => unknown, p = 0.5): void {
  if (r.chance(p)) out[key] = make();
}

function jsonValue(r: Rand, depth = 0): unknown {
  const kinds = depth > 2 ? 4 : 6;
  switch (r.int(kinds)) {
    case 0:
      return `s${r.int(100)}`;
    case 1:
      return r.int(1000) - 500;
    case 2:
      return r.chance(0.5);
    case 3:
      return null;
    case 4:
      return Array.from({ length: r.int(3) }, () => jsonValue(r, depth + 1));
    default: {
      const out: Json = {};
      for (let i = r.int(3); i > 0; i--) out[`k${r.int(10)}`] = jsonValue(r, depth + 1);
      return out;
    }
  }
}

const metadata = (r: Rand): Json => (r.chance(0.2) ? {} : { m: jsonValue(r, 1), n: r.int(9) });

function part(r: Rand, d: Dialect): Json {
  const out: Json = (() => {
    switch (r.int(d === 'v1' ? 5 : 3)) {
      case 0:
        return d === 'v03' ? { kind: 'text', text: `t${r.int(99)}` } : { text: `t${r.int(99)}` };
      case 1: {
        if (d === 'v1') return { url: `https://x/${r.int(99)}.png`, mediaType: 'image/png', filename: `${r.int(99)}.png` };
        const file: Json = d === 'v03' ? (r.chance(0.5) ? { uri: 'https://x/f' } : { bytes: 'AAE=' }) : r.chance(0.5) ? { fileWithUri: 'https://x/f' } : { fileWithBytes: 'AAE=' };
        maybe(r, file, 'mimeType', () => 'text/plain');
        maybe(r, file, 'name', () => 'f.txt');
        return d === 'v03' ? { kind: 'file', file } : { file };
      }
      case 2: {
        const data = jsonValue(r, 1);
        return d === 'v03' ? { kind: 'data', data } : d === 'v03-proto' ? { data: { data } } : { data };
      }
      case 3:
        return { raw: 'AAEC', mediaType: 'application/octet-stream' };
      default:
        return { text: '', filename: '', mediaType: '' };
    }
  })();
  maybe(r, out, 'metadata', () => metadata(r), 0.2);
  return out;
}

const parts = (r: Rand, d: Dialect, most = 4): Json[] => Array.from({ length: r.int(most + 1) }, () => part(r, d));

function message(r: Rand, d: Dialect): Json {
  const role = d === 'v03' ? r.pick(['agent', 'user']) : r.pick(['ROLE_AGENT', 'ROLE_USER', 1, 2]);
  const out: Json = { messageId: `m${r.int(999)}`, role };
  if (d === 'v03') out['kind'] = 'message';
  out[d === 'v03-proto' ? 'content' : 'parts'] = parts(r, d);
  maybe(r, out, 'contextId', () => r.pick(['c1', '']));
  maybe(r, out, 'taskId', () => 't1');
  maybe(r, out, 'metadata', () => metadata(r), 0.2);
  maybe(r, out, 'extensions', () => r.pick([[], ['https://ext/a']]), 0.2);
  maybe(r, out, 'referenceTaskIds', () => ['t0'], 0.2);
  return out;
}

const STATES: Record<Dialect, readonly (string | number)[]> = {
  v1: ['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_UNSPECIFIED', 'TASK_STATE_NEW_ONE', 3, 7],
  v03: ['working', 'completed', 'input-required', 'canceled', 'unknown', 'brand-new'],
  'v03-proto': ['TASK_STATE_WORKING', 'TASK_STATE_CANCELLED', 'TASK_STATE_SUBMITTED', 2, 6],
};

function status(r: Rand, d: Dialect): Json {
  const out: Json = { state: r.pick(STATES[d]) };
  maybe(r, out, d === 'v03-proto' ? 'update' : 'message', () => message(r, d), 0.4);
  maybe(r, out, 'timestamp', () => '2026-01-01T00:00:00Z');
  return out;
}

function artifact(r: Rand, d: Dialect): Json {
  const out: Json = { artifactId: `a${r.int(9)}`, parts: parts(r, d) };
  maybe(r, out, 'name', () => r.pick(['result', '']));
  maybe(r, out, 'description', () => 'd', 0.3);
  maybe(r, out, 'metadata', () => metadata(r), 0.2);
  maybe(r, out, 'extensions', () => ['https://ext/b'], 0.2);
  return out;
}

function task(r: Rand, d: Dialect): Json {
  const out: Json = { id: `t${r.int(99)}`, status: status(r, d) };
  if (d === 'v03') out['kind'] = 'task';
  maybe(r, out, 'contextId', () => 'c1', 0.8);
  maybe(r, out, 'artifacts', () => Array.from({ length: r.int(3) }, () => artifact(r, d)));
  maybe(r, out, 'history', () => Array.from({ length: r.int(3) }, () => message(r, d)));
  maybe(r, out, 'metadata', () => metadata(r), 0.2);
  return out;
}

function statusUpdate(r: Rand, d: Dialect): Json {
  const out: Json = { taskId: 't1', status: status(r, d) };
  if (d === 'v03') out['kind'] = 'status-update';
  maybe(r, out, 'contextId', () => 'c1', 0.8);
  maybe(r, out, 'final', () => r.chance(0.5), d === 'v03' ? 0.9 : 0.2);
  maybe(r, out, 'metadata', () => metadata(r), 0.2);
  return out;
}

function artifactUpdate(r: Rand, d: Dialect): Json {
  const out: Json = { taskId: 't1', artifact: artifact(r, d) };
  if (d === 'v03') out['kind'] = 'artifact-update';
  maybe(r, out, 'contextId', () => 'c1', 0.8);
  maybe(r, out, 'append', () => r.chance(0.5));
  maybe(r, out, 'lastChunk', () => r.chance(0.5));
  maybe(r, out, 'metadata', () => metadata(r), 0.2);
  return out;
}

function pushFlat(r: Rand): Json {
  const out: Json = { url: `https://hook/${r.int(9)}` };
  maybe(r, out, 'id', () => r.pick(['p1', '']));
  maybe(r, out, 'taskId', () => 't1');
  maybe(r, out, 'token', () => 'tok');
  maybe(r, out, 'authentication', () => {
    const auth: Json = {};
    maybe(r, auth, 'scheme', () => 'Bearer');
    maybe(r, auth, 'schemes', () => r.pick([[], ['Basic', 'Bearer']]));
    maybe(r, auth, 'credentials', () => 'secret');
    return auth;
  });
  return out;
}

function pushNested(r: Rand): Json {
  const inner = pushFlat(r);
  const out: Json = { pushNotificationConfig: inner };
  if (r.chance(0.5)) out['taskId'] = 't2';
  // (A name of another form is refused: it would drop the task and the id it names.)
  else out['name'] = r.pick(['tasks/t3/pushNotificationConfigs/p3', 'tasks/t4']);
  // Valid means consistent: the inner task and id, when given, are the ones the outer names.
  const outerTask = out['taskId'] ?? /^tasks\/(t\d)/.exec(String(out['name']))?.[1];
  if (inner['taskId'] !== undefined && outerTask !== undefined) inner['taskId'] = outerTask;
  if (inner['id'] && String(out['name']).endsWith('/p3')) inner['id'] = 'p3';
  return out;
}

function taskPage(r: Rand): Json {
  const out: Json = { tasks: Array.from({ length: r.int(3) }, () => task(r, 'v1')) };
  maybe(r, out, 'nextPageToken', () => r.pick(['', 'next']));
  maybe(r, out, 'pageSize', () => r.int(50));
  maybe(r, out, 'totalSize', () => r.int(500));
  return out;
}

const SCHEME_V1 = [
  { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
  { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
  { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://a/t', scopes: { r: 'read' } } } } },
];
const SCHEME_V03 = [{ type: 'http', scheme: 'bearer' }, { type: 'apiKey', in: 'query', name: 'k' }, { type: 'openIdConnect', openIdConnectUrl: 'https://a/o' }];

function card(r: Rand, v1: boolean): Json {
  const out: Json = { name: `agent${r.int(9)}` };
  maybe(r, out, 'description', () => 'an agent', 0.8);
  maybe(r, out, 'version', () => '1.2.3', 0.8);
  if (v1) {
    out['supportedInterfaces'] = Array.from({ length: 1 + r.int(2) }, () => {
      const iface: Json = { url: r.pick(['https://a/rpc', '/rest', 'grpc.host:443']), protocolBinding: r.pick(['JSONRPC', 'HTTP+JSON', 'GRPC']) };
      maybe(r, iface, 'protocolVersion', () => r.pick(['1.0', '0.3']));
      maybe(r, iface, 'tenant', () => 'acme', 0.2);
      return iface;
    });
    maybe(r, out, 'securitySchemes', () => ({ s: r.pick(SCHEME_V1) }));
    maybe(r, out, 'securityRequirements', () => [{ schemes: { s: { list: ['r'] } } }]);
  } else {
    out['url'] = 'https://a/rpc';
    out['protocolVersion'] = r.pick(['0.3.0', '0.2.5']);
    maybe(r, out, 'preferredTransport', () => r.pick(['JSONRPC', 'HTTP+JSON']));
    maybe(r, out, 'additionalInterfaces', () => [{ url: 'https://a/rest', transport: 'HTTP+JSON' }]);
    maybe(r, out, 'securitySchemes', () => ({ s: r.pick(SCHEME_V03) }));
    maybe(r, out, 'security', () => [{ s: ['read'] }]);
    maybe(r, out, 'supportsAuthenticatedExtendedCard', () => r.chance(0.5));
  }
  maybe(r, out, 'provider', () => ({ organization: 'org', url: 'https://org' }), 0.3);
  maybe(r, out, 'documentationUrl', () => 'https://docs', 0.3);
  maybe(r, out, 'iconUrl', () => '', 0.2);
  maybe(r, out, 'capabilities', () => {
    const caps: Json = {};
    maybe(r, caps, 'streaming', () => r.chance(0.5));
    maybe(r, caps, 'pushNotifications', () => r.chance(0.5));
    maybe(r, caps, 'extendedAgentCard', () => r.chance(0.5), 0.3);
    maybe(r, caps, 'extensions', () => [{ uri: 'https://ext/x', required: r.chance(0.5), params: { level: r.int(3) } }], 0.3);
    return caps;
  }, 0.8);
  maybe(r, out, 'defaultInputModes', () => ['text/plain']);
  maybe(r, out, 'defaultOutputModes', () => ['text/plain', 'application/json']);
  maybe(r, out, 'skills', () =>
    Array.from({ length: r.int(3) }, (_, i) => {
      const skill: Json = { id: `s${i}`, name: 'skill' };
      maybe(r, skill, 'description', () => 'does things');
      maybe(r, skill, 'tags', () => ['a']);
      maybe(r, skill, 'examples', () => ['e'], 0.3);
      maybe(r, skill, 'inputModes', () => ['text/plain'], 0.3);
      maybe(r, skill, v1 ? 'securityRequirements' : 'security', () => [{ s: [] }], 0.2);
      return skill;
    }),
  );
  maybe(r, out, 'signatures', () => [{ protected: 'eyJ', signature: 'sig', header: { kid: 'k1' } }], 0.2);
  // Valid means consistent: the v1 and v0.3 names of the extended card flag agree when both are set.
  const caps = out['capabilities'] as Json | undefined;
  if (caps?.['extendedAgentCard'] !== undefined && out['supportsAuthenticatedExtendedCard'] !== undefined) {
    caps['extendedAgentCard'] = out['supportsAuthenticatedExtendedCard'];
  }
  return out;
}

// ---- mutations ---------------------------------------------------------------------------------

/** Values that are wrong somewhere: every JSON type, empty ones, and a few non-JSON ones. */
const ODD: readonly (() => unknown)[] = [
  () => undefined,
  () => null,
  () => '',
  () => 'x',
  () => 'TASK_STATE_WORKING',
  () => 0,
  () => 2,
  () => -1.5,
  () => true,
  () => [],
  () => ['x'],
  () => [1],
  () => ({}),
  () => ({ a: 1 }),
  () => NaN,
  () => Infinity,
  () => new Date(0),
  () => Object.create(null) as unknown,
];

/** Field names some shape reads, so mutations also add fields that are absent. */
const FIELDS = [
  'kind', 'id', 'taskId', 'contextId', 'messageId', 'role', 'parts', 'content', 'text', 'raw', 'url', 'data', 'file',
  'uri', 'bytes', 'fileWithUri', 'mimeType', 'name', 'metadata', 'status', 'state', 'message', 'update', 'timestamp',
  'artifact', 'artifactId', 'artifacts', 'history', 'final', 'append', 'lastChunk', 'extensions', 'pushNotificationConfig',
  'authentication', 'schemes', 'tasks', 'pageSize', 'supportedInterfaces', 'capabilities', 'securitySchemes', 'skills',
  'signatures', 'header', 'params', 'streaming', 'security', 'tags', 'protocolBinding', 'provider', 'future',
];

function clone(value: unknown): unknown {
  return value === undefined ? undefined : (JSON.parse(JSON.stringify(value)) as unknown);
}

/** A container (object or array) somewhere in `root`, found by a random walk down. */
function somewhere(r: Rand, root: object): object {
  let node: object = root;
  for (let depth = 0; depth < 8 && r.chance(0.75); depth++) {
    const children = Object.values(node).filter((v): v is object => typeof v === 'object' && v !== null);
    if (children.length === 0) break;
    node = r.pick(children);
  }
  return node;
}

function mutateOnce(r: Rand, root: unknown): unknown {
  if (typeof root !== 'object' || root === null || r.chance(0.02)) return r.pick(ODD)();
  const node = somewhere(r, root) as Record<string, unknown>;
  const keys = Object.keys(node);
  const key = keys.length > 0 && r.chance(0.7) ? r.pick(keys) : Array.isArray(node) ? String(node.length) : r.pick(FIELDS);
  switch (r.int(6)) {
    case 0:
      if (Array.isArray(node)) node.splice(Number(key), 1);
      else delete node[key];
      break;
    case 1:
      node[key] = null;
      break;
    case 2: {
      // A long array, within bounds: the element copied up to 300 times (an odd one last, sometimes).
      const list = Array.isArray(node) ? node : Array.isArray(node[key]) ? (node[key] as unknown[]) : undefined;
      if (list && list.length > 0) {
        const item = list[0];
        for (let i = list.length; i < 300; i++) list.push(clone(item));
        if (r.chance(0.3)) list.push(r.pick(ODD)());
      } else node[key] = Array.from({ length: 300 }, () => 'x');
      break;
    }
    case 3:
      // An own `__proto__` key, as JSON.parse makes it (on objects: JSON arrays have only their items).
      if (Array.isArray(node)) break;
      Object.defineProperty(node, '__proto__', { value: r.chance(0.5) ? { polluted: true } : 'x', enumerable: true, writable: true, configurable: true });
      break;
    case 4:
      if (Array.isArray(node)) node.push(jsonValue(r));
      else node[`future${r.int(3)}`] = jsonValue(r);
      break;
    default:
      node[key] = r.pick(ODD)();
  }
  return root;
}

function mutate(r: Rand, value: unknown): unknown {
  let out = clone(value);
  for (let i = 1 + r.int(3); i > 0; i--) out = mutateOnce(r, out);
  return out;
}

// ---- the decoder as it was: the zod schema, then the same conversion -----------------------------

/** `decode.ts`'s `check` before D15, word for word. */
function zodCheck<S extends z.ZodMiniType>(schema: S, value: unknown, path: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data as z.infer<S>;
  const issue = result.error.issues[0];
  const where = [path, ...(issue?.path ?? []).map(String)].filter(Boolean).join('.');
  const expected = issue && 'expected' in issue ? `expected ${String(issue.expected)}` : (issue?.message ?? 'invalid');
  throw new DecodeError(expected, where);
}

type Outcome = { ok: true; value: unknown; json: string | undefined } | { ok: false; error: string; code?: unknown; message: string };

function outcome(run: () => unknown): Outcome {
  try {
    const value = run();
    return { ok: true, value, json: JSON.stringify(value) };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const code = error instanceof TetherError ? { code: error.code } : {};
    return { ok: false, error: error.constructor.name, ...code, message: error.message };
  }
}

const BASE = 'https://agent.example/.well-known/agent-card.json';

/**
 * The card decoder before D15, with D15's wording of the problem (`expected <type>`, where zod said
 * `Invalid input`). The conversion reads the card as received, not zod's copy: since issue 10 it
 * keeps every security scheme name, `__proto__` included, which zod's copy of a record drops.
 */
function oldCard(raw: unknown): unknown {
  const parsed = zodCard.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.map(String).join('.') || 'card';
    const problem = issue && 'expected' in issue ? `expected ${String(issue.expected)}` : 'Invalid input';
    throw new TetherError('CARD_INVALID', `the agent card is invalid at ${where}: ${problem}`, { operation: 'GetAgentCard', url: BASE });
  }
  return cardFromWire(raw as typeof parsed.data, raw, BASE);
}

function oldPushConfig(value: unknown): unknown {
  if (isObject(value) && isObject(value['pushNotificationConfig'])) {
    return pushConfigFromNested(zodCheck(zod.wirePushConfigNested, value, 'pushConfig'), 'fallback');
  }
  const wire = zodCheck(zod.wirePushConfigFlat, value, 'pushConfig');
  return pushConfigFromFlat(wire, (wire.taskId || undefined) ?? 'fallback');
}

interface Kind {
  name: string;
  make: (r: Rand, d: Dialect) => Json;
  /** The decoder as it was. */
  old: (value: unknown, d: Dialect) => unknown;
  /** Today's decoders that must agree with it (the public one, and the one without the fast path). */
  now: ((value: unknown, d: Dialect) => unknown)[];
  dialects: Dialect[];
}

/** Stream wrappers are only told apart when the wrapped value is present; a missing one is another decoder's case. */
const wrap = (key: string, value: unknown): unknown => (value === undefined || value === null ? { [key]: 'absent' } : { [key]: value });

const KINDS: Kind[] = [
  {
    name: 'task',
    make: task,
    old: (v, d) => taskFromWire(zodCheck(zod.wireTask, v, 'task'), d, 'task'),
    now: [(v, d) => decodeTask(v, d), (v, d) => decodeTaskWithSchemas(v, d)],
    dialects: DIALECTS,
  },
  {
    name: 'message',
    make: message,
    old: (v, d) => messageFromWire(zodCheck(zod.wireMessage, v, 'message'), d, 'message'),
    now: [(v, d) => decodeMessage(v, d)],
    dialects: DIALECTS,
  },
  {
    name: 'statusUpdate',
    make: statusUpdate,
    old: (v, d) => statusUpdateFromWire(zodCheck(zod.wireStatusUpdate, v, 'statusUpdate'), d, 'statusUpdate'),
    now: [(v, d) => decodeStreamEvent(wrap('statusUpdate', v), d), (v, d) => decodeStreamEventWithSchemas(wrap('statusUpdate', v), d)],
    dialects: DIALECTS,
  },
  {
    name: 'artifactUpdate',
    make: artifactUpdate,
    old: (v, d) => artifactUpdateFromWire(zodCheck(zod.wireArtifactUpdate, v, 'artifactUpdate'), d, 'artifactUpdate'),
    now: [(v, d) => decodeStreamEvent(wrap('artifactUpdate', v), d), (v, d) => decodeStreamEventWithSchemas(wrap('artifactUpdate', v), d)],
    dialects: DIALECTS,
  },
  {
    name: 'pushConfig',
    make: (r) => (r.chance(0.5) ? pushFlat(r) : pushNested(r)),
    old: (v) => oldPushConfig(v),
    now: [(v) => decodePushConfig(v, 'fallback')],
    dialects: ['v1'],
  },
  {
    name: 'taskPage',
    make: taskPage,
    old: (v) => taskPageFromWire(zodCheck(zod.wireTaskPage, v, 'listTasks')),
    now: [(v) => decodeTaskPage(v)],
    dialects: ['v1'],
  },
  {
    name: 'card',
    make: (r) => card(r, r.chance(0.5)),
    old: (v) => oldCard(v),
    now: [(v) => normalizeCard(v, BASE)],
    dialects: ['v1'],
  },
];

const CASES = 600;

describe('the hand-written shapes decide what the zod/mini schemas decided (oracle)', () => {
  for (const kind of KINDS) {
    it(`${kind.name}: ${CASES} valid and mutated objects per dialect give the same result or the same error`, () => {
      const r = rand(0x7e7e + kind.name.length * 7919);
      const counts = { accepted: 0, rejected: 0, mutatedAccepted: 0 };
      for (const dialect of kind.dialects) {
        for (let i = 0; i < CASES; i++) {
          const valid = kind.make(r, dialect);
          const mutated = i % 3 !== 0;
          const value = mutated ? mutate(r, valid) : valid;
          const before = outcome(() => kind.old(value, dialect));
          if (!mutated) expect(before, `valid ${kind.name} #${i} (${dialect}) is accepted`).toMatchObject({ ok: true });
          for (const decode of kind.now) {
            const after = outcome(() => decode(value, dialect));
            if (before.ok !== after.ok || (!before.ok && !after.ok)) {
              expect(after, `${kind.name} #${i} (${dialect}): ${String(JSON.stringify(value)).slice(0, 300)}`).toEqual(before);
            } else if (before.ok && after.ok) {
              expect(after.value, `${kind.name} #${i} (${dialect})`).toEqual(before.value);
              expect(after.json, `${kind.name} #${i} (${dialect}): key order`).toBe(before.json);
            }
          }
          if (before.ok) counts.accepted++;
          else counts.rejected++;
          if (before.ok && mutated) counts.mutatedAccepted++;
        }
      }
      // The generator must exercise both verdicts, including mutations that are still valid.
      const total = CASES * kind.dialects.length;
      expect(counts.accepted).toBeGreaterThan(total * 0.4);
      expect(counts.rejected).toBeGreaterThan(total * 0.1);
      expect(counts.mutatedAccepted).toBeGreaterThan(total * 0.05);
    });
  }

  it('keeps a `__proto__` key out of free-form records, as the schemas did, and never makes it a prototype', () => {
    const raw = JSON.parse(
      '{"statusUpdate":{"taskId":"t","metadata":{"__proto__":{"polluted":true},"k":1},"status":{"state":"TASK_STATE_WORKING"}}}',
    ) as Json;
    const event = decodeStreamEvent(raw, 'v1');
    expect(event.metadata).toEqual({ k: 1 });
    expect(Object.keys(event.metadata ?? {})).toEqual(['k']);
    expect(Object.getPrototypeOf(event.metadata)).toBe(Object.prototype);
    expect((event.metadata as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('keeps a security scheme named `__proto__` as data (issue 10), in objects without a prototype', () => {
    const card = normalizeCard(
      JSON.parse('{"name":"a","url":"https://a/","security":[{"__proto__":["x"],"s":["r"]}],"securitySchemes":{"__proto__":{"type":"http","scheme":"basic"}}}'),
      BASE,
    );
    const [requirement] = card.securityRequirements;
    expect(Object.keys(requirement ?? {})).toEqual(['__proto__', 's']);
    expect(requirement?.['__proto__']).toEqual(['x']);
    expect(Object.getPrototypeOf(requirement)).toBeNull();
    expect(Object.getPrototypeOf(card.securitySchemes)).toBeNull();
    expect(Object.keys(card.securitySchemes)).toEqual(['__proto__']);
    expect(card.securitySchemes['__proto__']).toEqual({ type: 'http', scheme: 'basic' });
    expect(({} as { type?: unknown }).type).toBeUndefined();
  });

  it('names the first problem depth first, fields in the order the shape lists them', () => {
    // messageId (listed before role) is reported, not role; within parts, the first bad index.
    expect(() => decodeMessage({ messageId: 1, role: true }, 'v1')).toThrow(/^message\.messageId: expected string$/);
    expect(() => decodeMessage({ messageId: 'm', role: true }, 'v1')).toThrow(/^message\.role: Invalid input$/);
    expect(() => decodeMessage({ messageId: 'm', role: 1, parts: [{ text: 'a' }, { text: 2 }, { text: 3 }] }, 'v1')).toThrow(
      /^message\.parts\.1\.text: expected string$/,
    );
    expect(() => decodeTaskPage({ tasks: [], pageSize: Number.NaN })).toThrow(/^listTasks\.pageSize: expected number$/);
    expect(() => decodeTask({ id: 't', status: { state: 1 }, metadata: new Date(0) }, 'v1')).toThrow(/^task\.metadata: expected record$/);
    expect(() => normalizeCard({ name: 'a', skills: [{ id: 's', name: 'n', tags: ['x', 5] }] }, BASE)).toThrow(
      /the agent card is invalid at skills\.0\.tags\.1: expected string/,
    );
  });
});
