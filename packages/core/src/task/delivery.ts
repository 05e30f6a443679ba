import { A2AError, MethodNotFoundError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import type { Message, Task } from '../model/types.js';
import { sleep } from '../util/scheduler.js';
import type { FollowContext } from './follow-context.js';
import type { RequestLimiter } from './request-limiter.js';
import { RetryBudget } from './retry-budget.js';

/**
 * What a failed send says about the message (G6, seed 003):
 * - `not-delivered`: it surely never reached the agent (a connect-phase failure, or an HTTP 429 / 503
 *   answer — the agent refused before acting): send it again;
 * - `unknown`: it may have (a reset after the request was sent, a timeout, a 5xx other than 503, a
 *   stream that ended or went silent before its first event): look for it before any second send;
 * - `answered`: the agent answered — with an error, or with something unreadable — so it is not sent
 *   again.
 */
export type SendVerdict = 'not-delivered' | 'unknown' | 'answered';

export function sendVerdict(error: unknown): SendVerdict {
  if (!(error instanceof TetherError) || error instanceof A2AError) return 'answered';
  switch (error.code) {
    case 'MALFORMED_EVENT':
    case 'EVENT_TOO_LARGE':
    case 'PROTOCOL_VIOLATION':
    case 'INVALID_RESPONSE':
    case 'UNEXPECTED_CONTENT_TYPE':
      return 'answered';
  }
  // A local failure (an invalid argument, a blocked port) never reached the agent, but sending it again
  // would fail the same way: only a transient one is worth another send.
  if (!error.maybeDelivered) return error.isRetryable ? 'not-delivered' : 'answered';
  return error.isRetryable ? 'unknown' : 'answered';
}

const LOOKBACK_MS = 10 * 60_000;
const MAX_PAGES = 5;

/**
 * After a send whose answer was lost, looks for the task the message created or continued, so
 * nothing is sent twice:
 * - a reply (`taskId` set): GetTask with history, looking for the message id;
 * - a new task on an agent with ListTasks (v1.0): recent tasks, looking for the message id in their histories;
 * - a new task elsewhere (v0.3): nothing can tell — `DELIVERY_UNKNOWN`, unless the caller said the agent
 *   deduplicates by message id (`resendUnknownDeliveries`), then `undefined` (send again).
 *
 * `undefined` means "looked `lostSendLookups` times and it is not there". A look that failed
 * transiently proves nothing and is repeated with backoff instead of counted; when that budget runs
 * out this throws `RETRY_EXHAUSTED` rather than risk sending twice.
 */
export async function findDelivered(
  context: FollowContext,
  message: Message,
  limiter: RequestLimiter,
  signal: AbortSignal,
): Promise<Task | undefined> {
  const { client, resilience, scheduler } = context;
  if (message.taskId === undefined && !client.agent.listTasks) return unknowable(context, message);
  const has = (task: Task): boolean => task.history.some((m) => m.messageId === message.messageId);
  const budget = new RetryBudget(resilience, scheduler, context.random);
  for (let looked = 0; looked < resilience.lostSendLookups; ) {
    if (!(await limiter.acquire(signal))) throw aborted(message);
    try {
      if (message.taskId !== undefined) {
        const task = await client.getTask(message.taskId, { historyLength: 1000, signal });
        if (has(task)) return task;
      } else {
        let pageToken: string | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          const result = await client.listTasks(
            {
              contextId: message.contextId,
              statusTimestampAfter: new Date(scheduler.now() - LOOKBACK_MS).toISOString(),
              pageSize: 100,
              historyLength: 100,
              includeArtifacts: true,
              pageToken,
            },
            { signal },
          );
          const found = result.tasks.find(has);
          if (found) return found;
          if (!result.nextPageToken) break;
          pageToken = result.nextPageToken;
          if (!(await limiter.acquire(signal))) throw aborted(message);
        }
      }
    } catch (error) {
      if (signal.aborted) throw aborted(message);
      // An agent whose card says v1.0 but that has no ListTasks after all.
      if (message.taskId === undefined && error instanceof MethodNotFoundError) return unknowable(context, message);
      if (!(error instanceof TetherError) || error instanceof A2AError || !error.isRetryable) throw error;
      const decision = budget.fail(error.retryAfterMs);
      if (!decision.retry) {
        throw new TetherError(
          'RETRY_EXHAUSTED',
          `could not find out whether message ${message.messageId} was delivered (${decision.reason}): ${error.message}`,
          { taskId: message.taskId, messageId: message.messageId, cause: error },
        );
      }
      await sleep(scheduler, decision.delayMs, signal);
      continue; // not a look: nothing was learned
    }
    looked++;
    // The agent may still be creating the task: look again shortly.
    if (looked < resilience.lostSendLookups) await sleep(scheduler, 100 * looked, signal);
  }
  return undefined;
}

/** Nothing can show whether the message arrived: resend only where the caller said the agent deduplicates. */
function unknowable(context: FollowContext, message: Message): undefined {
  if (context.resilience.resendUnknownDeliveries) return undefined;
  throw new TetherError(
    'DELIVERY_UNKNOWN',
    `the answer to message ${message.messageId} was lost and this agent offers no way to look for the task it may have created (no ListTasks); it was not sent again`,
    { messageId: message.messageId },
  );
}

function aborted(message: Message): TetherError {
  return new TetherError('ABORTED', `stopped while looking for message ${message.messageId}`, {
    taskId: message.taskId,
    messageId: message.messageId,
    maybeDelivered: true,
  });
}
