import { A2AError, MethodNotFoundError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import type { Message, Task } from '../model/types.js';
import { sleep } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';
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

/**
 * A message sent again with the same `messageId` (G6), as `onResend` is told before it leaves: the
 * caller's record of what was sent (a workflow writes it into its ledger).
 */
export interface Resend {
  /** The message's id: the same on every send of it. */
  messageId: string;
  /** The creating send (`client.start()`), or a `reply()`. */
  purpose: 'start' | 'reply';
  /** Which send of the message this is: 2 for the first send again. */
  attempt: number;
  /**
   * Why it is sent again: the previous send surely never reached the agent (`not-delivered`: a
   * connect-phase failure, HTTP 429 / 503), or its fate stayed unknown after the lookup and the agent is
   * said to deduplicate by message id (`unknown`: only with `resendUnknownDeliveries`).
   */
  reason: 'not-delivered' | 'unknown';
  /** How the previous send failed. */
  error: TetherError;
}

const MAX_PAGES = 5;
/** The wait after the first fruitless look; it doubles up to {@link MAX_LOOK_GAP_MS}. */
const FIRST_LOOK_GAP_MS = 250;
const MAX_LOOK_GAP_MS = 2_000;

/**
 * After a send whose answer was lost, looks for the task the message created or continued, so
 * nothing is sent twice:
 * - a reply (`taskId` set): GetTask with history, looking for the message id;
 * - a new task on an agent with ListTasks (v1.0): recent tasks, looking for the message id in their histories;
 * - a new task elsewhere (v0.3): nothing can tell.
 *
 * An agent may store the task (or the reply) seconds after it took the message, so one "not there" proves
 * nothing: it looks on for `lostSendLookupMs`, 250 ms apart at first, doubling up to 2 s, each look
 * through the request-rate ceiling. When nothing was found — or nothing can look — it throws
 * `DELIVERY_UNKNOWN`, unless the caller said the agent deduplicates by message id
 * (`resendUnknownDeliveries`): then `undefined` (send again). A look that failed transiently proves
 * nothing and is repeated with backoff; when that budget runs out this throws `RETRY_EXHAUSTED`.
 */
export async function findDelivered(
  context: FollowContext,
  message: Message,
  limiter: RequestLimiter,
  signal: AbortSignal,
): Promise<Task | undefined> {
  const { client, resilience, scheduler } = context;
  if (message.taskId === undefined && !client.agent.listTasks) {
    return unknown(context, message, 'this agent offers no way to look for the task it may have created (no ListTasks)');
  }
  const has = (task: Task): boolean => task.history.some((m) => m.messageId === message.messageId);
  const budget = new RetryBudget(resilience, scheduler, context.random);
  const deadline = monotonicNow(scheduler) + resilience.lostSendLookupMs;
  let gap = FIRST_LOOK_GAP_MS;
  let looks = 0;
  for (;;) {
    if (!(await limiter.acquire(signal))) throw aborted(message);
    try {
      if (message.taskId !== undefined) {
        const task = await client.getTask(message.taskId, { historyLength: 1000, signal });
        if (has(task)) return task;
      } else {
        let pageToken: string | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          // Newest status first (v1.0), and no time filter: it would compare this client's clock with the
          // agent's timestamps, and agents' clocks skew (a task stamped a year back was never found).
          const result = await client.listTasks(
            {
              contextId: message.contextId,
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
      if (message.taskId === undefined && error instanceof MethodNotFoundError) {
        return unknown(context, message, 'this agent offers no way to look for the task it may have created (ListTasks: method not found)');
      }
      if (!(error instanceof TetherError) || error instanceof A2AError || !error.isRetryable) throw error;
      const decision = budget.fail(error.retryAfterMs);
      if (!decision.retry) {
        throw new TetherError(
          'RETRY_EXHAUSTED',
          `could not find out whether message ${message.messageId} was delivered (${decision.reason}): ${error.message}`,
          { taskId: message.taskId, messageId: message.messageId, cause: error },
        );
      }
      if (!(await sleep(scheduler, decision.delayMs, signal))) throw aborted(message);
      continue; // not a look: nothing was learned
    }
    looks++;
    // Not there (yet): the agent may still be storing it. Look again until the budget is spent.
    const left = deadline - monotonicNow(scheduler);
    if (left <= 0) {
      return unknown(context, message, `it was not found in ${looks} look${looks === 1 ? '' : 's'} over ${resilience.lostSendLookupMs} ms (lostSendLookupMs)`);
    }
    if (!(await sleep(scheduler, Math.min(gap, left), signal))) throw aborted(message);
    gap = Math.min(gap * 2, MAX_LOOK_GAP_MS);
  }
}

/** Nothing showed whether the message arrived: send again only where the caller said the agent deduplicates. */
function unknown(context: FollowContext, message: Message, why: string): undefined {
  if (context.resilience.resendUnknownDeliveries) return undefined;
  throw new TetherError('DELIVERY_UNKNOWN', `the answer to message ${message.messageId} was lost and ${why}; it was not sent again`, {
    taskId: message.taskId,
    messageId: message.messageId,
    maybeDelivered: true,
  });
}

function aborted(message: Message): TetherError {
  return new TetherError('ABORTED', `stopped while looking for message ${message.messageId}`, {
    taskId: message.taskId,
    messageId: message.messageId,
    maybeDelivered: true,
  });
}
