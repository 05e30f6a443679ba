/** The clock-and-timers interface Tether's task engine takes (structurally identical to `Scheduler` of @a2a-tether/core). */
export interface SchedulerLike {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

const realTick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 1));

/**
 * A scheduler whose clock only moves when the test says so: pass it as `connect(url, { scheduler })`
 * to run "ten minutes of silence" or a long backoff in milliseconds. Real I/O still runs: between timers,
 * `advance` yields to the event loop so requests started by a timer can complete.
 */
export class ManualScheduler implements SchedulerLike {
  private time = 1_700_000_000_000;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.time + Math.max(0, ms), seq: id, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves the clock forward by `ms`, firing due timers in order and letting real I/O run between them. */
  async advance(ms: number, ioTicks = 5): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      for (let i = 0; i < ioTicks; i++) await realTick();
      const due = [...this.timers.values()].filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers.delete(due.seq);
      this.time = Math.max(this.time, due.at);
      due.callback();
    }
    this.time = end;
    for (let i = 0; i < ioTicks; i++) await realTick();
  }
}
