import { describe, expect, it } from 'vitest';
import type { BodyRead } from './read-body.js';
import { readWithinBudget, type BodyReader } from './read-within-budget.js';
import { UnverifiedBudget } from './unverified-budget.js';

const LIMITS = { maxBodyBytes: 64 * 1024, bodyTimeoutMs: 1000, retryAfterSec: 2 };
const BYTES = new TextEncoder().encode('{}');

/** A reader that answers `result` and records the limit it was given. */
function reader(result: BodyRead | Error): BodyReader & { limits: number[] } {
  const limits: number[] = [];
  const read = (limit: number): Promise<BodyRead> => {
    limits.push(limit);
    return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
  };
  return Object.assign(read, { limits });
}

describe('readWithinBudget', () => {
  it('a verified push is read within maxBodyBytes, outside the budget', async () => {
    const budget = new UnverifiedBudget(32 * 1024, LIMITS.maxBodyBytes);
    budget.reserve(32 * 1024); // full
    const read = reader({ kind: 'read', bytes: BYTES });
    expect(await readWithinBudget(read, true, Number.NaN, budget, LIMITS)).toBe(BYTES);
    expect(read.limits).toEqual([LIMITS.maxBodyBytes]);
  });

  it('an unverified push reserves its declared length, and is refused 503 unread when the budget is full', async () => {
    const budget = new UnverifiedBudget(40 * 1024, LIMITS.maxBodyBytes);
    const read = reader({ kind: 'read', bytes: BYTES });
    expect(await readWithinBudget(read, false, 20 * 1024, budget, LIMITS)).toBe(BYTES);
    expect(read.limits).toEqual([20 * 1024]);
    expect(budget.reserved).toBe(0); // released once read

    const held = budget.reserve(30 * 1024);
    expect(await readWithinBudget(read, false, 20 * 1024, budget, LIMITS)).toMatchObject({ kind: 'refused', status: 503, retryAfterSec: 2 });
    expect(read.limits).toHaveLength(1); // not read
    budget.release(held);
  });

  it.each([
    [{ kind: 'timeout' } as const, 408],
    [{ kind: 'too-large' } as const, 413],
    [new Error('socket hang up'), 400],
  ])('%j → %i, and the reservation is released', async (result, status) => {
    const budget = new UnverifiedBudget(1024 * 1024, LIMITS.maxBodyBytes);
    expect(await readWithinBudget(reader(result), false, 100, budget, LIMITS)).toMatchObject({ kind: 'refused', status });
    expect(budget.reserved).toBe(0);
  });
});
