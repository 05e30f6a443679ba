/** An opaque timer handle. */
export type TimerHandle = unknown;

/**
 * Time as Tether sees it: the clock and timers are injected so tests can run "ten minutes of
 * silence" in milliseconds and so nothing depends on the host's globals.
 */
export interface Scheduler {
  /** The wall clock (epoch ms): for timestamps written to records and events. It may step either way. */
  now(): number;
  /**
   * A clock that never steps (ms from any origin), for local deadlines: leases, retry budgets, timeouts,
   * probes, poll cadences (G14). Left out: `now()` serves (a scheduler of your own, e.g. a test's manual
   * clock, whose time only moves forward).
   */
  monotonic?(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock and timers; deadlines on `performance.now()`. */
export const realScheduler: Scheduler = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};


/**
 * Waits `ms` on the scheduler; resolves early with `false` if the signal aborts (never rejects),
 * `true` when the time elapsed. The timer and the listener are always released.
 */
export function sleep(scheduler: Scheduler, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      scheduler.clearTimeout(handle);
      resolve(false);
    };
    const handle = scheduler.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
