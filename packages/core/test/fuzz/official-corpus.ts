import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '../../src/protocol/dialect.js';

// The seeds of the fuzz tests: the frames captured from the official @a2a-js/sdk servers
// (fixtures/official, see its INDEX.md), cut into the payloads each decoder reads.

type Json = Record<string, unknown>;

/** Which decoder a payload is for. */
export type PayloadKind = 'event' | 'send' | 'task' | 'page' | 'pushConfig' | 'pushList' | 'card';

/** One wire payload of a captured frame: a JSON-RPC `result`, a REST body, or one SSE event's. */
export interface Seed {
  /** `file#index` (index of the SSE event, 0 for a unary answer). */
  readonly name: string;
  readonly kind: PayloadKind;
  readonly dialect: Dialect;
  /** `JSONRPC` or `HTTP+JSON`: what carried it. */
  readonly binding: 'JSONRPC' | 'HTTP+JSON';
  readonly payload: unknown;
  /** The task a push-config request named (listings may not say it). */
  readonly taskId: string;
}

interface Fixture {
  request: { method: string; path: string; headers: Record<string, string>; body?: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown };
}

const DIR = fileURLToPath(new URL('../fixtures/official/', import.meta.url));

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** As `official-frames.test.ts` tells them apart: by the file name, and the version a v1compat request asked for. */
function dialectOf(name: string, fixture: Fixture, jsonRpc: boolean): Dialect {
  if (name.startsWith('v1-')) return 'v1';
  if (name.startsWith('v03-rest-')) return 'v03-proto';
  if (name.startsWith('v03-')) return 'v03';
  if (fixture.request.headers['a2a-version'] === '1.0') return 'v1';
  return jsonRpc ? 'v03' : 'v03-proto';
}

/** The decoder of a unary answer, from what the request did (the file name says it). */
function unaryKind(operation: string): PayloadKind | undefined {
  if (/^(wellknown|extended)-card/.test(operation)) return 'card';
  if (operation.startsWith('send-')) return 'send';
  if (operation.startsWith('get') || operation === 'cancel') return 'task';
  if (operation.startsWith('list')) return 'page';
  if (operation === 'push-create' || operation === 'push-create-client-shape' || operation === 'push-get') return 'pushConfig';
  if (operation === 'push-list') return 'pushList';
  return undefined;
}

function load(): Seed[] {
  const seeds: Seed[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.json')).sort()) {
    const name = file.slice(0, -'.json'.length);
    const fixture = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Fixture;
    const { status, headers, body } = fixture.response;
    if (status < 200 || status >= 300 || name.includes('-error-')) continue;
    const jsonRpc = fixture.request.path.endsWith('/jsonrpc');
    const dialect = name.includes('wellknown') ? 'v1' : dialectOf(name, fixture, jsonRpc);
    const binding = jsonRpc ? 'JSONRPC' : 'HTTP+JSON';
    const taskId = decodeURIComponent(/\/tasks\/([^/:?]+)/.exec(fixture.request.path)?.[1] ?? '');
    const result = (value: unknown): unknown => (jsonRpc && isObject(value) ? value['result'] : value);
    if (/^text\/event-stream/.test(headers['content-type'] ?? '')) {
      String(body)
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .forEach((line, i) => {
          const payload = result(JSON.parse(line.slice('data:'.length)) as unknown);
          seeds.push({ name: `${name}#${i}`, kind: 'event', dialect, binding, payload, taskId });
        });
      continue;
    }
    const operation = name.replace(/^(v1compat|v1|v03)-(jsonrpc-|rest-)?/, '');
    const kind = unaryKind(operation);
    const payload = result(body);
    if (kind === undefined || payload === null || payload === '' || (isObject(body) && body['error'] !== undefined)) continue;
    seeds.push({ name: `${name}#0`, kind, dialect, binding, payload, taskId });
  }
  return seeds;
}

/** Every decodable payload of the captured official frames (cards included), in file order. */
export const SEEDS: readonly Seed[] = load();
