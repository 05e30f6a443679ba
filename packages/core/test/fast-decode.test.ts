import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeStreamEventWithSchemas } from '../src/protocol/decode.js';
import type { Dialect } from '../src/protocol/dialect.js';
import { fastStreamEvent } from '../src/protocol/fast-decode.js';

// The fast path must decide exactly what the schemas decide: on every stream payload the
// official servers sent, and on thousands of mutations of them, it either declines (undefined)
// or builds the same object — same JSON, key order included — as the schemas; and it never
// accepts what the schemas reject.

const DIR = fileURLToPath(new URL('./fixtures/official/', import.meta.url));

interface Sample {
  name: string;
  dialect: Dialect;
  payload: unknown;
}

function dialectOf(name: string, path: string, headers: Record<string, string>): Dialect {
  if (name.startsWith('v1-')) return 'v1';
  if (name.startsWith('v03-jsonrpc-')) return 'v03';
  if (name.startsWith('v03-rest-')) return 'v03-proto';
  if (headers['a2a-version'] === '1.0') return 'v1';
  return path.endsWith('/jsonrpc') ? 'v03' : 'v03-proto';
}

/** Every stream payload in the captured SSE bodies (JSON-RPC envelopes unwrapped). */
function samples(): Sample[] {
  const out: Sample[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.json')).sort()) {
    const name = file.slice(0, -5);
    const fixture = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as {
      request: { path: string; headers: Record<string, string> };
      response: { body: unknown };
    };
    const body = fixture.response.body;
    if (typeof body !== 'string' || !body.includes('data:')) continue;
    const dialect = dialectOf(name, fixture.request.path, fixture.request.headers);
    for (const block of body.split(/\r?\n\r?\n/)) {
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (!data) continue;
      const json = JSON.parse(data) as Record<string, unknown>;
      if (json['error'] !== undefined) continue;
      out.push({ name, dialect, payload: 'result' in json ? json['result'] : json });
    }
  }
  return out;
}

type Outcome = { ok: true; json: string } | { ok: false };

function slow(payload: unknown, dialect: Dialect): Outcome {
  try {
    return { ok: true, json: JSON.stringify(decodeStreamEventWithSchemas(payload, dialect)) };
  } catch {
    return { ok: false };
  }
}

/** Holds the fast path against the schemas on one payload; returns whether the fast path decided. */
function agree(payload: unknown, dialect: Dialect, label: string): boolean {
  const fast = fastStreamEvent(payload, dialect);
  if (fast === undefined) return false;
  const expected = slow(payload, dialect);
  expect(expected.ok, `${label}: the fast path accepted what the schemas reject`).toBe(true);
  if (expected.ok) expect(JSON.stringify(fast), label).toBe(expected.json);
  return true;
}

const VALUES: unknown[] = [undefined, null, '', 'x', 0, 1, -1.5, true, false, [], {}, ['x'], { a: 1 }, 'TASK_STATE_WORKING', 'completed', 'ROLE_AGENT', 'constructor', '__proto__'];

/** Field names the schemas read somewhere, plus one nobody reads. */
const FIELDS = [
  'kind', 'taskId', 'contextId', 'status', 'state', 'message', 'update', 'timestamp', 'final', 'metadata',
  'artifact', 'artifactId', 'name', 'description', 'parts', 'extensions', 'append', 'lastChunk',
  'messageId', 'role', 'content', 'referenceTaskIds', 'text', 'raw', 'url', 'data', 'file', 'filename',
  'mediaType', 'task', 'msg', 'statusUpdate', 'artifactUpdate', 'id', 'artifacts', 'history', 'zz',
];

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(value: unknown, path: (string | number)[]): unknown {
  let node = value;
  for (const key of path) node = (node as Record<string | number, unknown>)[key];
  return node;
}

/** Every object/array path of a value. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const out: (string | number)[][] = [];
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(key) : key];
    out.push(path, ...paths(child, path));
  }
  return out;
}

function mutate(value: unknown, path: (string | number)[], replacement: unknown, remove: boolean): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (remove) delete node[last];
  else node[last] = replacement;
  return copy;
}

describe('fast stream-event decoding', () => {
  const all = samples();

  it('covers the common official events, and agrees with the schemas on every captured payload', () => {
    expect(all.length).toBeGreaterThan(50);
    let decidedUpdates = 0;
    let decidedTasks = 0;
    for (const s of all) {
      if (!agree(s.payload, s.dialect, s.name)) continue;
      if (fastStreamEvent(s.payload, s.dialect)?.kind === 'task') decidedTasks++;
      else decidedUpdates++;
    }
    // Status and artifact updates of both JSON-RPC dialects take the fast path; v0.3 proto does not.
    const updates = all.filter((s) => s.dialect !== 'v03-proto' && JSON.stringify(s.payload).match(/"(statusUpdate|artifactUpdate|status-update|artifact-update)"/));
    expect(updates.length).toBeGreaterThan(20);
    expect(decidedUpdates).toBe(updates.filter((s) => !JSON.stringify(s.payload).includes('"metadata":{')).length);
    // So do the Task snapshots streams open with (those without metadata or non-text parts).
    expect(decidedTasks).toBeGreaterThan(5);
  });

  it('agrees with the schemas on every mutation of every field of the captured updates', () => {
    let cases = 0;
    let decided = 0;
    for (const s of all) {
      if (fastStreamEvent(s.payload, s.dialect) === undefined) continue;
      for (const path of paths(s.payload)) {
        const label = `${s.name} ${path.join('.')}`;
        if (agree(mutate(s.payload, path, undefined, true), s.dialect, `${label} removed`)) decided++;
        cases++;
        for (const value of VALUES) {
          if (agree(mutate(s.payload, path, value, false), s.dialect, `${label} = ${JSON.stringify(value)}`)) decided++;
          cases++;
        }
      }
      // Fields the capture did not carry, added to every object (unknown ones are ignored by both).
      for (const path of [[], ...paths(s.payload)]) {
        if (!isPlainObject(at(s.payload, path))) continue;
        for (const field of FIELDS) {
          for (const value of VALUES) {
            const label = `${s.name} ${[...path, field].join('.')} = ${JSON.stringify(value)}`;
            if (agree(mutate(s.payload, [...path, field], value, false), s.dialect, label)) decided++;
            cases++;
          }
        }
      }
    }
    expect(cases).toBeGreaterThan(50_000);
    expect(decided).toBeGreaterThan(cases / 10);
  }, 180_000);
});
