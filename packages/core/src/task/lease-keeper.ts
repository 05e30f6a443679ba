import { DEFAULTS } from '../defaults.js';
import type { StoreLease } from '../store/task-store.js';
import type { Scheduler, TimerHandle } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';
import type { LeaseRunner } from './follow-context.js';

/**
 * Keeps one task's lease while the task is driven (a store that leases tasks: several processes share
 * it). Renews every quarter of the lease's TTL; calls `lost(why)` — once — when a renewal is refused,
 * or when none was confirmed within two thirds of the TTL, on this process's monotonic clock (a wall
 * clock stepped back must not stretch it), counted from when the last confirmed renewal was sent. A process cut off from the store (its renewals hang or fail)
 * therefore stops before the store can let the lease pass to another process, which it can only do a
 * whole TTL after the last renewal it applied.
 */
export class LeaseKeeper implements LeaseRunner {
  private renewTimer: TimerHandle | undefined;
  private deadline: TimerHandle | undefined;
  private stopped = false;

  /**
   * Starts keeping `lease`, asked for at `askedAt` (this process's monotonic clock: `monotonicNow`). The lease's fencing token
   * stays readable after it was lost: writes of a former holder carry it and are refused.
   */
  constructor(
    readonly lease: StoreLease,
    askedAt: number,
    private readonly scheduler: Scheduler,
    private readonly lost: (why: string) => void,
  ) {
    const ttl = lease.ttlMs ?? DEFAULTS.leaseMs;
    const every = Math.max(1, Math.floor(ttl / 4));
    const grace = Math.max(1, Math.floor((ttl * 2) / 3));
    let confirmed = askedAt;
    const armDeadline = (): void => {
      if (this.deadline !== undefined) scheduler.clearTimeout(this.deadline);
      this.deadline = scheduler.setTimeout(() => {
        this.deadline = undefined;
        if (this.stopped) return;
        if (monotonicNow(scheduler) - confirmed >= grace) this.lose(`no renewal of its lease was confirmed within ${grace} ms (the store is unreachable?)`);
        else armDeadline();
      }, Math.max(1, confirmed + grace - monotonicNow(scheduler)));
    };
    const renew = (): void => {
      this.renewTimer = undefined;
      const asked = monotonicNow(scheduler);
      void lease.renew().then(
        (held) => {
          if (this.stopped) return;
          if (!held) {
            this.lose('its lease expired or passed to another process');
            return;
          }
          confirmed = Math.max(confirmed, asked);
          this.renewTimer = scheduler.setTimeout(renew, every);
        },
        () => {
          // The store could not be asked: try again; the deadline stops the follow if none succeeds in time.
          if (!this.stopped) this.renewTimer = scheduler.setTimeout(renew, every);
        },
      );
    };
    this.renewTimer = scheduler.setTimeout(renew, every);
    armDeadline();
  }

  /** The lease's fencing token (every write of the task carries it, also after the lease was lost). */
  get fence(): number | undefined {
    return this.lease.fence;
  }

  /** Stops renewing and watching (the lease is not released: see {@link release}). */
  stop(): void {
    this.stopped = true;
    if (this.renewTimer !== undefined) this.scheduler.clearTimeout(this.renewTimer);
    if (this.deadline !== undefined) this.scheduler.clearTimeout(this.deadline);
    this.renewTimer = undefined;
    this.deadline = undefined;
  }

  /** Stops, and gives the lease back once `after` settled (the last record write: the next holder reads it whole). */
  release(after: Promise<unknown>): void {
    this.stop();
    void after
      .catch(() => undefined)
      .then(() => this.lease.release())
      .catch(() => undefined);
  }

  private lose(why: string): void {
    this.stop();
    this.lost(why);
  }
}
