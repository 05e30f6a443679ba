import { DEFAULTS } from '../defaults.js';
import { A2AError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import { realScheduler, sleep, type Scheduler } from '../util/scheduler.js';

/** How {@link retryUnary} runs one call. */
export interface UnaryRetryOptions {
  /** The A2A operation, for the error of an abort between attempts. */
  operation: string;
  /** Retries after the first attempt (0: one attempt). */
  maxRetries: number;
  /** Where `Retry-After` is waited out (the client's injected clock and timers). */
  scheduler: Scheduler;
  /** The caller's signal: an abort stops at once, between attempts too. */
  signal?: AbortSignal | undefined;
}

/** Worth repeating as is: a local failure that says so; never an answer from the agent. */
function isTransient(error: unknown): error is TetherError {
  return error instanceof TetherError && !(error instanceof A2AError) && error.isRetryable;
}

/** A transient failure whose `Retry-After` (if any) is short enough to wait out. */
function isRetriable(error: unknown): error is TetherError {
  return isTransient(error) && (error.retryAfterMs ?? 0) <= DEFAULTS.maxRetryAfterMs;
}

/** Refuses a retry count that is not a non-negative integer (an unbounded loop is never wanted). */
export function checkMaxRetries(maxRetries: number, operation: string): void {
  if (Number.isInteger(maxRetries) && maxRetries >= 0) return;
  throw new TetherError('INVALID_ARGUMENT', `maxRetries must be a non-negative integer, not ${maxRetries}`, { operation });
}

/**
 * The wait before retry `retry` (0 for the first): `min` doubling per retry, times a random factor in
 * [1, 2), at most `max` — the waits p-retry made before this loop replaced it.
 */
function backoffMs(retry: number): number {
  const { min, max } = DEFAULTS.retryDelayMs;
  return Math.min(Math.round((Math.random() + 1) * min * 2 ** retry), max);
}

/**
 * Runs an idempotent unary call (each attempt with its own `timeoutMs`), retrying transient
 * failures up to `maxRetries` times with a randomized exponential backoff, after waiting out any
 * `Retry-After`. Only for calls that are safe to repeat: a send is never retried here (the task engine
 * reconciles a lost send before any second one), and the engine's own calls bypass this.
 *
 * @throws the last attempt's error; `ABORTED` when the caller's signal fires between attempts;
 *   `INVALID_ARGUMENT` for a `maxRetries` that is not a non-negative integer.
 */
export async function retryUnary<T>(attempt: (retry: number) => Promise<T>, options: UnaryRetryOptions): Promise<T> {
  const { maxRetries, signal } = options;
  checkMaxRetries(maxRetries, options.operation);
  // Nothing to retry: the attempt itself reports an abort precisely (method, URL, nothing sent).
  if (maxRetries === 0 || signal?.aborted) return attempt(0);
  let last: TetherError | undefined;
  let maybeDelivered = false;
  const aborted = (): TetherError =>
    new TetherError('ABORTED', 'aborted by the caller while waiting to retry', {
      operation: options.operation,
      method: last?.method,
      url: last?.url,
      taskId: last?.taskId,
      cause: signal?.reason,
      maybeDelivered,
    });
  for (let retry = 0; ; retry++) {
    let result: T;
    try {
      result = await attempt(retry);
    } catch (error) {
      if (error instanceof TetherError) {
        last = error;
        maybeDelivered ||= error.maybeDelivered;
      }
      if (retry >= maxRetries || !isRetriable(error)) throw error;
      if (error.retryAfterMs) await sleep(options.scheduler, error.retryAfterMs, signal);
      // The backoff runs on the real clock, as it did under p-retry; only `Retry-After` waits on the injected one.
      if (!signal?.aborted) await sleep(realScheduler, backoffMs(retry), signal);
      if (signal?.aborted) throw aborted();
      continue;
    }
    // An abort during an attempt that still answered wins over the answer.
    if (signal?.aborted) throw aborted();
    return result;
  }
}
