import { describe, expect, it } from 'vitest';
import type { StoreLease } from '../store/task-store.js';
import type { Scheduler } from '../util/scheduler.js';
import { LeaseKeeper } from './lease-keeper.js';

/**
 * Timers on a clock that never steps (`monotonic()`), and a wall clock (`now()`) a test can step
 * either way, as NTP or an admin does to a real host.
 */
class SteppedClock implements Scheduler {
  time = 0;
  wallOffset = 1_700_000_000_000;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.time + this.wallOffset;
  }
  monotonic(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): number {
    const id = ++this.seq;
    this.timers.set(id, { at: this.time + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** Moves time forward, firing due timers in order (a callback's own promises settle between steps). */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await Promise.resolve();
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].fn();
    }
    this.time = end;
  }
}

/** A lease whose renewals hang (a store cut off) or answer `held`. */
function lease(ttlMs: number, renewal: () => Promise<boolean>): StoreLease {
  return { fence: 1, ttlMs, renew: renewal, release: () => Promise.resolve() };
}

const HANG = (): Promise<boolean> => new Promise<boolean>(() => undefined);

describe('LeaseKeeper: its deadline runs on the monotonic clock (G14)', () => {
  it('gives up at two thirds of the TTL when renewals hang, though the wall clock stepped back 60 s meanwhile', async () => {
    const clock = new SteppedClock();
    const lost: Array<{ at: number; why: string }> = [];
    const keeper = new LeaseKeeper(lease(30_000, HANG), clock.monotonic(), clock, (why) => lost.push({ at: clock.time, why }));
    await clock.advance(5_000);
    clock.wallOffset -= 60_000; // NTP (or an admin) steps the wall clock back a minute
    await clock.advance(40_000);
    keeper.stop();
    expect(lost).toHaveLength(1);
    expect(lost[0]?.at).toBe(20_000);
    expect(lost[0]?.why).toContain('within 20000 ms');
  });

  it('a wall clock stepped forward does not make it give up early while renewals are confirmed', async () => {
    const clock = new SteppedClock();
    const lost: string[] = [];
    const keeper = new LeaseKeeper(lease(30_000, () => Promise.resolve(true)), clock.monotonic(), clock, (why) => lost.push(why));
    await clock.advance(5_000);
    clock.wallOffset += 3_600_000;
    await clock.advance(120_000);
    keeper.stop();
    expect(lost).toEqual([]);
  });
});
