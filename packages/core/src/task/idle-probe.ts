import type { Scheduler, TimerHandle } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';

/**
 * Fires once a live stream has been silent for `ms` (A2A agents send no heartbeats, so silence
 * is not death: the engine then asks the agent with GetTask whether it moved past the stream).
 * Events only record the time; one timer per silence window re-arms itself for what is left of
 * the window, so a busy stream costs no timer per event.
 */
export class IdleTimer {
  private timer: TimerHandle | undefined;
  private last = 0;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly ms: number,
    private readonly onSilence: () => void,
  ) {}

  /** Starts a silence window now (0 ms disables the probe). */
  start(): void {
    this.last = monotonicNow(this.scheduler);
    if (this.timer === undefined && this.ms > 0) this.arm(this.ms);
  }

  /** Something arrived: the silence starts again from now. */
  touch(): void {
    this.last = monotonicNow(this.scheduler);
  }

  stop(): void {
    if (this.timer !== undefined) this.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = this.scheduler.setTimeout(() => this.elapsed(), ms);
  }

  private elapsed(): void {
    this.timer = undefined;
    const remaining = this.last + this.ms - monotonicNow(this.scheduler);
    if (remaining > 0) this.arm(remaining);
    else this.onSilence();
  }
}
