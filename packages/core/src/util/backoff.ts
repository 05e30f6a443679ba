import type { Scheduler } from './scheduler.js';

/** Backoff settings (see `DEFAULTS.resilience`). */
export interface BackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  factor: number;
  /** Consecutive failures without progress before giving up. */
  maxAttempts: number;
  /** Time without progress before giving up (ms). */
  maxElapsedMs: number;
}

/** What the backoff decided for the next attempt. */
export type BackoffDecision = { retry: true; delayMs: number; attempt: number } | { retry: false; reason: string; attempt: number };

/**
 * Full-jitter exponential backoff (delay = random × min(cap, initial × factor^n)) with a floor from
 * `Retry-After`, and two budgets — attempts and elapsed time — both counted from the last
 * progress. `progress()` resets them: a connection that delivered events earned a fresh budget.
 */
export class Backoff {
  private attempts = 0;
  private since: number;

  constructor(
    private readonly options: BackoffOptions,
    private readonly scheduler: Scheduler,
    private readonly random: () => number,
  ) {
    this.since = scheduler.now();
  }

  /** Consecutive failures since the last progress. */
  get attempt(): number {
    return this.attempts;
  }

  progress(): void {
    this.attempts = 0;
    this.since = this.scheduler.now();
  }

  /** Records a failure and says whether (and after how long) to try again. */
  next(retryAfterMs?: number): BackoffDecision {
    this.attempts++;
    const attempt = this.attempts;
    if (attempt > this.options.maxAttempts) {
      return { retry: false, attempt, reason: `${this.options.maxAttempts} attempts without progress` };
    }
    const ceiling = Math.min(this.options.maxDelayMs, this.options.initialDelayMs * this.options.factor ** (attempt - 1));
    const delayMs = Math.max(Math.floor(this.random() * ceiling), retryAfterMs ?? 0);
    const elapsed = this.scheduler.now() - this.since;
    if (elapsed + delayMs > this.options.maxElapsedMs) {
      return { retry: false, attempt, reason: `${this.options.maxElapsedMs} ms without progress` };
    }
    return { retry: true, delayMs, attempt };
  }
}
