import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TetherError } from '../../src/errors/tether-error.js';
import { SseReader, type SseEvent } from '../../src/sse/sse-reader.js';
import { fastestMs, fuzzRuns, fuzzSeed } from './fuzz-config.js';

// Property-based tests of the SSE reader (issue 10). Every case compares the reader, fed the body in
// random chunks, with a reference that reads the whole body at once, line by line, as the WHATWG
// event-stream grammar is written. Set FUZZ_RUNS / FUZZ_SEED (or `pnpm fuzz --runs N --seed S`).

interface Outcome {
  events: SseEvent[];
  /** The code of the failure that ended the reading, if any. */
  failure: string | undefined;
}

/**
 * The reference: decode everything, cut into lines at CRLF, LF or CR, apply the fields. The size
 * rule (the data an event has so far plus the line being read, at most `max` characters) is checked
 * on every line, including an unterminated last one.
 */
function reference(bytes: Uint8Array, max: number): Outcome {
  const text = new TextDecoder().decode(bytes);
  const lines = text.split(/\r\n|\r|\n/);
  const events: SseEvent[] = [];
  let data: string | undefined;
  let event: string | undefined;
  let id: string | undefined;
  for (const [index, line] of lines.entries()) {
    if ((data?.length ?? 0) + line.length > max) return { events, failure: 'EVENT_TOO_LARGE' };
    if (index === lines.length - 1) break; // no line end: the event is never finished
    if (line === '') {
      if (data !== undefined) events.push({ data, event, id });
      data = event = id = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
    else if (field === 'event') event = value || undefined;
    else if (field === 'id' && !value.includes('\0')) id = value;
  }
  return { events, failure: undefined };
}

/** Feeds `bytes` to a reader in the chunks `cuts` makes; any throw is caught and reported as such. */
function readChunks(bytes: Uint8Array, cuts: readonly number[], max: number): Outcome & { thrown: unknown } {
  const reader = new SseReader(max, { operation: 'Fuzz' });
  const events: SseEvent[] = [];
  let from = 0;
  try {
    for (const cut of [...cuts, bytes.length]) {
      events.push(...reader.push(bytes.subarray(from, cut)));
      from = cut;
      if (reader.failure) break;
    }
    if (!reader.failure) events.push(...reader.end());
  } catch (thrown) {
    return { events, failure: undefined, thrown };
  }
  const failure = reader.failure;
  if (failure !== undefined) {
    // The only failure is the size rule's, it names the cap and the operation, and it is final: the rest
    // of the body, a whole event after it and the end deliver nothing, and the failure stays the same.
    expect(failure).toBeInstanceOf(TetherError);
    expect(failure).toMatchObject({ code: 'EVENT_TOO_LARGE', isRetryable: false, operation: 'Fuzz', message: `Fuzz: an SSE event exceeds ${max} characters` });
    expect(reader.push(bytes.subarray(from))).toEqual([]);
    expect(reader.push(new TextEncoder().encode('\n\ndata: after\n\n'))).toEqual([]);
    expect(reader.end()).toEqual([]);
    expect(reader.failure).toBe(failure);
  }
  return { events, failure: failure?.code, thrown: undefined };
}

// ---- generators ----

const eol = fc.constantFrom('\n', '\r', '\r\n');
const fieldName = fc.constantFrom('data', 'event', 'id', 'retry', 'dat', 'data ', 'DATA', '', '__proto__', 'constructor', 'toString');
const separator = fc.constantFrom(':', ': ', ':  ', '');
const value = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) }, // lone surrogates, astral characters
  { weight: 1, arbitrary: fc.constantFrom('{"a":1}', '\0', 'x\0y', ' ', '\u2028', '\ufeff', '{"__proto__":{"polluted":1}}') },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('x', '<a', ' ', ':'), fc.integer({ min: 1, max: 300 })).map(([unit, n]) => unit.repeat(n)) },
);
/** One line without its end: a field, a comment, or nothing (a blank line ends an event). */
const line = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fieldName, separator, value).map(([f, s, v]) => f + s + v) },
  { weight: 2, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: value.map((v) => `:${v}`) },
);
/** An SSE body as text: lines with mixed line ends, maybe a BOM (or two), maybe no final line end. */
const sseText = fc
  .tuple(
    fc.constantFrom('', '', '\ufeff', '\ufeff\ufeff'),
    fc.array(fc.tuple(line, eol), { maxLength: 30 }),
    fc.oneof(fc.constant(''), line),
  )
  .map(([bom, lines, tail]) => bom + lines.map(([l, e]) => l + e).join('') + tail);
/** The text as UTF-8, sometimes with stray bytes spliced in (broken characters, lone 0xE2, NUL). */
const sseBytes = fc
  .tuple(sseText, fc.array(fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 3 })), { maxLength: 3 }))
  .map(([text, splices]) => {
    let bytes = new TextEncoder().encode(text);
    for (const [at, extra] of splices) {
      const cut = bytes.length === 0 ? 0 : at % (bytes.length + 1);
      bytes = Uint8Array.from([...bytes.subarray(0, cut), ...extra, ...bytes.subarray(cut)]);
    }
    return bytes;
  });
const maxEventSize = fc.constantFrom(1, 8, 20, 64, 300, 1_000_000);

/** Cut points for `bytes`: none, a few random ones, or every byte. */
function cutsFor(length: number): fc.Arbitrary<number[]> {
  const every = Array.from({ length: Math.max(0, length - 1) }, (_, i) => i + 1);
  return fc.oneof(
    fc.constant<number[]>([]),
    fc.constant(every),
    fc.uniqueArray(fc.integer({ min: 1, max: Math.max(1, length - 1) }), { maxLength: 8 }).map((cuts) => cuts.filter((c) => c < length).sort((a, b) => a - b)),
  );
}

const bodyWithCuts = sseBytes.chain((bytes) => fc.tuple(fc.constant(bytes), cutsFor(bytes.length)));

// ---- properties ----

let prototypeKeys: string[];
beforeAll(() => {
  prototypeKeys = Reflect.ownKeys(Object.prototype).map(String).sort();
});
afterAll(() => {
  // Prototypes untouched: no field name or value reached Object.prototype.
  expect(Reflect.ownKeys(Object.prototype).map(String).sort()).toEqual(prototypeKeys);
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
});

describe('SseReader (fuzz)', () => {
  it('delivers what the reference reads, whatever the chunks, and throws nothing', () => {
    fc.assert(
      fc.property(bodyWithCuts, maxEventSize, ([bytes, cuts], max) => {
        const got = readChunks(bytes, cuts, max);
        expect(got.thrown).toBeUndefined();
        expect({ events: got.events, failure: got.failure }).toEqual(reference(bytes, max));
      }),
      { numRuns: fuzzRuns(1_500), seed: fuzzSeed() },
    );
  });

  it('reads random bytes into the same events whatever the chunks, throwing nothing', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 400 }).chain((bytes) => fc.tuple(fc.constant(bytes), cutsFor(bytes.length))),
        maxEventSize,
        ([bytes, cuts], max) => {
          const whole = readChunks(bytes, [], max);
          const cut = readChunks(bytes, cuts, max);
          expect(whole.thrown).toBeUndefined();
          expect(cut.thrown).toBeUndefined();
          expect(cut.events).toEqual(whole.events);
          expect(cut.failure).toBe(whole.failure);
          expect({ events: whole.events, failure: whole.failure }).toEqual(reference(bytes, max));
        },
      ),
      { numRuns: fuzzRuns(1_000), seed: fuzzSeed() },
    );
  });

  it('takes linear time on long lines, comment floods and CR-heavy bodies (a per-case time bound)', () => {
    const unit = fc.constantFrom('x', '\r', '\n', '\r\n', ':', ': ping\r', 'data: <a<a', 'data:', '\r\r', ' ', '\ufeff');
    const hostile = fc
      .tuple(fc.array(unit, { minLength: 1, maxLength: 6 }), fc.integer({ min: 20_000, max: 200_000 }))
      .map(([units, size]) => {
        const block = units.join('');
        return new TextEncoder().encode(block.repeat(Math.ceil(size / block.length)));
      });
    fc.assert(
      fc.property(
        hostile.chain((bytes) => fc.tuple(fc.constant(bytes), fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 32 }))),
        fc.constantFrom(64, 100_000, 8 * 1024 * 1024),
        ([bytes, cuts], max) => {
          const sorted = cuts.sort((a, b) => a - b);
          // Linear is a few ms for 200 KB; quadratic is seconds.
          expect(fastestMs(250, () => expect(readChunks(bytes, sorted, max).thrown).toBeUndefined())).toBeLessThan(250);
        },
      ),
      { numRuns: fuzzRuns(60), seed: fuzzSeed() },
    );
  });
});
