import { performance } from 'node:perf_hooks';
import type { SchedulerLike } from './manual-scheduler.js';

/** A scheduler on real timers whose clock runs `factor` times faster than the real one. */
export interface ScaledScheduler extends SchedulerLike {
  /** Virtual milliseconds per real millisecond. */
  readonly factor: number;
  /** Timers set and not yet fired or cleared. */
  readonly pending: number;
  /** Real milliseconds the process was stalled and that the virtual clock skipped. */
  readonly stalledMs: number;
}

/** Options of {@link createScaledScheduler}. */
export interface ScaledSchedulerOptions {
  /**
   * A gap of more than this many real milliseconds in which the event loop ran nothing (a stalled,
   * starved process) does not advance the virtual clock beyond this much. Default 50. `Infinity`
   * turns it off.
   */
  maxGapMs?: number | undefined;
}

/**
 * Real timers, fast virtual time: `now()` is `start + elapsed × factor` and `setTimeout(cb, ms)` waits
 * `ms / factor` real milliseconds. Pass it as `connect(url, { scheduler })` to run minutes of backoff,
 * idle probes and polling against a real agent in seconds, with real I/O in between (unlike
 * {@link ManualScheduler}, nobody has to advance it).
 *
 * A starved process would otherwise turn a 300 ms stall into 30 s of virtual time (at ×100) and fire
 * every timeout at once: real time in which the event loop ran nothing for longer than `maxGapMs` is not
 * counted (a light monitor observes the loop every 10 ms), and a timer whose real wait ended before its
 * virtual due time waits on for the rest.
 *
 * The clock never goes backwards, and when a timer fires `now()` is at least its due time.
 *
 * @param factor virtual milliseconds per real millisecond, e.g. 100.
 * @param start the virtual time at creation (default `Date.now()`).
 */
export function createScaledScheduler(factor: number, start: number = Date.now(), options: ScaledSchedulerOptions = {}): ScaledScheduler {
  if (!(Number.isFinite(factor) && factor > 0)) throw new RangeError(`factor must be a positive number, got ${factor}`);
  const maxGapMs = options.maxGapMs ?? 50;
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  let seq = 0;
  let last = performance.now();
  let counted = 0; // real milliseconds the virtual clock counts
  let stalled = 0;
  let floor = start;
  const observe = (): void => {
    const at = performance.now();
    const gap = at - last;
    last = at;
    const counts = Math.min(gap, maxGapMs);
    counted += counts;
    stalled += gap - counts;
  };
  const monitor = setInterval(observe, 10);
  monitor.unref();
  const now = (): number => {
    observe();
    floor = Math.max(floor, start + counted * factor);
    return floor;
  };
  const arm = (id: number, due: number, callback: () => void): void => {
    const handle = setTimeout(
      () => {
        if (now() < due) {
          arm(id, due, callback); // a stall was not counted: wait for the rest
          return;
        }
        timers.delete(id);
        floor = Math.max(floor, due);
        callback();
      },
      Math.max(0, due - now()) / factor,
    );
    timers.set(id, handle);
  };
  return {
    factor,
    get pending() {
      return timers.size;
    },
    get stalledMs() {
      return stalled;
    },
    now,
    setTimeout(callback: () => void, ms: number): unknown {
      const id = ++seq;
      arm(id, now() + Math.max(0, ms), callback);
      return id;
    },
    clearTimeout(handle: unknown): void {
      const timer = timers.get(handle as number);
      if (timer === undefined) return;
      timers.delete(handle as number);
      clearTimeout(timer);
    },
  };
}
