import { TetherError } from '../errors/tether-error.js';
import { isInterruptedState, isTerminalState } from '../model/task-state.js';
import type { Task, TaskState } from '../model/types.js';
import type { RetryDecision } from './retry-budget.js';
import type { ConnectionState } from './task-event.js';

/**
 * Where the engine is with one task. Exactly one phase at a time; {@link next} is the only way
 * from one to the next.
 */
export type Phase =
  /** A message is on its way: the creating send (`start`) or a `reply`. */
  | { name: 'sending'; purpose: 'start' | 'reply' }
  /** Reading an open stream (the send's, or a subscription's). */
  | { name: 'live' }
  /** Opening a subscription. */
  | { name: 'resubscribing' }
  /** Waiting before the next attempt after a failure. */
  | { name: 'backing-off'; delayMs: number; attempt: number; error: TetherError; then: 'resubscribing' | 'polling' | 'final-check' }
  /** Waiting `delayMs`, then GetTask. */
  | { name: 'polling'; delayMs: number }
  /** At input-required / auth-required with nothing open: waiting for `reply()` (or the agent, for auth). */
  | { name: 'waiting-input' }
  /** Terminal after a gap: GetTask once more, so the result is exactly the agent's. */
  | { name: 'final-check' }
  | { name: 'done' }
  | { name: 'failed'; error: TetherError }
  | { name: 'detached' };

/** What a phase's step ended with (or the command that interrupted it). */
export type Outcome =
  /** The message was acknowledged; `streaming`: its stream is open and is read next. */
  | { type: 'sent'; streaming: boolean }
  /** The message could not be delivered (after the send's own retries), or the agent refused it. */
  | { type: 'send-failed'; error: TetherError }
  /** The stream's body ended. */
  | { type: 'stream-ended' }
  /** The stream (or the subscription's opening) failed in a way a new connection may mend. */
  | { type: 'stream-failed'; error: TetherError }
  /** The idle probe found the agent past the stream (a half-open connection): its snapshot (applied before the transition). */
  | { type: 'behind'; task: Task }
  /** A subscription is open. */
  | { type: 'subscribed' }
  /** Subscribing was refused (finished task, no resubscribe); a GetTask snapshot was applied. */
  | { type: 'refused' }
  /** A wait ended (backoff; or the auth-required look found the agent moved). */
  | { type: 'waited' }
  /** A poll answered. */
  | { type: 'polled' }
  /** A request failed in a way a retry may mend. */
  | { type: 'request-failed'; error: TetherError }
  /** The final GetTask was applied. */
  | { type: 'checked' }
  /** `reply()` was called at an interrupted state. */
  | { type: 'reply' }
  /** Something applied from outside (a cancel's answer) may have ended the task. */
  | { type: 'state-changed' }
  | { type: 'input-timeout'; error: TetherError }
  | { type: 'detach' }
  /** Nothing to retry: an agent error, a lost task, a protocol violation that no reconnect mends. */
  | { type: 'fatal'; error: TetherError };

/** What the engine knows when it decides where to go. */
export interface Facts {
  taskId: string;
  /** The task's state as the app sees it. */
  state: TaskState;
  /** How the task is followed: streaming, or polling (chosen, or fallen back to). */
  mode: 'stream' | 'poll';
  /** A reply was acknowledged but the agent has shown no new status yet: keep following. */
  awaitingNews: boolean;
  /** Streams in a row that ended or broke without progress (or a healthy probe). */
  futileStreams: number;
  futileLimit: number;
  /** Something may have been missed (a reconnect, a poll, a recovered snapshot): check the result once more. */
  gap: boolean;
  /** The budget's decision, for the failure being handled. */
  retry?: RetryDecision | undefined;
  /** Polling: the wait before the next poll. */
  pollDelayMs: number;
  /** Polling an agent that can stream: time to try streaming again. */
  streamRetryDue: boolean;
  /** Time without progress off a live stream exceeded `maxQuietMs`. */
  quietFor?: number | undefined;
}

/** Where to go when nothing is open: finish, wait for input, or follow (stream or poll). */
function rest(facts: Facts): Phase {
  if (isTerminalState(facts.state)) return facts.gap ? { name: 'final-check' } : { name: 'done' };
  if (isInterruptedState(facts.state) && !facts.awaitingNews) return { name: 'waiting-input' };
  if (facts.quietFor !== undefined) {
    return failed(new TetherError('RETRY_EXHAUSTED', `task ${facts.taskId} made no progress for ${facts.quietFor} ms`, { taskId: facts.taskId }));
  }
  if (facts.mode === 'stream' || facts.streamRetryDue) return { name: 'resubscribing' };
  return { name: 'polling', delayMs: facts.pollDelayMs };
}

function failed(error: TetherError): Phase {
  return { name: 'failed', error };
}

/** A failure a new attempt may mend: back off (or give up when the budget is spent). */
function retry(facts: Facts, error: TetherError, then: 'resubscribing' | 'polling' | 'final-check'): Phase {
  if (isTerminalState(facts.state) && then !== 'final-check') return rest(facts);
  if (isInterruptedState(facts.state) && !facts.awaitingNews) return { name: 'waiting-input' };
  const decision = facts.retry;
  if (!decision?.retry) {
    const why = decision?.reason ?? 'no retry budget';
    return failed(
      new TetherError('RETRY_EXHAUSTED', `gave up following task ${facts.taskId} after ${why}: ${error.message}`, {
        taskId: facts.taskId,
        cause: error,
      }),
    );
  }
  // Streams that keep ending without progress: poll instead (and, while polling, a failed try to stream again goes back to polling).
  if (then === 'resubscribing' && (facts.mode === 'poll' || facts.futileStreams >= facts.futileLimit)) then = 'polling';
  return { name: 'backing-off', delayMs: decision.delayMs, attempt: decision.attempt, error, then };
}

/**
 * The engine's transition function: from a phase and what its step ended with, the next phase.
 * Pure: everything it needs is in `facts`.
 */
export function next(phase: Phase, outcome: Outcome, facts: Facts): Phase {
  switch (outcome.type) {
    case 'detach':
      return { name: 'detached' };
    case 'fatal':
    case 'input-timeout':
      return failed(outcome.error);
    case 'state-changed':
      return rest(facts);
    case 'reply':
      return { name: 'sending', purpose: 'reply' };
    case 'sent':
      return outcome.streaming ? { name: 'live' } : rest(facts);
    case 'send-failed':
      // A reply that could not be delivered leaves the task where it was; a start has no task yet.
      return phase.name === 'sending' && phase.purpose === 'reply' ? rest(facts) : failed(outcome.error);
    case 'subscribed':
      return { name: 'live' };
    case 'behind':
      return isTerminalState(facts.state) || isInterruptedState(facts.state) ? rest(facts) : { name: 'resubscribing' };
    case 'refused':
      return rest({ ...facts, mode: 'poll', streamRetryDue: false });
    case 'stream-ended':
      if (isTerminalState(facts.state) || (isInterruptedState(facts.state) && !facts.awaitingNews)) return rest(facts);
      return retry(
        facts,
        new TetherError('STREAM_INTERRUPTED', `the stream ended while the task was ${facts.state}`, { taskId: facts.taskId }),
        'resubscribing',
      );
    case 'stream-failed':
      return retry(facts, outcome.error, 'resubscribing');
    case 'request-failed':
      return retry(facts, outcome.error, phase.name === 'final-check' ? 'final-check' : facts.mode === 'stream' ? 'resubscribing' : 'polling');
    case 'waited':
      if (phase.name === 'backing-off') {
        if (phase.then === 'final-check') return { name: 'final-check' };
        // After a failed poll, poll again at once (the backoff was the wait).
        const after = rest({ ...facts, mode: phase.then === 'polling' ? 'poll' : facts.mode });
        return after.name === 'polling' ? { name: 'polling', delayMs: 0 } : after;
      }
      return rest(facts);
    case 'polled':
      return rest(facts);
    case 'checked':
      return { name: 'done' };
  }
}

/** What the app is told about the link while the engine is in a phase (`undefined`: unchanged). */
export function connectionOf(phase: Phase): ConnectionState | undefined {
  switch (phase.name) {
    case 'sending':
      return 'connecting';
    case 'live':
      return 'live';
    case 'resubscribing':
      return 'reconnecting';
    case 'backing-off':
      return phase.then === 'polling' ? 'polling' : 'reconnecting';
    case 'polling':
      return 'polling';
    case 'waiting-input':
      return 'waiting';
    case 'final-check':
      return undefined;
    case 'done':
    case 'failed':
    case 'detached':
      return 'closed';
  }
}
