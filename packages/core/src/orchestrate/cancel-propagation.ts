import { isTerminalState } from '../model/task-state.js';
import type { TaskHandle } from '../task/task-handle.js';
import { hashInput } from './canonical.js';
import { attemptKey, type Journal } from './journal.js';
import { addEntry, sendOutcome, settle } from './ledger.js';
import { isFinalNodeState, type AttemptRecord, type NodeRecord } from './workflow-record.js';
import { errorInfo, invalid } from './workflow-errors.js';

/** How a node ends when the workflow stops it on purpose. */
export type StopState = 'canceled' | 'timed-out';

const DEFAULT_CANCEL_WAIT_MS = 5_000;
/** A cancel request is answered within twice `cancelWaitMs`, and at least this (ms). */
const MIN_CANCEL_ANSWER_MS = 1_000;

/**
 * Cancels on their way to agents: nodes stopped on purpose (cancels, budgets) and superseded attempts
 * asked to stop. Each request is recorded in the ledger and on its attempt's cancel record, with what
 * the agent confirmed.
 */
export class CancelPropagation {
  /** Cancel requests on their way: the workflow ends only once each is answered. */
  private readonly cancelling = new Set<Promise<void>>();
  /** Attempts being stopped on purpose, and the state their node ends in. */
  private readonly stopping = new Map<string, StopState>();
  private readonly waitMs: number;

  constructor(
    private readonly journal: Journal,
    private readonly handleOf: (key: string) => TaskHandle | undefined,
    cancelWaitMs: number | undefined,
  ) {
    this.waitMs = cancelWaitMs ?? DEFAULT_CANCEL_WAIT_MS;
  }

  /** Resolves once every cancel asked for is answered (also those asked for meanwhile). */
  async settled(): Promise<void> {
    while (this.cancelling.size > 0) await Promise.allSettled([...this.cancelling]);
  }

  /** The stop asked for an attempt whose task ended (taken once), or `undefined`: it was not stopped on purpose. */
  takeIntent(node: NodeRecord, attempt: AttemptRecord): StopState | undefined {
    const key = attemptKey(node.id, attempt.n);
    const intent = this.stopping.get(key);
    this.stopping.delete(key);
    return intent;
  }

  /** Stops nodes: a running task is asked to cancel; a node that never ran is `canceled`, outcome `not-started`. */
  async stop(ids: string[], by: string, reason: string, state: StopState): Promise<void> {
    const work: Array<Promise<void>> = [];
    for (const id of ids) {
      const node = this.journal.node(id);
      if (isFinalNodeState(node.state)) continue;
      const attempt = node.attempts.at(-1);
      const running = attempt && !isFinalNodeState(attempt.state) && attempt.state !== 'pending-reconciliation' && attempt.taskId !== undefined;
      if (!running || node.state === 'pending' || node.state === 'pending-reconciliation') {
        node.cancel = { by, reason, requestedAt: this.journal.iso(), outcome: 'not-started' };
        this.journal.move(node, 'canceled', reason);
        continue;
      }
      work.push(this.request(node, attempt, by, reason, { detach: true, state }));
    }
    await this.journal.save();
    await Promise.all(work);
  }

  /**
   * Asks the agent to cancel an attempt's task and records what it confirmed. With `how.state`, the
   * node ends in that state (`canceled` becomes `cancel-requested` when the agent does not confirm);
   * without it (a superseded attempt) the attempt is only asked to stop and followed on.
   */
  request(node: NodeRecord, attempt: AttemptRecord, by: string, reason: string, how: { detach: boolean; state?: StopState }): Promise<void> {
    const request = this.ask(node, attempt, by, reason, how);
    this.cancelling.add(request);
    void request.finally(() => this.cancelling.delete(request)).catch(() => undefined);
    return request;
  }

  private async ask(node: NodeRecord, attempt: AttemptRecord, by: string, reason: string, how: { detach: boolean; state?: StopState }): Promise<void> {
    const journal = this.journal;
    const key = attemptKey(node.id, attempt.n);
    const taskId = attempt.taskId as string;
    const seenBefore = attempt.taskState;
    if (attempt.endedAt !== undefined) {
      // Its task ended before the request could go out (a short task answered all at once): nothing to ask.
      attempt.cancel = { by, reason, requestedAt: journal.iso(), outcome: 'already-final', ...(seenBefore ? { state: seenBefore } : {}) };
      await journal.save();
      return;
    }
    if (how.state) this.stopping.set(key, how.state);
    attempt.cancel = { by, reason, requestedAt: journal.iso(), outcome: 'requested' };
    const asks = journal.record.ledger.filter((e) => e.operation === 'CancelTask' && e.node === node.id).length;
    const entry = addEntry(journal.record, journal.iso(), {
      revision: attempt.revision,
      target: attempt.agent,
      operation: 'CancelTask',
      key: `cancel:${taskId}:${asks + 1}`,
      inputHash: await hashInput({ taskId, reason }),
      node: node.id,
    });
    await journal.save();
    const handle = this.handleOf(key);
    try {
      if (!handle) throw invalid(`task ${taskId} is not followed`);
      // Some agents hold the request open until the task ends: the wait bounds the request too.
      const outcome = await handle.cancel({ reason, waitMs: this.waitMs, timeoutMs: Math.max(MIN_CANCEL_ANSWER_MS, 2 * this.waitMs) });
      // Its answer lost, a task not seen stopping says nothing of whether the request arrived.
      const unknown = outcome.answerLost !== undefined && !isTerminalState(outcome.state);
      const stopped = outcome.confirmed ? 'canceled' : isTerminalState(outcome.state) ? `no effect: the task is ${outcome.state}` : unknown ? `answer lost; task ${outcome.state}` : `request taken; task ${outcome.state}`;
      if (unknown) attempt.cancel.error = errorInfo(outcome.answerLost).message;
      settle(entry, journal.iso(), unknown ? 'unknown' : !outcome.confirmed && isTerminalState(outcome.state) ? 'confirmed-failure' : 'confirmed-success', stopped, {
        confirmed: outcome.confirmed,
        state: outcome.state,
      });
      attempt.cancel.state = outcome.state;
      if (outcome.confirmed) {
        attempt.cancel.outcome = 'confirmed';
        attempt.cancel.confirmedAt ??= journal.iso();
      } else if (isTerminalState(outcome.state) && attempt.cancel.outcome === 'requested') {
        // Ended before the request, or ended otherwise after it.
        attempt.cancel.outcome = seenBefore !== undefined && isTerminalState(seenBefore) ? 'already-final' : 'ignored';
      }
    } catch (error) {
      // A request that may have arrived stays "requested" (unknown); one that surely did not is "failed".
      const reached = sendOutcome(error) === 'unknown';
      settle(entry, journal.iso(), reached ? 'unknown' : 'confirmed-failure', errorInfo(error).message);
      if (attempt.cancel.outcome === 'requested' && !reached) attempt.cancel.outcome = 'failed';
      attempt.cancel.error = errorInfo(error).message;
    }
    const ended = attempt.endedAt !== undefined;
    if (how.state && !ended && attempt.cancel.outcome !== 'confirmed' && attempt.cancel.outcome !== 'already-final') {
      // Not confirmed: the record says "requested"; the workflow stops watching this task.
      attempt.state = how.state === 'timed-out' ? 'timed-out' : 'cancel-requested';
      if (node.attempts.at(-1) === attempt && node.state !== 'pending') journal.move(node, attempt.state, reason);
    }
    await journal.save();
    if (how.detach && handle && !ended && !isTerminalState(attempt.cancel.state ?? 'working')) handle.detach();
  }
}
