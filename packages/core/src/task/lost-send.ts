import { TetherError } from '../errors/tether-error.js';
import type { Message, StreamEvent, Task } from '../model/types.js';
import type { EventStream } from '../transport/event-stream.js';
import { Backoff } from '../util/backoff.js';
import { sleep } from '../util/scheduler.js';
import type { EngineContext } from './engine-context.js';
import { reconnectable } from './recoverable.js';

const LOOKBACK_MS = 10 * 60_000;
const MAX_PAGES = 5;

/**
 * After a send whose answer was lost (the request may have reached the agent), looks for the
 * task that message created or continued, so nothing is sent twice (G6):
 * - a reply (`taskId` set): GetTask with history, and look for the message id;
 * - a new task on a v1.0 agent: ListTasks (recent first) and look for the message id in histories;
 * - a new task on a v0.3 agent: nothing to look with (no ListTasks) — `undefined`, and the send is
 *   repeated with the same message id, which agents may deduplicate.
 *
 * `undefined` means "looked `lostSendLookups` times and it is not there". A lookup that failed
 * transiently (a 503, a dropped connection) proves nothing, so it is repeated with backoff instead of
 * counted; when that budget runs out, this throws `RETRY_EXHAUSTED` rather than risk sending twice.
 */
export async function findDelivered(context: EngineContext, message: Message): Promise<Task | undefined> {
  const { client, resilience, scheduler } = context;
  const has = (task: Task): boolean => task.history.some((m) => m.messageId === message.messageId);
  const backoff = new Backoff(resilience, scheduler, context.random);
  for (let looked = 0; looked < resilience.lostSendLookups; ) {
    try {
      if (message.taskId !== undefined) {
        const task = await client.getTask(message.taskId, { historyLength: 1000 });
        if (has(task)) return task;
      } else if (client.interface.protocolVersion === '1.0') {
        let pageToken: string | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          const result = await client.listTasks({
            contextId: message.contextId,
            statusTimestampAfter: new Date(scheduler.now() - LOOKBACK_MS).toISOString(),
            pageSize: 100,
            pageToken,
          });
          const found = result.tasks.find(has);
          if (found) return found;
          if (!result.nextPageToken) break;
          pageToken = result.nextPageToken;
        }
      } else {
        return undefined;
      }
    } catch (error) {
      if (!reconnectable(error)) return undefined;
      const decision = backoff.next(error.retryAfterMs);
      if (!decision.retry) {
        throw new TetherError('RETRY_EXHAUSTED', `could not find out whether message ${message.messageId} was delivered (${decision.reason}): ${error.message}`, {
          taskId: message.taskId,
          cause: error,
        });
      }
      await sleep(scheduler, decision.delayMs);
      continue; // not a look: nothing was learned
    }
    looked++;
    // The agent may still be creating the task: look again shortly.
    await sleep(scheduler, 100 * looked);
  }
  return undefined;
}

/**
 * Sends (through `attempt`) until it succeeds: a transient failure that surely never reached the
 * agent is retried at once with backoff; one that may have reached it is first reconciled
 * (`reconcile` returns `true` when the message turned out to be delivered). Retries reuse the
 * same message, hence the same message id.
 */
export async function retrySend(
  context: EngineContext,
  message: Message,
  attempt: () => Promise<void>,
  reconcile: () => Promise<boolean>,
): Promise<void> {
  const backoff = new Backoff(context.resilience, context.scheduler, context.random);
  for (;;) {
    try {
      await attempt();
      return;
    } catch (error) {
      if (!reconnectable(error)) throw error;
      if (error.maybeDelivered && (await reconcile())) return;
      const decision = backoff.next(error.retryAfterMs);
      if (!decision.retry) {
        throw new TetherError('RETRY_EXHAUSTED', `gave up sending message ${message.messageId} after ${decision.reason}: ${error.message}`, {
          taskId: message.taskId,
          cause: error,
        });
      }
      await sleep(context.scheduler, decision.delayMs);
    }
  }
}

/**
 * The first event of a stream a send opened. The agent answered (headers came), but a stream that
 * then stays silent cannot be probed — the task may not even be known yet — so after `idleProbeMs`
 * without an event it is given up like a send whose answer was lost (`TIMEOUT`, maybe delivered):
 * `retrySend` then looks for the task before sending again.
 */
export async function firstEvent(
  context: EngineContext,
  stream: EventStream,
  iterator: AsyncIterator<StreamEvent>,
): Promise<IteratorResult<StreamEvent>> {
  const ms = context.resilience.idleProbeMs;
  if (!(ms > 0)) return iterator.next();
  let silent = false;
  const timer = context.scheduler.setTimeout(() => {
    silent = true;
    stream.abort();
  }, ms);
  let result: IteratorResult<StreamEvent>;
  try {
    result = await iterator.next();
  } catch (error) {
    if (!silent) throw error;
    throw new TetherError('TIMEOUT', `no event within ${ms} ms of opening the stream`, { cause: error });
  } finally {
    context.scheduler.clearTimeout(timer);
  }
  if (silent) throw new TetherError('TIMEOUT', `no event within ${ms} ms of opening the stream`);
  return result;
}
