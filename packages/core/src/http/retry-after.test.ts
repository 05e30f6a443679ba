import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from './retry-after.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delta-seconds and HTTP-dates; absent or unreadable is undefined', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0); // in the past: no wait
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  // Regression (issue 10): 306 digits made Infinity, which no timer can wait for.
  it('clamps a huge wait to MAX_RETRY_AFTER_MS, the longest a timer can wait', () => {
    expect(MAX_RETRY_AFTER_MS).toBe(2 ** 31 - 1);
    expect(parseRetryAfter(`2${'0'.repeat(305)}`, now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('9'.repeat(20), now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter(String(30 * 24 * 3600), now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', now)).toBe(MAX_RETRY_AFTER_MS);
  });
});
