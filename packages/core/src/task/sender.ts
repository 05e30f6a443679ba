import { TetherError } from '../errors/tether-error.js';
import type { Message, SendResult, Task } from '../model/types.js';
import type { EventFeed, StreamItem } from '../transport/event-feed.js';
import type { SendOptions } from '../transport/transport.js';
import { sleep } from '../util/scheduler.js';
import { asTetherError, taskIdOf } from './classify.js';
import { findDelivered, sendVerdict, type Resend } from './delivery.js';
import type { FollowContext } from './follow-context.js';
import type { RequestLimiter } from './request-limiter.js';
import { RetryBudget } from './retry-budget.js';
import { openInSlot } from './stream-slots.js';

/** One message to deliver: the creating send (`start`) or a `reply`. */
export interface SendJob {
  message: Message;
  purpose: 'start' | 'reply';
  options: SendOptions;
  /** The agent named the task already (a reply): the first event of a stream needs not name it. */
  taskKnown: boolean;
  /** Send on a stream when a stream slot is free (else unary, `returnImmediately`). */
  stream: boolean;
}

/** What delivering one message came to. The sender never applies anything: the follow does. */
export type SendOutcome =
  /** A streamed answer: its open stream and first batch (not empty; for a new task, its first event names it). */
  | { type: 'stream'; feed: EventFeed; first: StreamItem[] }
  /** A unary answer (a Task, or a Message). */
  | { type: 'answer'; result: SendResult }
  /** The first event of a streamed answer was a Message, and no task exists: the exchange is over. */
  | { type: 'message'; message: Message }
  /** The answer was lost, but the message was found delivered (by looking): the task as it stands. */
  | { type: 'found'; task: Task }
  /** The agent answered, but with an error or a stream that cannot be read. */
  | { type: 'answered'; error: TetherError }
  /** Given up: every attempt failed (RETRY_EXHAUSTED, `maybeDelivered` says whether one may have arrived), or the lookup failed. */
  | { type: 'failed'; error: TetherError }
  /** Interrupted. */
  | { type: 'stopped' };

/**
 * Delivers one message, and never twice silently. A send that surely never reached the agent is sent
 * again (within `maxSendAttempts` and the send's own budget); one whose answer was lost is first looked
 * for (`findDelivered`), and sent again only when the agent deduplicates — `onResend` hears of every
 * send again before it leaves (G6).
 */
export async function deliverMessage(
  context: FollowContext,
  limiter: RequestLimiter,
  job: SendJob,
  onResend: (resend: Resend) => void,
  signal: AbortSignal,
): Promise<SendOutcome> {
  const { message, purpose } = job;
  const { resilience, scheduler, random } = context;
  const budget = new RetryBudget(resilience, scheduler, random);
  // Whether any attempt may have reached the agent (only a resent `unknown` can have, and give up after).
  let mayHaveArrived = false;
  for (let attempt = 1; ; attempt++) {
    try {
      if (!(job.stream && context.streamSlots.free())) {
        return { type: 'answer', result: await context.client.sendMessage(message, { ...job.options, returnImmediately: true, signal }) };
      }
      return await openAnswer(context, job, signal);
    } catch (error) {
      if (signal.aborted) return { type: 'stopped' };
      const verdict = sendVerdict(error);
      const failure = asTetherError(error, message.taskId);
      if (verdict === 'answered') return { type: 'answered', error: failure };
      if (verdict === 'unknown') {
        let found: Task | undefined;
        try {
          found = await findDelivered(context, message, limiter, signal);
        } catch (lookError) {
          if (signal.aborted) return { type: 'stopped' };
          return { type: 'failed', error: asTetherError(lookError, message.taskId) };
        }
        // A lookup's answer (ListTasks may omit what it was not asked for) is not the final word: the final check is.
        if (found) return { type: 'found', task: found };
        mayHaveArrived = true;
      }
      const decision = budget.fail(failure.retryAfterMs);
      if (attempt >= resilience.maxSendAttempts || !decision.retry) {
        const why = attempt >= resilience.maxSendAttempts ? `${attempt} attempts` : decision.retry ? '' : decision.reason;
        const gaveUp = new TetherError('RETRY_EXHAUSTED', `gave up sending message ${message.messageId} after ${why}: ${failure.message}`, {
          taskId: message.taskId,
          messageId: message.messageId,
          cause: failure,
          // Every attempt surely failed to arrive: the caller may send it again (a workflow does).
          maybeDelivered: mayHaveArrived,
        });
        return { type: 'failed', error: gaveUp };
      }
      if (!(await sleep(scheduler, decision.delayMs, signal))) return { type: 'stopped' };
      if (!(await limiter.acquire(signal))) return { type: 'stopped' };
      // `unknown` here: the lookup found nothing and the caller said the agent deduplicates.
      onResend({ messageId: message.messageId, purpose, attempt: attempt + 1, reason: verdict, error: failure });
    }
  }
}

/** A streamed answer: its first batch must show the task (or be the Message that ends the exchange). */
async function openAnswer(context: FollowContext, job: SendJob, signal: AbortSignal): Promise<SendOutcome> {
  const { feed, batch } = await firstBatch(context, job, signal);
  const first = batch?.[0];
  if (!batch || !first) {
    feed.close();
    throw new TetherError('STREAM_INTERRUPTED', 'the stream ended before its first event', { taskId: job.message.taskId, messageId: job.message.messageId });
  }
  if (!job.taskKnown && (first.event.kind === 'message' || taskIdOf(first.event) === undefined)) {
    feed.close();
    if (first.event.kind === 'message') return { type: 'message', message: first.event };
    throw new TetherError('PROTOCOL_VIOLATION', 'the first event names no task', { messageId: job.message.messageId });
  }
  return { type: 'stream', feed, first: batch };
}

/**
 * Opens a send's stream and reads its first events. Silence — no response headers, or no event —
 * for `idleProbeMs` is a TIMEOUT: the answer may be lost (the message is then looked for).
 */
async function firstBatch(context: FollowContext, job: SendJob, signal: AbortSignal): Promise<{ feed: EventFeed; batch: StreamItem[] | null }> {
  const ms = context.resilience.idleProbeMs;
  const { scheduler } = context;
  const attempt = new AbortController();
  let feed: EventFeed | undefined;
  let silent = false;
  const stop = (): void => {
    attempt.abort();
    feed?.close();
  };
  const timer = ms > 0 ? scheduler.setTimeout(() => ((silent = true), stop()), ms) : undefined;
  signal.addEventListener('abort', stop, { once: true });
  try {
    feed = await openInSlot(context.streamSlots, () => context.client.openStream(job.message, job.options, attempt.signal));
    if (feed === undefined) {
      throw new TetherError('NETWORK', 'no free stream slot (maxStreams); the message was not sent', { maybeDelivered: false, isRetryable: true });
    }
    if (attempt.signal.aborted) throw new TetherError('ABORTED', 'stopped');
    return { feed, batch: await feed.read() };
  } catch (error) {
    feed?.close();
    if (!silent) throw error;
    throw new TetherError('TIMEOUT', `no event within ${ms} ms of sending message ${job.message.messageId}`, {
      messageId: job.message.messageId,
      cause: error,
    });
  } finally {
    if (timer !== undefined) scheduler.clearTimeout(timer);
    signal.removeEventListener('abort', stop);
  }
}
