import type { Scheduler } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';

/** Backoff settings (see `RESILIENCE_DEFAULTS`). */
export interface RetryBudgetOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  factor: number;
  /** Failed attempts in a row before giving up. */
  maxAttempts: number;
  /** Time from the first failure of a streak before giving up (ms). */
  maxElapsedMs: number;
}

/** What the budget decided after a failure. */
export type RetryDecision =
  | { retry: true; delayMs: number; attempt: number }
  | { retry: false; reason: string; attempt: number };

/**
 * A streak of failures and what it may still spend: full-jitter exponential backoff
 * (delay = random × min(cap, initial × factor^(n−1))) with `Retry-After` as a floor, and two
 * budgets — attempts, and time since the streak's first failure. Only {@link reset} ends a streak,
 * and the engine calls it only on progress (the task moved) or a healthy answer (a poll or probe
 * that reached the agent): an agent that answers every reconnect with the same replay never
 * refills it.
 */
export class RetryBudget {
  private failures = 0;
  private streakStart: number | undefined;

  constructor(
    private readonly options: RetryBudgetOptions,
    private readonly scheduler: Scheduler,
    private readonly random: () => number,
  ) {}

  /** Failures in the current streak. */
  get attempt(): number {
    return this.failures;
  }

  /** Ends the streak. */
  reset(): void {
    this.failures = 0;
    this.streakStart = undefined;
  }

  /** Records a failure and says whether (and after how long) to try again. */
  fail(retryAfterMs?: number): RetryDecision {
    const now = monotonicNow(this.scheduler);
    this.streakStart ??= now;
    const attempt = ++this.failures;
    if (attempt > this.options.maxAttempts) {
      return { retry: false, attempt, reason: `${this.options.maxAttempts} failed attempts in a row` };
    }
    const ceiling = Math.min(this.options.maxDelayMs, this.options.initialDelayMs * this.options.factor ** (attempt - 1));
    const delayMs = Math.max(Math.floor(this.random() * ceiling), retryAfterMs ?? 0);
    if (now - this.streakStart + delayMs > this.options.maxElapsedMs) {
      return { retry: false, attempt, reason: `${this.options.maxElapsedMs} ms of failures` };
    }
    return { retry: true, delayMs, attempt };
  }
}
