import { performance } from 'node:perf_hooks';
import type { SchedulerLike } from './manual-scheduler.js';

/** A scheduler on real timers whose clock runs `factor` times faster than the real one. */
export interface ScaledScheduler extends SchedulerLike {
  /** Virtual milliseconds per real millisecond. */
  readonly factor: number;
  /** Timers set and not yet fired or cleared. */
  readonly pending: number;
}

/**
 * Real timers, fast virtual time: `now()` is `start + elapsed × factor` and `setTimeout(cb, ms)` waits
 * `ms / factor` real milliseconds. Pass it as `connect(url, { scheduler })` to run minutes of backoff,
 * idle probes and polling against a real agent in seconds, with real I/O in between (unlike
 * {@link ManualScheduler}, nobody has to advance it).
 *
 * The clock never goes backwards, and when a timer fires `now()` is at least its due time, so code that
 * measures elapsed time with it sees its own timeouts honoured even when a real timer fires a little early.
 *
 * @param factor virtual milliseconds per real millisecond, e.g. 100.
 * @param start the virtual time at creation (default `Date.now()`).
 */
export function createScaledScheduler(factor: number, start: number = Date.now()): ScaledScheduler {
  if (!(Number.isFinite(factor) && factor > 0)) throw new RangeError(`factor must be a positive number, got ${factor}`);
  const origin = performance.now();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let floor = start;
  const now = (): number => {
    floor = Math.max(floor, start + (performance.now() - origin) * factor);
    return floor;
  };
  return {
    factor,
    get pending() {
      return timers.size;
    },
    now,
    setTimeout(callback: () => void, ms: number): unknown {
      const due = now() + Math.max(0, ms);
      const handle = setTimeout(() => {
        timers.delete(handle);
        floor = Math.max(floor, due);
        callback();
      }, Math.max(0, ms) / factor);
      timers.add(handle);
      return handle;
    },
    clearTimeout(handle: unknown): void {
      const timer = handle as ReturnType<typeof setTimeout>;
      if (!timers.delete(timer)) return;
      clearTimeout(timer);
    },
  };
}
