import { describe, expect, it } from 'vitest';
import type { Scheduler } from '../util/scheduler.js';
import { IdleTimer } from './idle-probe.js';
import { InputWait } from './input-wait.js';
import { PollCadence } from './poll-cadence.js';
import { RequestLimiter } from './request-limiter.js';
import { RESILIENCE_DEFAULTS } from './resilience.js';
import { RetryBudget } from './retry-budget.js';

/**
 * A clock that moves only when told to; timers fire in order as it moves. `monotonic()` is its time;
 * `now()`, the wall clock, is that plus `wall`, which a test may step either way.
 */
class Clock implements Scheduler {
  time = 0;
  wall = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    return this.time + this.wall;
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
  get pending(): number {
    return this.timers.size;
  }
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = [...this.timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = due[1].at;
      due[1].fn();
    }
    this.time = end;
  }
}

const options = { initialDelayMs: 100, maxDelayMs: 1_000, factor: 2, maxAttempts: 6, maxElapsedMs: 60_000 };

describe('RetryBudget: full jitter, Retry-After as a floor, attempt and time budgets', () => {
  it('draws each delay in [0, ceiling) with the ceiling doubling up to the cap', () => {
    const clock = new Clock();
    const draws = [0.999, 0.5, 0, 0.25, 0.999, 0.999];
    const budget = new RetryBudget(options, clock, () => draws.shift() ?? 0);
    const delays = [1, 2, 3, 4, 5, 6].map(() => budget.fail());
    expect(delays.map((d) => (d.retry ? d.delayMs : -1))).toEqual([99, 100, 0, 200, 999, 999]);
    expect(delays.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('jitter spreads the same attempt over the whole window (no two clients in step)', () => {
    const clock = new Clock();
    const seen = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const budget = new RetryBudget(options, clock, Math.random);
      const decision = budget.fail();
      if (decision.retry) seen.add(Math.floor(decision.delayMs / 10));
    }
    expect(seen.size).toBeGreaterThan(5);
    expect(Math.max(...seen)).toBeLessThan(10);
  });

  it('takes Retry-After as a floor', () => {
    const budget = new RetryBudget(options, new Clock(), () => 0);
    expect(budget.fail(5_000)).toMatchObject({ retry: true, delayMs: 5_000 });
  });

  it('gives up after maxAttempts failures in a row, and only reset() (progress) refills it', () => {
    const budget = new RetryBudget(options, new Clock(), () => 0);
    for (let i = 0; i < 6; i++) expect(budget.fail().retry).toBe(true);
    expect(budget.fail()).toMatchObject({ retry: false, reason: '6 failed attempts in a row' });
    budget.reset();
    expect(budget.fail()).toMatchObject({ retry: true, attempt: 1 });
  });

  it('gives up when the streak outlasts maxElapsedMs, counted from its first failure', () => {
    const clock = new Clock();
    const budget = new RetryBudget({ ...options, maxElapsedMs: 1_000 }, clock, () => 0);
    clock.time = 50_000; // long quiet success before: not counted
    expect(budget.fail().retry).toBe(true);
    clock.time += 900;
    expect(budget.fail(200)).toMatchObject({ retry: false, reason: '1000 ms of failures' });
  });
});

describe('RequestLimiter: the request-rate ceiling', () => {
  /** Times at which `count` requests queued at once get through, the clock stepping `step` ms. */
  async function paced(limiter: RequestLimiter, clock: Clock, count: number, step: number, steps: number): Promise<number[]> {
    const times: number[] = [];
    const all = Promise.all(
      Array.from({ length: count }, async () => {
        await limiter.acquire();
        times.push(clock.time);
      }),
    );
    for (let i = 0; i < steps && times.length < count; i++) {
      await Promise.resolve();
      await Promise.resolve();
      clock.advance(step);
    }
    await all;
    return times;
  }

  it('paces: a burst of two, then one request every window / (max - 2), so no window holds more than max', async () => {
    const clock = new Clock();
    const limiter = new RequestLimiter(3, 1_000, clock);
    const times = await paced(limiter, clock, 6, 100, 60);
    expect(times.slice(0, 2)).toEqual([0, 0]);
    for (let i = 3; i < times.length; i++) expect((times[i] as number) - (times[i - 3] as number)).toBeGreaterThanOrEqual(1_000);
  });

  it('with the defaults, a long run of requests never waits more than one interval (556 ms) and never exceeds 20 in 10 s', async () => {
    // Issue 16: a plain window let 20 quick resubscriptions through and made the 21st wait ~8 s.
    const clock = new Clock();
    const { maxRequestsPerWindow: max, requestWindowMs: window } = RESILIENCE_DEFAULTS;
    const limiter = new RequestLimiter(max, window, clock);
    const times = await paced(limiter, clock, 60, 10, 10_000);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(Math.ceil(window / (max - 2)) + 10);
    for (let i = max; i < times.length; i++) expect((times[i] as number) - (times[i - max] as number)).toBeGreaterThanOrEqual(window);
  });

  it('an aborted wait gives up its place and counts nothing', async () => {
    const clock = new Clock();
    const limiter = new RequestLimiter(1, 1_000, clock);
    expect(await limiter.acquire()).toBe(true);
    const abort = new AbortController();
    const waiting = limiter.acquire(abort.signal);
    abort.abort();
    expect(await waiting).toBe(false);
    expect(limiter.waitMs()).toBe(1_000);
  });

  it('the defaults mean 20 requests per 10 s (2 per second)', () => {
    expect(RESILIENCE_DEFAULTS.maxRequestsPerWindow / (RESILIENCE_DEFAULTS.requestWindowMs / 1_000)).toBe(2);
  });
});

describe('PollCadence: fast after a change, slower while nothing changes, jittered', () => {
  it('grows by the factor up to the cap and drops back after a change', () => {
    const cadence = new PollCadence({ pollMinMs: 1_000, pollMaxMs: 5_000, pollFactor: 2 }, () => 0.5);
    expect([false, false, false, false].map(() => cadence.after(false))).toEqual([2_000, 4_000, 5_000, 5_000]);
    expect(cadence.after(true)).toBe(1_000);
  });

  it('jitters each wait by ±20 %', () => {
    expect(new PollCadence({ pollMinMs: 1_000, pollMaxMs: 5_000, pollFactor: 2 }, () => 0).after(true)).toBe(800);
    expect(new PollCadence({ pollMinMs: 1_000, pollMaxMs: 5_000, pollFactor: 2 }, () => 0.999).after(true)).toBe(1_200);
  });
});

describe('IdleTimer: one timer per silence window', () => {
  it('fires once the silence lasted the whole window, re-armed for what is left after activity', () => {
    const clock = new Clock();
    let fired = 0;
    const idle = new IdleTimer(clock, 30_000, () => fired++);
    idle.start();
    clock.advance(20_000);
    idle.touch(); // activity at 20 s: the silence now ends at 50 s
    clock.advance(10_000); // 30 s: the first timer fires, sees 20 s of silence, re-arms for 10 s more
    expect(fired).toBe(0);
    expect(clock.pending).toBe(1);
    clock.advance(19_999);
    expect(fired).toBe(0);
    clock.advance(1);
    expect(fired).toBe(1);
    expect(clock.pending).toBe(0);
  });

  it('touch() sets no timer (no churn per event) and stop() clears the one there is', () => {
    const clock = new Clock();
    const idle = new IdleTimer(clock, 1_000, () => undefined);
    idle.start();
    for (let i = 0; i < 100; i++) idle.touch();
    expect(clock.pending).toBe(1);
    idle.stop();
    expect(clock.pending).toBe(0);
  });
});

describe('InputWait: the wait for a human', () => {
  it('times out after timeoutMs at a pause, and not once the pause is answered or over', () => {
    const clock = new Clock();
    const timeouts: string[] = [];
    const wait = new InputWait(clock, 5_000, 10_000, (state) => timeouts.push(state));
    wait.update('input-required', false);
    clock.advance(4_999);
    wait.update('input-required', false); // the same pause again: the timer keeps running
    clock.advance(1);
    expect(timeouts).toEqual(['input-required']);
    wait.update('auth-required', false);
    wait.update('auth-required', true); // a reply is on its way
    clock.advance(10_000);
    wait.update('working', false);
    clock.advance(10_000);
    expect(timeouts).toEqual(['input-required']);
  });

  it('looks again at auth-required only (the agent may resume on its own)', () => {
    const wait = new InputWait(new Clock(), undefined, 10_000, () => undefined);
    expect(wait.lookAgainMs('auth-required')).toBe(10_000);
    expect(wait.lookAgainMs('input-required')).toBeUndefined();
    expect(new InputWait(new Clock(), undefined, 0, () => undefined).lookAgainMs('auth-required')).toBeUndefined();
  });
});

describe('deadlines on the monotonic clock: a wall clock that steps changes none of them (G14)', () => {
  it('RetryBudget: maxElapsedMs counts monotonic time, whatever the wall clock does', () => {
    const clock = new Clock();
    const budget = new RetryBudget({ ...options, maxElapsedMs: 1_000 }, clock, () => 0);
    expect(budget.fail().retry).toBe(true);
    clock.time += 900;
    clock.wall -= 60_000;
    expect(budget.fail(200)).toMatchObject({ retry: false, reason: '1000 ms of failures' });
    const forward = new RetryBudget({ ...options, maxElapsedMs: 1_000 }, clock, () => 0);
    expect(forward.fail().retry).toBe(true);
    clock.wall += 3_600_000;
    expect(forward.fail().retry).toBe(true);
  });

  it('IdleTimer: the silence window ends on time though the wall clock stepped back', () => {
    const clock = new Clock();
    let fired = 0;
    const idle = new IdleTimer(clock, 30_000, () => fired++);
    idle.start();
    clock.advance(10_000);
    clock.wall -= 60_000;
    clock.advance(20_000);
    expect(fired).toBe(1);
  });

  it('RequestLimiter: the window does not stretch when the wall clock steps back', async () => {
    const clock = new Clock();
    const limiter = new RequestLimiter(3, 1_000, clock);
    for (let i = 0; i < 2; i++) await limiter.acquire(); // the burst
    clock.wall -= 60_000;
    expect(limiter.waitMs()).toBeLessThanOrEqual(1_000);
  });
});
