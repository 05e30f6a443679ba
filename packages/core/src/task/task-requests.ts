import { TaskNotFoundError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import type { Task } from '../model/types.js';
import { sleep, type Scheduler } from '../util/scheduler.js';
import { asTetherError, transient } from './classify.js';
import type { EngineClient } from './follow-context.js';
import type { RequestLimiter } from './request-limiter.js';
import type { RetryBudget } from './retry-budget.js';

/**
 * What one GetTask of the engine came to, classified: the task; `stopped` (the step was interrupted,
 * or the request ceiling's wait was); a `transient` failure a retry may mend; the task `lost` (the
 * agent no longer knows it); or a `failed` request no retry mends.
 */
export type Asked =
  | { kind: 'task'; task: Task }
  | { kind: 'stopped' }
  | { kind: 'transient'; error: TetherError }
  | { kind: 'lost'; error: TaskNotFoundError }
  | { kind: 'failed'; error: TetherError };

/** What asking for a task needs: the client, the request-rate ceiling, and the task. */
export interface TaskAsker {
  client: EngineClient;
  limiter: RequestLimiter;
  taskId: string;
}

/**
 * One GetTask through the request-rate ceiling, classified (see {@link Asked}). Never throws.
 * `currentGeneration` (v1.1 draft): a long poll — the agent may hold the answer until the task moves past it.
 */
export async function askTask(asker: TaskAsker, signal: AbortSignal, currentGeneration?: number): Promise<Asked> {
  if (!(await asker.limiter.acquire(signal))) return { kind: 'stopped' };
  try {
    return { kind: 'task', task: await asker.client.getTask(asker.taskId, { signal, currentGeneration }) };
  } catch (error) {
    if (signal.aborted) return { kind: 'stopped' };
    if (error instanceof TaskNotFoundError) return { kind: 'lost', error };
    if (transient(error)) return { kind: 'transient', error };
    return { kind: 'failed', error: asTetherError(error, asker.taskId) };
  }
}

/**
 * GetTask until it answers: transient failures are retried on `budget` (an answer resets it); a
 * spent budget throws RETRY_EXHAUSTED, any other failure throws as it is. `undefined` when `signal`
 * stopped it.
 */
export async function askTaskRetrying(asker: TaskAsker, budget: RetryBudget, scheduler: Scheduler, signal: AbortSignal): Promise<Task | undefined> {
  for (;;) {
    const asked = await askTask(asker, signal);
    switch (asked.kind) {
      case 'task':
        budget.reset();
        return asked.task;
      case 'stopped':
        return undefined;
      case 'transient': {
        const decision = budget.fail(asked.error.retryAfterMs);
        if (!decision.retry) {
          throw new TetherError('RETRY_EXHAUSTED', `gave up asking for task ${asker.taskId} after ${decision.reason}: ${asked.error.message}`, {
            taskId: asker.taskId,
            cause: asked.error,
          });
        }
        if (!(await sleep(scheduler, decision.delayMs, signal))) return undefined;
        break;
      }
      default:
        throw asked.error;
    }
  }
}
