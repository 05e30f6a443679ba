import { sleep, type Scheduler } from '../util/scheduler.js';

/**
 * The request-rate ceiling of one followed task: at most `max` requests in any window of
 * `windowMs`, whatever the agent does (a sliding window over the last `max` request times).
 * Every request the engine makes on its own (subscribe, GetTask, a re-sent message) waits here;
 * the events of a live stream are not requests.
 */
export class RequestLimiter {
  private readonly times: number[] = [];

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly scheduler: Scheduler,
  ) {}

  /** How long the next request must wait (0 = now). */
  waitMs(): number {
    if (this.times.length < this.max) return 0;
    return Math.max(0, (this.times[0] as number) + this.windowMs - this.scheduler.now());
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
    this.times.push(this.scheduler.now());
    if (this.times.length > this.max) this.times.shift();
    return true;
  }
}
