import { sleep, type Scheduler } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';

/**
 * The request-rate ceiling of one followed task: at most `max` requests in any window of `windowMs`,
 * whatever the agent does. Every request the engine makes on its own (subscribe, GetTask, a re-sent
 * message) waits here; the events of a live stream are not requests.
 *
 * Requests are paced, not batched: a small burst (2) goes at once, and then one request every
 * `windowMs / (max - 2)` (556 ms with the defaults) — a token bucket whose burst plus refill over any
 * window is exactly `max`. So no request waits more than one interval, where a plain window would let
 * `max` requests through at once and then make the next wait out the rest of the window (a resume that
 * took ~8 s after twenty quick cuts). The window itself is still checked, as the hard ceiling.
 */
export class RequestLimiter {
  private readonly times: number[] = [];
  private readonly burst: number;
  /** Tokens per ms (0: the window alone paces). */
  private readonly rate: number;
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly scheduler: Scheduler,
  ) {
    this.burst = Math.max(1, Math.min(2, max - 1));
    this.rate = max > this.burst ? (max - this.burst) / windowMs : 0;
    this.tokens = this.burst;
    this.refilledAt = monotonicNow(scheduler);
  }

  private refill(now: number): void {
    if (this.rate > 0) this.tokens = Math.min(this.burst, this.tokens + (now - this.refilledAt) * this.rate);
    this.refilledAt = now;
  }

  /** How long the next request must wait (0 = now). */
  waitMs(): number {
    const now = monotonicNow(this.scheduler);
    this.refill(now);
    const windowWait = this.times.length < this.max ? 0 : Math.max(0, (this.times[0] as number) + this.windowMs - now);
    const tokenWait = this.rate === 0 || this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) / this.rate);
    return Math.max(windowWait, tokenWait);
  }

  /**
   * Waits until a request fits under the ceiling, then counts it. Resolves `false` (without
   * counting) if the signal aborts first.
   */
  async acquire(signal?: AbortSignal): Promise<boolean> {
    for (;;) {
      const wait = this.waitMs();
      if (wait === 0) break;
      if (!(await sleep(this.scheduler, wait, signal))) return false;
    }
    if (signal?.aborted) return false;
    if (this.rate > 0) this.tokens = Math.max(0, this.tokens - 1);
    this.times.push(monotonicNow(this.scheduler));
    if (this.times.length > this.max) this.times.shift();
    return true;
  }
}
