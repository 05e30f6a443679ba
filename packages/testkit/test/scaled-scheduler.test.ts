import { describe, expect, it } from 'vitest';
import { createScaledScheduler } from '../src/index.js';
import type { ScaledScheduler } from '../src/index.js';

// Real timers: these tests assert order and what the clock guarantees by construction, never how long
// anything took.

/** Resolves with what `fire` recorded once `count` timers fired. */
function fired(clock: ScaledScheduler, delays: Array<[label: string, ms: number]>, count: number): Promise<string[]> {
  return new Promise((resolve) => {
    const order: string[] = [];
    for (const [label, ms] of delays) {
      clock.setTimeout(() => {
        order.push(label);
        if (order.length === count) resolve(order);
      }, ms);
    }
  });
}

describe('createScaledScheduler', () => {
  it('fires timers in the order of their virtual due times', async () => {
    const clock = createScaledScheduler(100);
    const order = await fired(clock, [['c', 3_000], ['a', 1_000], ['b', 2_000], ['zero', 0]], 4);
    expect(order).toEqual(['zero', 'a', 'b', 'c']);
    expect(clock.pending).toBe(0);
  });

  it('clearTimeout stops a timer that is due before one that fires', async () => {
    const clock = createScaledScheduler(100);
    let early = 0;
    const cancelled = clock.setTimeout(() => early++, 500);
    expect(clock.pending).toBe(1);
    clock.clearTimeout(cancelled);
    expect(clock.pending).toBe(0);
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 2_000));
    expect(early).toBe(0);
    // Clearing again, or clearing a timer that already fired, changes nothing.
    clock.clearTimeout(cancelled);
    expect(clock.pending).toBe(0);
  });

  it('when a timer fires, the clock reads at least its due time; it never goes backwards', async () => {
    const start = 1_700_000_000_000;
    const clock = createScaledScheduler(50, start);
    expect(clock.now()).toBeGreaterThanOrEqual(start);
    const seen: number[] = [];
    const at = await new Promise<number>((resolve) => {
      clock.setTimeout(() => resolve(clock.now()), 5_000);
      for (let i = 0; i < 100; i++) seen.push(clock.now());
    });
    expect(at - start).toBeGreaterThanOrEqual(5_000);
    seen.push(clock.now());
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1] as number);
  });

  it('a timer set from a timer fires after it, on the same clock', async () => {
    const clock = createScaledScheduler(200);
    const order = await new Promise<string[]>((resolve) => {
      const log: string[] = [];
      clock.setTimeout(() => {
        log.push('outer');
        clock.setTimeout(() => {
          log.push('inner');
          resolve(log);
        }, 1_000);
      }, 1_000);
      clock.setTimeout(() => log.push('middle'), 1_500);
    });
    expect(order).toEqual(['outer', 'middle', 'inner']);
  });

  it('rejects a factor that is not a positive number', () => {
    expect(() => createScaledScheduler(0)).toThrow(RangeError);
    expect(() => createScaledScheduler(-2)).toThrow(RangeError);
    expect(() => createScaledScheduler(Number.NaN)).toThrow(RangeError);
  });
});

describe('createScaledScheduler: a starved process', () => {
  it('does not count a stall of the event loop as virtual time', () => {
    const scheduler = createScaledScheduler(100, 0, { maxGapMs: 50 });
    const before = scheduler.now();
    const until = performance.now() + 200;
    while (performance.now() < until) {
      // a synchronous stall: nothing else runs
    }
    const advanced = scheduler.now() - before;
    expect(scheduler.stalledMs).toBeGreaterThanOrEqual(100);
    // At most the allowed gap (plus a few ms the loop itself took) was counted: not 200 ms × 100.
    expect(advanced).toBeLessThanOrEqual(100 * 100);
  });
});
