import type { Scheduler, TimerHandle } from '../util/scheduler.js';
import type { Breach } from './workflow-types.js';

/**
 * The workflow's budgets (its deadline, hop timeouts, pause SLAs) as named timers on the injected
 * scheduler: each reports its breach once, unless cleared first. Re-arming a name replaces its timer.
 */
export class BudgetClock {
  private readonly timers = new Map<string, TimerHandle>();

  constructor(
    private readonly scheduler: Scheduler,
    private readonly onBreach: (breach: Breach) => void,
  ) {}

  arm(name: string, ms: number, breach: Breach): void {
    this.clear(name);
    const handle = this.scheduler.setTimeout(() => {
      this.timers.delete(name);
      this.onBreach(breach);
    }, Math.max(0, ms));
    this.timers.set(name, handle);
  }

  clear(name: string): void {
    const handle = this.timers.get(name);
    if (handle === undefined) return;
    this.scheduler.clearTimeout(handle);
    this.timers.delete(name);
  }

  clearAll(): void {
    for (const handle of this.timers.values()) this.scheduler.clearTimeout(handle);
    this.timers.clear();
  }
}

export const DEADLINE = 'deadline';

export function hopBudget(node: string, attempt: number): string {
  return `hop:${node}#${attempt}`;
}

export function pauseBudget(pause: string): string {
  return `pause:${pause}`;
}
