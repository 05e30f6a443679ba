import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient } from '../../src/index.js';
import { DecodeError } from '../../src/protocol-entry.js';
import type { FetchLike } from '../../src/http/fetch-like.js';
import { fuzzRuns, fuzzSeed } from './fuzz-config.js';
import { SEEDS, type Seed } from './official-corpus.js';
import { applyOps, copy, opsArb, prototypeChanges, prototypeSnapshot, weight } from './wire-mutations.js';

// The same mutations of the captured official answers, through the public API: connect() to an
// agent whose (in-memory) fetch answers with them — JSON-RPC envelopes included, and SSE streams of
// mutated events — on each of the four wire formats. Whatever the agent answers, the call returns
// or fails with a TetherError (an A2A error included: they are TetherErrors too), in bounded time.

const ORIGIN = 'http://fuzz.agent';
const MAX_MS = 1_000;
/**
 * Answers larger than this (in weight units, about characters of JSON) are not sent: a long string
 * put into an item `many` shared 3,000 times would be gigabytes of text (the decoder fuzz takes those).
 */
const MAX_ANSWER = 4_000_000;

interface Target {
  readonly name: string;
  readonly binding: 'JSONRPC' | 'HTTP+JSON';
  readonly version: '1.0' | '0.3';
  readonly seeds: readonly Seed[];
}

const TARGETS: Target[] = (
  [
  { name: 'v1.0 JSON-RPC', binding: 'JSONRPC', version: '1.0', seeds: SEEDS.filter((s) => s.dialect === 'v1' && s.binding === 'JSONRPC') },
  { name: 'v1.0 HTTP+JSON', binding: 'HTTP+JSON', version: '1.0', seeds: SEEDS.filter((s) => s.dialect === 'v1' && s.binding === 'HTTP+JSON') },
  { name: 'v0.3 JSON-RPC', binding: 'JSONRPC', version: '0.3', seeds: SEEDS.filter((s) => s.dialect === 'v03') },
  { name: 'v0.3 HTTP+JSON', binding: 'HTTP+JSON', version: '0.3', seeds: SEEDS.filter((s) => s.dialect === 'v03-proto') },
  ] satisfies Target[]
).map((t): Target => ({ ...t, seeds: t.seeds.filter((s) => s.kind === 'task' || s.kind === 'send' || s.kind === 'event') }));

/** What the fake agent answers next: a body (or SSE events) and a status. */
interface Answer {
  status: number;
  body: unknown;
  /** SSE: one JSON value per event. */
  events?: unknown[] | undefined;
  /** Mutate the JSON-RPC envelope too (id, `jsonrpc`, `result` vs `error`). */
  envelopeOps?: Parameters<typeof applyOps>[1] | undefined;
}

const encoder = new TextEncoder();
const RESULT = '\u0000the result\u0000';

/** JSON text, or undefined when the value is too deep for JSON.stringify (the decoder fuzz covers those). */
function text(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function fakeAgent(binding: Target['binding'], answer: () => Answer): FetchLike {
  return (_input, init) => {
    const { status, body, events, envelopeOps } = answer();
    const request = init?.body ? (JSON.parse(String(init.body)) as { id?: unknown }) : {};
    const wrap = (result: unknown): unknown => {
      if (binding !== 'JSONRPC') return result;
      if (!envelopeOps) return { jsonrpc: '2.0', id: request.id, result };
      // The envelope's own fields only (the result has its own mutations): `result` stands in as a marker.
      const mutated = applyOps({ jsonrpc: '2.0', id: request.id, result: RESULT }, envelopeOps);
      if (typeof mutated !== 'object' || mutated === null || Array.isArray(mutated)) return mutated;
      const envelope = mutated as Record<string, unknown>;
      return envelope['result'] === RESULT ? { ...envelope, result } : envelope;
    };
    if (events) {
      const frames = events.map((event) => `data: ${text(wrap(event)) ?? '{}'}\n\n`).join('');
      return Promise.resolve(new Response(encoder.encode(frames), { status, headers: { 'content-type': 'text/event-stream' } }));
    }
    return Promise.resolve(new Response(text(wrap(body)) ?? '{}', { status, headers: { 'content-type': 'application/json' } }));
  };
}

const stats = new Map<string, { calls: number; ok: number; codes: Map<string, number>; maxMs: number }>();
afterAll(() => {
  const rows = [...stats].map(([name, s]) => {
    const codes = [...s.codes].sort((a, b) => b[1] - a[1]).map(([code, n]) => `${code}×${n}`).join(' ');
    return `${name}: ${s.calls} calls, ${s.ok} returned; ${codes}; slowest ${s.maxMs.toFixed(1)} ms`;
  });
  console.log(`fuzz (seed ${fuzzSeed()}):\n  ${rows.join('\n  ')}`);
});

function record(name: string, ms: number, error: unknown): void {
  const entry = stats.get(name) ?? { calls: 0, ok: 0, codes: new Map<string, number>(), maxMs: 0 };
  entry.calls++;
  entry.maxMs = Math.max(entry.maxMs, ms);
  if (error === undefined) entry.ok++;
  else if (error instanceof TetherError) entry.codes.set(error.code, (entry.codes.get(error.code) ?? 0) + 1);
  stats.set(name, entry);
}

describe.each(TARGETS)('fuzz the $name client on mutated official answers', { timeout: 120_000 }, ({ name, binding, version, seeds }) => {
  const unary = seeds.filter((s) => s.kind !== 'event');
  const streams = seeds.filter((s) => s.kind === 'event');
  let next: Answer = { status: 200, body: {} };
  let client: A2AClient;

  async function connected(): Promise<A2AClient> {
    client ??= await connect(`${ORIGIN}/`, {
      card: { name: 'fuzz', capabilities: { streaming: true }, supportedInterfaces: [{ url: `${ORIGIN}/a2a`, protocolBinding: binding, protocolVersion: version }] },
      fetch: fakeAgent(binding, () => next),
      cardCache: false,
      maxRetries: 0,
    });
    return client;
  }

  async function outcome(call: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
    const started = performance.now();
    try {
      await call();
      return { ms: performance.now() - started, error: undefined };
    } catch (error) {
      return { ms: performance.now() - started, error };
    }
  }

  it('unary calls (send, get, cancel) return or fail with a TetherError', async () => {
    const agent = await connected();
    const before = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(fc.nat(), opsArb, fc.option(opsArb, { freq: 4 }), fc.constantFrom(200, 200, 200, 400, 500), async (i, ops, envelopeOps, status) => {
        const seed = unary[i % unary.length] as Seed;
        next = { status, body: applyOps(copy(seed.payload), ops), envelopeOps: envelopeOps ?? undefined };
        fc.pre(weight(next.body) < MAX_ANSWER);
        const call = seed.kind === 'send' ? () => agent.sendMessage('hi') : () => agent.getTask('t1');
        const { ms, error } = await outcome(call);
        record(`${name} unary`, ms, error);
        if (error !== undefined && !(error instanceof TetherError)) throw new Error(`${seed.name}: ${String(error)} is not a TetherError`, { cause: error });
        // A decoder's DecodeError is a TetherError too, but the client wraps it with the call's context.
        if (error instanceof DecodeError) throw new Error(`${seed.name}: a bare DecodeError left the client: ${error.message}`, { cause: error });
        expect(ms, seed.name).toBeLessThan(MAX_MS);
        expect(prototypeChanges(before)).toEqual([]);
      }),
      { numRuns: fuzzRuns(200), seed: fuzzSeed() },
    );
  });

  it('streams of mutated events end or fail with a TetherError', async () => {
    const agent = await connected();
    const before = prototypeSnapshot();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat(), fc.option(opsArb, { freq: 2 })), { minLength: 1, maxLength: 5 }), async (picks) => {
        const events = picks.map(([i, ops]) => applyOps(copy((streams[i % streams.length] as Seed).payload), ops ?? []));
        fc.pre(events.every((event) => weight(event) < MAX_ANSWER));
        next = { status: 200, body: undefined, events };
        const { ms, error } = await outcome(async () => {
          for await (const event of agent.streamMessage('hi')) void event;
        });
        record(`${name} stream`, ms, error);
        if (error !== undefined && !(error instanceof TetherError)) throw new Error(`${String(error)} is not a TetherError`, { cause: error });
        if (error instanceof DecodeError) throw new Error(`a bare DecodeError left the stream: ${error.message}`, { cause: error });
        expect(ms).toBeLessThan(MAX_MS);
        expect(prototypeChanges(before)).toEqual([]);
      }),
      { numRuns: fuzzRuns(150), seed: fuzzSeed() },
    );
  });
});
