import { TaskNotCancelableError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import { isInterruptedState, isTerminalState } from '../model/task-state.js';
import type { Task, TaskState } from '../model/types.js';
import { DEFAULTS } from '../defaults.js';
import type { CancelRecord } from '../store/task-store.js';
import { transient } from './classify.js';
import type { FollowCore } from './follow-core.js';
import { absorbSnapshot } from './follow-intake.js';
import type { CancelOptions, CancelOutcome } from './follow-types.js';
import type { Outcome } from './phase.js';

// The follow's commands (reply, cancel) and the interruptions that end its current step.

/**
 * Why a reply cannot be sent now (`relaying`: a mirror's reply is on its way through the driving
 * tab), or `undefined` when it can: the task must be followed and waiting for input, with no other
 * reply on its way.
 */
export function replyRefused(core: FollowCore, relaying: boolean): TetherError | undefined {
  const r = core.view;
  const taskId = r?.taskId;
  if (!r || core.finished) return new TetherError('INVALID_ARGUMENT', `task ${taskId ?? ''} is no longer followed (it ended or was detached)`, { taskId, maybeDelivered: false });
  if (!isInterruptedState(r.state)) return new TetherError('INVALID_ARGUMENT', `task ${taskId} is ${r.state}, not waiting for input`, { taskId, maybeDelivered: false });
  if (core.pending || relaying) return new TetherError('INVALID_ARGUMENT', `a reply to task ${taskId} is already on its way`, { taskId, maybeDelivered: false });
  return undefined;
}

/** The input timeout of a task still `state` with no reply on its way, as the interruption it is. */
export function inputTimeout(core: FollowCore, state: TaskState): Outcome | undefined {
  if (core.view?.state !== state || core.pending) return undefined;
  const ms = core.options.inputTimeoutMs;
  return { type: 'input-timeout', error: new TetherError('INPUT_TIMEOUT', `no reply within ${ms} ms while the task was ${state}`, { taskId: core.taskId }) };
}

/** The task's lease was lost (`why`): the follow stops; another process may drive the task now. */
export function leaseLost(taskId: string | undefined, why: string): Outcome {
  const message = `task ${taskId ?? ''}: stopped driving it: ${why}; another process may drive it now`;
  return { type: 'fatal', error: new TetherError('LEASE_LOST', message, { taskId, maybeDelivered: false }) };
}

/** Of two interruptions, the one that wins: detach, then an input timeout, then a reply, then any other. */
export function stronger(a: Outcome, b: Outcome | undefined): Outcome {
  const rank = (o: Outcome | undefined): number =>
    o === undefined ? 0 : o.type === 'detach' ? 4 : o.type === 'input-timeout' ? 3 : o.type === 'reply' ? 2 : 1;
  return rank(a) > rank(b) ? a : (b as Outcome);
}

/**
 * Asks the agent to cancel (unless the task has already ended: `requested: false`, nothing sent),
 * then watches what the task really does — also when the request went out and its answer was lost
 * (a reset, a timeout, a 5xx: GetTask instead of an error; only a request that surely never left rejects): a cancel request is not a
 * cancellation, and an agent's "canceled" answer is a claim (some agents then finish the task
 * anyway). The answer is not applied; the follow goes on (and asks GetTask at once when nothing is
 * open) for up to `waitMs`. `confirmed` is true only when the task was then seen `canceled`. The
 * request and what was seen are written to the task's record.
 */
export async function cancelAndWatch(core: FollowCore, options: CancelOptions): Promise<CancelOutcome> {
  const r = core.view;
  if (!r) throw new TetherError('INVALID_ARGUMENT', 'no task to cancel yet', { maybeDelivered: false });
  // Already ended (a terminal state never changes, G2): nothing to ask the agent.
  if (isTerminalState(r.state)) return { requested: false, confirmed: r.state === 'canceled', state: r.state };
  const { client, principal, scheduler } = core.context;
  const { reason, waitMs = DEFAULTS.cancelWaitMs, ...given } = options;
  // After the follow ended too, the cancel and its look continue the task's trace.
  const call = { traceContext: core.options.traceContext, ...given };
  const asked: CancelRecord = { requestedAt: scheduler.now(), reason, ...(principal === undefined ? {} : { by: principal }) };
  core.persist({ cancel: asked });
  const look = (): Promise<Task> => client.getTask(r.taskId, { signal: call.signal, traceContext: call.traceContext });
  let answer: Task;
  let answerLost: TetherError | undefined;
  try {
    answer = await client.cancelTask(r.taskId, {
      ...call,
      ...(reason === undefined ? {} : { metadata: { 'a2a-tether/cancel-reason': reason } }),
    });
  } catch (error) {
    // Not cancelable (ended meanwhile), or the request went out and its answer was lost: look.
    if (transient(error) && error.maybeDelivered) answerLost = error;
    else if (!(error instanceof TaskNotCancelableError)) throw error;
    try {
      answer = await look();
    } catch (lookError) {
      throw answerLost ?? lookError;
    }
  }
  if (!core.finished && (core.session === undefined || !isTerminalState(answer.status.state))) {
    // Nothing open would show the outcome (or the agent says it is still stopping): ask.
    const seen = isTerminalState(answer.status.state) ? await look() : answer;
    if (!core.finished && isTerminalState(seen.status.state)) {
      absorbSnapshot(core, seen, false);
      core.interrupt({ type: 'state-changed' });
    }
  }
  await core.settledWithin(waitMs);
  const state = r.state;
  const confirmed = state === 'canceled';
  core.persist({ cancel: { ...asked, confirmed, seenState: state } });
  return { requested: true, confirmed, state, answerLost };
}
