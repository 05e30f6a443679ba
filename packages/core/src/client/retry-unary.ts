import pRetry from 'p-retry';
import { DEFAULTS } from '../defaults.js';
import { A2AError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import { sleep, type Scheduler } from '../util/scheduler.js';

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
 * Runs an idempotent unary call (each attempt with its own `timeoutMs`), retrying transient
 * failures up to `maxRetries` times with p-retry's backoff, after waiting out any `Retry-After`.
 * Only for calls that are safe to repeat: a send is never retried here (the task engine
 * reconciles a lost send before any second one), and the engine's own calls bypass this.
 *
 * @throws the last attempt's error; `ABORTED` when the caller's signal fires between attempts;
 *   `INVALID_ARGUMENT` for a `maxRetries` that is not a non-negative integer.
 */
export async function retryUnary<T>(attempt: () => Promise<T>, options: UnaryRetryOptions): Promise<T> {
  const { maxRetries, signal } = options;
  checkMaxRetries(maxRetries, options.operation);
  // Nothing to retry: the attempt itself reports an abort precisely (method, URL, nothing sent).
  if (maxRetries === 0 || signal?.aborted) return attempt();
  let last: TetherError | undefined;
  let maybeDelivered = false;
  try {
    return await pRetry(attempt, {
      retries: maxRetries,
      minTimeout: DEFAULTS.retryDelayMs.min,
      maxTimeout: DEFAULTS.retryDelayMs.max,
      factor: 2,
      randomize: true,
      signal,
      shouldRetry: ({ error }) => isRetriable(error),
      // p-retry calls this before it decides, so wait only when a retry will follow.
      onFailedAttempt: async ({ error, retriesLeft }) => {
        if (error instanceof TetherError) {
          last = error;
          maybeDelivered ||= error.maybeDelivered;
        }
        if (retriesLeft > 0 && isRetriable(error) && error.retryAfterMs) {
          await sleep(options.scheduler, error.retryAfterMs, signal);
        }
      },
    });
  } catch (error) {
    // p-retry rethrows the signal's reason when the abort came between attempts.
    if (signal?.aborted && error === signal.reason) {
      throw new TetherError('ABORTED', 'aborted by the caller while waiting to retry', {
        operation: options.operation,
        method: last?.method,
        url: last?.url,
        taskId: last?.taskId,
        cause: signal.reason,
        maybeDelivered,
      });
    }
    throw error;
  }
}
