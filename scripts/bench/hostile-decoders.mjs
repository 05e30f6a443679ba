#!/usr/bin/env node
// "Hostile input" timings of the wire decoders and the card normalizer (issue 10): what one decode
// costs on 64 KB … 1 MB of what an agent may send — deep nesting, long strings (lone surrogates
// too), many parts, many keys, ambiguous parts at the very end — through the BUILT
// @a2a-tether/core/protocol (build it: pnpm build). The input is parsed once, outside the timing:
// the `JSON.parse` column is the platform's cost on the same text, for scale. Each size is timed
// alone: the fastest of N runs after a full GC (and the median); linear code takes ≈ 2× per doubling
// of the input, quadratic ≈ 4×. The target: no input of up to 1 MB takes more than 50 ms in any
// decoder or the normalizer.
//   node scripts/bench/hostile-decoders.mjs [--quick]      (results in bench/results-decoders.json)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const root = new URL('../../', import.meta.url);
const BUILT = new URL('packages/core/dist/protocol.js', root);

const DIALECTS = [
  ['v1.0 (JSON-RPC, HTTP+JSON)', 'v1'],
  ['v0.3 JSON-RPC', 'v03'],
  ['v0.3 HTTP+JSON', 'v03-proto'],
];

/** `count` copies of what `make(i)` returns, so that the JSON of the whole is about `size` characters. */
function fillTo(size, make, wrap) {
  const one = JSON.stringify(make(0)).length + 1;
  const overhead = JSON.stringify(wrap([])).length;
  const count = Math.max(1, Math.floor((size - overhead) / one));
  return wrap(Array.from({ length: count }, (_, i) => make(i)));
}

/** A string of `size` characters built from `unit`. */
const fill = (unit, size) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Nested `depth` times, without recursion (`JSON.stringify` of it would overflow: its text is built by hand). */
function deepText(depth) {
  return { value: null, text: '['.repeat(depth) + ']'.repeat(depth) };
}

const role = (d) => (d === 'v03' ? 'agent' : 'ROLE_AGENT');
const state = (d) => (d === 'v03' ? 'working' : 'TASK_STATE_WORKING');
const wrapEvent = (d, key, kind, body) => (d === 'v03' ? { kind, ...body } : { [key]: body });
const message = (d, parts) => ({ ...(d === 'v03' ? { kind: 'message' } : {}), messageId: 'm', role: role(d), [d === 'v03-proto' ? 'content' : 'parts']: parts });
const text = (d, t) => (d === 'v03' ? { kind: 'text', text: t } : { text: t });
const dataPart = (d, data) => (d === 'v03' ? { kind: 'data', data } : d === 'v03-proto' ? { data: { data } } : { data });

/** Decoder cases: `build(dialect, size)` → `{ text }` (the JSON) and the call to time on its parsed value. */
const DECODER_CASES = [
  {
    name: 'many small text parts (an artifact update: the fast path where there is one)',
    call: 'event',
    build: (d, size) =>
      fillTo(size, (i) => text(d, `chunk-${i};`), (parts) =>
        wrapEvent(d, 'artifactUpdate', 'artifact-update', { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts }, append: true })),
  },
  {
    name: 'many messages of data parts in a task history (the shape checks)',
    call: 'task',
    build: (d, size) =>
      fillTo(size, (i) => message(d, [dataPart(d, { i, v: 'x' }), text(d, 'y')]), (history) => ({
        ...(d === 'v03' ? { kind: 'task' } : {}),
        id: 't',
        contextId: 'c',
        status: { state: state(d) },
        history,
      })),
  },
  {
    name: 'one text part as long as the input, with lone surrogates',
    call: 'event',
    build: (d, size) =>
      wrapEvent(d, 'statusUpdate', 'status-update', {
        taskId: 't',
        contextId: 'c',
        status: { state: state(d), message: message(d, [text(d, fill('\ud800a\udc00b', size))]) },
      }),
  },
  {
    name: 'metadata with many keys and a `__proto__` key (copied without it)',
    call: 'event',
    build: (d, size) => {
      const metadata = {};
      Object.defineProperty(metadata, '__proto__', { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
      for (let j = 0, length = 40; length < size - 100; j++) {
        metadata[`k${j}`] = j;
        length += `"k${j}":${j},`.length;
      }
      return wrapEvent(d, 'statusUpdate', 'status-update', { taskId: 't', contextId: 'c', status: { state: state(d) }, metadata });
    },
  },
  {
    name: 'a data part and metadata nested as deep as the input allows',
    call: 'event',
    raw: (d, size) => {
      const half = Math.floor((size - 200) / 4);
      const deep = deepText(half).text;
      const part = d === 'v03' ? `{"kind":"data","data":${deep}}` : d === 'v03-proto' ? `{"data":{"data":${deep}}}` : `{"data":${deep}}`;
      const body = `{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","parts":[${part}]},"metadata":{"d":${deep}}}`;
      return d === 'v03' ? `{"kind":"artifact-update",${body.slice(1)}` : `{"artifactUpdate":${body}}`;
    },
  },
  {
    name: 'many parts, the last one ambiguous (text and data): a DecodeError at the end',
    call: 'event',
    build: (d, size) => {
      const event = fillTo(size, (i) => text(d, `chunk-${i};`), (parts) =>
        wrapEvent(d, 'artifactUpdate', 'artifact-update', { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts } }));
      const parts = (d === 'v03' ? event : event.artifactUpdate).artifact.parts;
      parts.push({ text: 'x', data: { y: 1 } });
      return event;
    },
    expectError: true,
  },
  {
    name: 'a role as long as the input: a DecodeError with a bounded message',
    call: 'event',
    build: (d, size) => (d === 'v03' ? { kind: 'message', messageId: 'm', role: fill('r', size), parts: [] } : { message: { messageId: 'm', role: fill('r', size), parts: [] } }),
    expectError: true,
  },
];

const BASE = 'https://agent.example/.well-known/agent-card.json';
const cardBase = (extra) => ({ name: 'hostile', supportedInterfaces: [{ url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }], ...extra });

/** Card cases: `build(size)` → the card JSON's value (or `raw(size)` → its text). */
const CARD_CASES = [
  {
    name: 'many interfaces (each URL resolved)',
    build: (size) => fillTo(size, (i) => ({ url: `/agents/${i}/rpc`, protocolBinding: i % 2 ? 'JSONRPC' : 'HTTP+JSON', protocolVersion: '1.0' }), (list) => cardBase({ supportedInterfaces: list })),
  },
  {
    name: 'many security schemes, each in a requirement with many scopes',
    build: (size) => {
      const card = fillTo(size, (i) => ({ schemes: { [`s${i}`]: { list: ['read', 'write', `scope-${i}`] } } }), (list) => cardBase({ securityRequirements: list }));
      card.securitySchemes = Object.fromEntries(card.securityRequirements.map((_, i) => [`s${i}`, { httpAuthSecurityScheme: { scheme: 'Bearer' } }]));
      return card;
    },
  },
  {
    name: 'many skills with tags and examples',
    build: (size) => fillTo(size, (i) => ({ id: `s${i}`, name: 'skill', description: 'd', tags: ['a', 'b'], examples: ['e'] }), (skills) => cardBase({ skills })),
  },
  {
    name: 'a requirement scope list nested as deep as the input allows: CARD_INVALID',
    raw: (size) => {
      const depth = Math.floor((size - 200) / 2);
      return JSON.stringify(cardBase({})).replace(/}$/, `,"securityRequirements":[{"schemes":{"s":{"list":${deepText(depth).text}}}}]}`);
    },
    expectError: 'CARD_INVALID',
  },
  {
    name: 'a name and a description as long as the input, with lone surrogates',
    build: (size) => cardBase({ name: fill('\ud800n', size / 2), description: fill('<a', size / 2) }),
  },
  {
    name: 'negotiate(): many interfaces, none speakable (NO_COMPATIBLE_INTERFACE, a bounded message)',
    build: (size) => fillTo(size, (i) => ({ url: `grpc.example:${i}`, protocolBinding: 'GRPC', protocolVersion: '1.0' }), (list) => cardBase({ supportedInterfaces: list })),
    negotiate: true,
    expectError: 'NO_COMPATIBLE_INTERFACE',
  },
];

/** The text `make(n)` builds, with `n` corrected once so that it is about `size` characters (escapes make JSON longer). */
function fit(make, size) {
  const first = make(size);
  return first.length <= size * 1.1 ? first : make(Math.floor((size * size) / first.length));
}

function median(list) {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * `rounds` runs of `fn` (after a warm-up run), each after a full collection: the fastest (what the
 * input costs, with the least of the machine's other load in it, as in scripts/bench/hostile.mjs) and
 * the median.
 */
function timed(fn, rounds) {
  fn();
  const times = [];
  for (let i = 0; i < rounds; i++) {
    globalThis.gc?.();
    const start = performance.now();
    fn();
    times.push(performance.now() - start);
  }
  return { fastest: Math.min(...times), median: median(times) };
}

const round2 = (ms) => Math.round(ms * 100) / 100;

function row(previous, size, time, parse) {
  const perDoubling = previous ? (time.fastest / previous.ms) ** (1 / Math.log2(size / previous.size)) : null;
  return { size, ms: round2(time.fastest), medianMs: round2(time.median), perDoubling: perDoubling === null ? null : round2(perDoubling), parseMs: round2(parse.fastest) };
}

/** Times every decoder and card case at every size. */
export async function decoderTimings({ sizes, rounds }) {
  const { decodeStreamEvent, decodeTask, normalizeCard, negotiate, DecodeError } = await import(BUILT.href);
  const { TetherError } = await import(new URL('packages/core/dist/index.js', root).href);
  const results = [];
  for (const c of DECODER_CASES) {
    for (const [label, dialect] of DIALECTS) {
      const rows = [];
      for (const size of sizes) {
        const text = c.raw ? c.raw(dialect, size) : fit((n) => JSON.stringify(c.build(dialect, n)), size);
        const value = JSON.parse(text);
        const decode = c.call === 'task' ? () => decodeTask(value, dialect) : () => decodeStreamEvent(value, dialect);
        const once = () => {
          try {
            decode();
            if (c.expectError) throw new Error(`${c.name} (${label}) at ${size}: decoded, expected a DecodeError`);
          } catch (error) {
            if (!(error instanceof DecodeError) || !c.expectError) throw error;
            if (error.message.length > 1_000) throw new Error(`${c.name}: a ${error.message.length}-character message`);
          }
        };
        rows.push(row(rows.at(-1), text.length, timed(once, rounds), timed(() => JSON.parse(text), Math.min(rounds, 3))));
      }
      results.push({ name: `${c.name} — ${label}`, rows });
    }
  }
  for (const c of CARD_CASES) {
    const rows = [];
    for (const size of sizes) {
      const text = c.raw ? c.raw(size) : fit((n) => JSON.stringify(c.build(n)), size);
      const value = JSON.parse(text);
      const card = c.negotiate ? normalizeCard(value, BASE) : undefined;
      const once = () => {
        try {
          if (card) negotiate(card);
          else normalizeCard(value, BASE);
          if (c.expectError) throw new Error(`${c.name} at ${size}: no error, expected ${c.expectError}`);
        } catch (error) {
          if (!(error instanceof TetherError) || error.code !== c.expectError) throw error;
          if (error.message.length > 1_000) throw new Error(`${c.name}: a ${error.message.length}-character message`);
        }
      };
      rows.push(row(rows.at(-1), text.length, timed(once, rounds), timed(() => JSON.parse(text), Math.min(rounds, 3))));
    }
    results.push({ name: `card: ${c.name}`, rows });
  }
  return results;
}

const kb = (size) => (size >= 1024 * 1024 ? `${(size / 1024 / 1024).toFixed(2)} MB` : `${Math.round(size / 1024)} KB`);

/** Prints the results as one table per case, and the worst case at 1 MB. */
export function printDecoderTimings(results) {
  for (const c of results) {
    console.log(`   ${c.name}`);
    for (const r of c.rows) {
      const growth = r.perDoubling === null ? '' : `  ×${r.perDoubling.toFixed(2)}/doubling`;
      console.log(
        `     ${kb(r.size).padStart(9)}  ${r.ms.toFixed(2).padStart(7)} ms (median ${r.medianMs.toFixed(2)})${growth.padEnd(20)}  JSON.parse ${r.parseMs.toFixed(2)} ms`,
      );
    }
  }
  const largest = results.map((c) => ({ name: c.name, last: c.rows.at(-1) })).sort((a, b) => b.last.ms - a.last.ms)[0];
  if (largest) console.log(`\n   slowest at the largest size: ${largest.last.ms.toFixed(2)} ms — ${largest.name}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (typeof globalThis.gc !== 'function') {
    // Each timed run starts after a full collection: run again with --expose-gc.
    const again = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
    process.exit(again.status ?? 1);
  }
  if (!existsSync(BUILT)) {
    console.error(`✖ missing the built core (${fileURLToPath(BUILT)}): pnpm build`);
    process.exit(1);
  }
  const quick = process.argv.includes('--quick');
  const config = { sizes: [64, 128, 256, 512, 1024].map((k) => k * 1024), rounds: quick ? 5 : 15 };
  console.log(
    `hostile input, decoders and card normalizer: fastest (and median) of ${config.rounds} per size, each after a full GC; Node ${process.version}, ` +
      `${os.cpus()[0]?.model ?? 'unknown CPU'}, load average ${os.loadavg()[0].toFixed(1)}`,
  );
  const results = await decoderTimings(config);
  printDecoderTimings(results);
  mkdirSync(new URL('bench/', root), { recursive: true });
  writeFileSync(new URL('bench/results-decoders.json', root), JSON.stringify({ node: process.version, config, results }, null, 2));
}
