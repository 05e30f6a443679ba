import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/http/retry-after.js';
import { fastestMs, fuzzRuns, fuzzSeed } from './fuzz-config.js';

// Property-based test of `Retry-After` parsing (issue 10): any header value is a finite wait in
// [0, MAX_RETRY_AFTER_MS], or undefined; never NaN, Infinity or negative, and never slow.

const now = Date.parse('2026-12-01T00:00:00Z');
const header = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.stringMatching(/^\s*\d{1,400}\s*$/),
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map(String),
  fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms) => new Date(ms).toUTCString()),
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
  fc.constantFrom('', ' ', '-1', '1e3', '0x10', 'Infinity', 'NaN', '1.5', '+5', '١٢٣', 'Wed, 21 Oct 2015 07:28:00 GMT', 'Fri, 31 Dec 9999 23:59:59 GMT'),
  fc.tuple(fc.constantFrom('0', '9', ' ', 'x'), fc.integer({ min: 1, max: 100_000 })).map(([unit, n]) => unit.repeat(n)),
);

describe('parseRetryAfter (fuzz)', () => {
  it('gives a finite wait in [0, MAX_RETRY_AFTER_MS] or undefined, for any header value', () => {
    fc.assert(
      fc.property(header, (value) => {
        expect(fastestMs(100, () => parseRetryAfter(value, now))).toBeLessThan(100);
        const ms = parseRetryAfter(value, now);
        if (ms === undefined) return;
        expect(Number.isFinite(ms)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(0);
        expect(ms).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
      }),
      { numRuns: fuzzRuns(2_000), seed: fuzzSeed() },
    );
  });

  it('reads delta-seconds exactly up to the cap', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.constantFrom('', ' ', '\t'), (seconds, pad) => {
        expect(parseRetryAfter(`${pad}${seconds}${pad}`, now)).toBe(Math.min(seconds * 1000, MAX_RETRY_AFTER_MS));
      }),
      { numRuns: fuzzRuns(500), seed: fuzzSeed() },
    );
  });
});
