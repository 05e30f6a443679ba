import type { Scheduler } from './scheduler.js';

// Its own module: only the task engine reads it, so it loads with the engine, not before a web app's
// first request.

/** The scheduler's clock for local deadlines (G14): `monotonic()`, or `now()` when it has none. */
export function monotonicNow(scheduler: Scheduler): number {
  return scheduler.monotonic ? scheduler.monotonic() : scheduler.now();
}
