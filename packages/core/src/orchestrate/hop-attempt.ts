import type { A2AClient } from '../client/a2a-client.js';
import { isTetherError } from '../errors/tether-error.js';
import { taskCost } from '../model/cost.js';
import type { MessageInput } from '../model/message-input.js';
import { isInterruptedState, isTerminalState } from '../model/task-state.js';
import type { Message, Metadata, Part, Task } from '../model/types.js';
import type { Resend } from '../task/delivery.js';
import { DEFAULTS } from '../defaults.js';
import { RESILIENCE_DEFAULTS } from '../task/resilience.js';
import type { TaskEvent, TaskView } from '../task/task-event.js';
import type { TaskHandle } from '../task/task-handle.js';
import { sleep, type Scheduler } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';
import type { ActionDesk } from './action-desk.js';
import { hopBudget, type BudgetClock } from './budget-clock.js';
import type { CancelPropagation } from './cancel-propagation.js';
import { hashInput } from './canonical.js';
import { attemptKey, type Journal } from './journal.js';
import { addEntry, findEntry, findSentTask, sendOutcome, settle } from './ledger.js';
import type { PauseDesk } from './pause-desk.js';
import { answerMetadata, refusal, stamp } from './revision-gate.js';
import { isFinalNodeState, type AttemptRecord, type CostRecord, type LedgerEntry, type NodeRecord, type NodeState, type WorkflowRecord } from './workflow-record.js';
import { errorInfo } from './workflow-errors.js';
import type { HopResult, HopSpec, WorkflowEvent, WorkflowOptions } from './workflow-types.js';
import type { WorkflowTrace } from './workflow-trace.js';

/** Sends of one node (per revision) verified as never delivered before the node fails instead of sending again. */
const MAX_UNDELIVERED = 3;
/** While a lost send is looked for (see `resolveSend`), ListTasks this often (ms). */
const LOOK_AGAIN_MS = 1_000;
const NOT_DELIVERED = 'not delivered';

/** The default cost reader: `metadata.cost` of the task, else of its final status message. */
export function defaultCost(task: Task): CostRecord | undefined {
  return taskCost(task);
}

function viewTask(view: TaskView): Task {
  return {
    kind: 'task',
    id: view.taskId,
    contextId: view.contextId,
    status: { state: view.state, ...(view.statusMessage ? { message: view.statusMessage } : {}) },
    artifacts: view.artifacts,
    history: view.history,
  };
}

/** The node state a task's end means. */
export function taskOutcome(task: Task, error: unknown): NodeState {
  if (error !== undefined) return 'failed';
  switch (task.status.state) {
    case 'completed':
      return 'completed';
    case 'canceled':
      return 'canceled';
    case 'rejected':
      return 'rejected';
    default:
      return 'failed';
  }
}

/** The result a completed node passes on to the hops that depend on it. */
export function resultOf(node: NodeRecord): HopResult | undefined {
  const attempt = node.attempts.find((a) => a.adopted);
  if (!attempt) return undefined;
  const artifacts = attempt.artifacts ?? [];
  const textOf = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
  // Agents that answer in their final status message and produce no artifact (common with v0.3) still pass a text on.
  const text = artifacts.length > 0 ? textOf(artifacts.flatMap((a) => a.artifact.parts)) : textOf(attempt.statusMessage?.parts ?? []);
  return { node: node.id, taskId: attempt.taskId, artifacts, text, ...(attempt.statusMessage ? { statusMessage: attempt.statusMessage } : {}) };
}

/**
 * Looks for the task a send created, by its message id, until `until` (epoch ms on `now`) or until
 * `stopped()`: the task, `undefined` (not found: no proof it did not arrive), or `unknowable`.
 */
export async function lookForSend(
  client: A2AClient,
  contextId: string,
  messageId: string,
  until: number,
  time: { scheduler: Scheduler; now: () => number },
  stopped: () => boolean,
): Promise<Task | undefined | 'unknowable'> {
  let found = await findSentTask(client, contextId, messageId);
  while (found === undefined && time.now() < until && !stopped()) {
    await sleep(time.scheduler, LOOK_AGAIN_MS);
    found = await findSentTask(client, contextId, messageId);
  }
  return found;
}

/** How a followed task ended: its final task, or the error `done()` rejected with. */
export async function watch(handle: TaskHandle, onEvent: (event: TaskEvent) => void): Promise<{ task?: Task | undefined; error?: unknown }> {
  try {
    for await (const event of handle.events()) onEvent(event);
  } catch {
    // done() reports the failure
  }
  try {
    return { task: await handle.done() };
  } catch (error) {
    return { error };
  }
}

/**
 * What starting (or picking up) an attempt came to: `settled` now — `again`: its node is pending again,
 * so another step may start it — or a task `following`, whose follow (the attempt's end written) is
 * `ended`.
 */
export type AttemptStart = { kind: 'settled'; again: boolean } | { kind: 'following'; ended: Promise<void> };

const SETTLED: AttemptStart = { kind: 'settled', again: false };

/** What the hop attempts need from the workflow that runs them. */
export interface HopParts {
  journal: Journal;
  options: WorkflowOptions;
  hops: ReadonlyMap<string, HopSpec>;
  clock: BudgetClock;
  pauses: PauseDesk;
  cancels: CancelPropagation;
  actions: ActionDesk;
  scheduler: Scheduler;
  now: () => number;
  newId: () => string;
  emit: (event: WorkflowEvent) => void;
  clientOf: (agent: string) => A2AClient;
  /** The workflow's and hops' spans. */
  trace: WorkflowTrace;
  /** The runner's state, as the attempts read it. */
  stopped: () => boolean;
  failing: () => string | undefined;
  eventCount: () => number;
}

/**
 * The attempts of hops: one send and the follow of its task (or its message answer), a lost send
 * looked for, a restart picked up by task id. The node's state changes through the journal; what a
 * start came to is returned ({@link AttemptStart}).
 */
export class HopAttempts {
  /** The tasks followed now, by attempt key. */
  private readonly live = new Map<string, TaskHandle>();

  constructor(private readonly p: HopParts) {}

  handleOf(key: string): TaskHandle | undefined {
    return this.live.get(key);
  }

  /** Stops following every live task; the tasks themselves run on. */
  detachAll(): void {
    for (const handle of this.live.values()) handle.detach();
    this.live.clear();
  }

  /** A running node found in the record at boot: followed again by task id, or its lost send looked for. */
  async recover(node: NodeRecord, attempt: AttemptRecord): Promise<AttemptStart> {
    if (attempt.taskId !== undefined) return this.resumeAttempt(node, attempt, attempt.taskId);
    const entry = findEntry(this.p.journal.record, attempt.agent, 'SendMessage', attempt.messageId);
    if (entry) settle(entry, this.p.journal.iso(), 'unknown', 'the orchestrator stopped before the send was answered');
    return this.resolveSend(node, attempt, entry);
  }

  private async resumeAttempt(node: NodeRecord, attempt: AttemptRecord, taskId: string): Promise<AttemptStart> {
    const { journal } = this.p;
    let handle: TaskHandle;
    const client = this.p.clientOf(attempt.agent);
    try {
      handle = await this.resumeWhenFree(() => client.resume(taskId, { traceContext: this.p.trace.hop(node, attempt, client, true), parentTaskId: this.p.trace.parentTaskOf(node) }));
    } catch (error) {
      // The task may still run at the agent: nothing here can follow it, so say so rather than call it failed.
      attempt.error = errorInfo(error);
      attempt.endedAt = journal.iso();
      attempt.state = 'unresolved';
      this.p.trace.endHop(node, attempt);
      journal.move(node, 'unresolved', `task ${taskId} may still run at ${attempt.agent}, but it could not be followed again: ${attempt.error.message}`);
      await journal.save();
      return SETTLED;
    }
    journal.after({ type: 'node', node: node.id, state: node.state, attempt: attempt.n, taskId });
    await journal.save();
    return this.follow(node, attempt, handle);
  }

  /**
   * Resumes a hop's task; while another process holds the task's lease (`LEASE_HELD`: typically the former
   * driver of this workflow, dead or cut off, whose task lease lapses about when its workflow lease did), tries
   * again — every 250 ms, then less often, for at most two default lease TTLs (`DEFAULTS.leaseMs`); past that
   * the lease is someone's who is alive, and the error stands.
   */
  private async resumeWhenFree(resume: () => Promise<TaskHandle>): Promise<TaskHandle> {
    const until = monotonicNow(this.p.scheduler) + 2 * DEFAULTS.leaseMs;
    for (let wait = 250; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        return await resume();
      } catch (error) {
        if (!isTetherError(error) || error.code !== 'LEASE_HELD' || this.p.stopped() || monotonicNow(this.p.scheduler) + wait > until) throw error;
      }
      await sleep(this.p.scheduler, wait);
    }
  }

  /**
   * A send whose answer never came (lost, or the orchestrator stopped before it): find its task before
   * anything is sent again. A task not found is no proof the message did not arrive — an agent may store
   * its task seconds later — so it is looked for until the engine's lookup budget (`lostSendLookupMs`)
   * has passed since the send began (a restart can come right after it), then the send is unresolved,
   * never sent again. `lookedFor`: the engine already looked for its whole budget (`DELIVERY_UNKNOWN`).
   */
  private async resolveSend(node: NodeRecord, attempt: AttemptRecord, entry: LedgerEntry | undefined, lookedFor = false): Promise<AttemptStart> {
    const { journal } = this.p;
    const until = lookedFor ? 0 : Date.parse(attempt.startedAt) + RESILIENCE_DEFAULTS.lostSendLookupMs;
    const found = await lookForSend(this.p.clientOf(attempt.agent), journal.record.contextId, attempt.messageId, until, this.p, this.p.stopped);
    if (this.p.stopped()) return SETTLED;
    if (found === 'unknowable' || found === undefined) {
      const why =
        found === 'unknowable'
          ? 'the agent offers no way to look for the task (no ListTasks) or the lookup failed'
          : 'no task with this message was found within the lookup budget (lostSendLookupMs), which proves nothing';
      if (entry) settle(entry, journal.iso(), 'unresolved', `${why}: not sent again`);
      attempt.state = 'unresolved';
      attempt.endedAt = journal.iso();
      journal.move(node, 'unresolved', `message ${attempt.messageId} may have reached ${attempt.agent}; nothing can show it, so it is not sent again`);
      await journal.save();
      return SETTLED;
    }
    if (entry) settle(entry, journal.iso(), 'confirmed-success', `found task ${found.id} by its message id`, { taskId: found.id });
    attempt.taskId = found.id;
    await journal.save();
    return this.resumeAttempt(node, attempt, found.id);
  }

  /** A send that surely never reached the agent: the same intended action may go again, with the same key (a bounded number of times). */
  private async resendUndelivered(node: NodeRecord, attempt: AttemptRecord, entry: LedgerEntry, why: string): Promise<AttemptStart> {
    const { journal } = this.p;
    settle(entry, journal.iso(), 'confirmed-failure', `${NOT_DELIVERED} (${why})`);
    attempt.state = 'skipped';
    attempt.endedAt = journal.iso();
    const lost = journal.record.ledger
      .filter((e) => e.node === node.id && e.operation === 'SendMessage' && e.revision === attempt.revision)
      .reduce((n, e) => n + e.history.filter((h) => h.note?.startsWith(NOT_DELIVERED)).length, 0);
    if (lost >= MAX_UNDELIVERED) journal.move(node, 'failed', `its message was not delivered ${lost} times (each verified): not sent again`);
    // A node cancelled while its message was out stays cancelled: it is not sent again.
    else if (node.state !== 'canceled') journal.move(node, 'pending', 'its message was never delivered: sent again');
    await journal.save();
    return { kind: 'settled', again: true };
  }

  /** The engine sends the message again (same id, G6): the ledger says so (saved with the send's outcome). */
  private onResend(entry: LedgerEntry, resend: Resend): void {
    const why = resend.reason === 'not-delivered' ? 'the previous send surely never reached the agent' : 'its fate stayed unknown and the agent is said to deduplicate (resendUnknownDeliveries)';
    settle(entry, this.p.journal.iso(), 'intended', `sent again (send ${resend.attempt}, the same message id): ${why}: ${resend.error.message}`);
    this.p.options.start?.onResend?.(resend);
  }

  /** Starts a new attempt of a pending node whose dependencies completed: its input, the send, then the follow. */
  async launch(hop: HopSpec, node: NodeRecord): Promise<AttemptStart> {
    const { journal } = this.p;
    const record = journal.record;
    const revision = record.revision;
    const previous = [...node.attempts].reverse().find((a) => a.taskId !== undefined);
    const results: Record<string, HopResult> = {};
    for (const dep of hop.dependsOn ?? []) {
      const result = resultOf(journal.node(dep));
      if (result) results[dep] = result;
    }
    let input: MessageInput;
    try {
      input = await hop.input({ node: node.id, revision: record.revisions.at(-1) as WorkflowRecord['revisions'][number], results, ...(previous ? { previous: structuredClone(previous) } : {}) });
    } catch (error) {
      journal.move(node, 'failed', `its input function threw: ${errorInfo(error).message}`);
      await journal.save();
      return SETTLED;
    }
    const base = typeof input === 'string' ? { text: input } : input;
    const references = [...(base.referenceTaskIds ?? []), ...(previous?.taskId ? [previous.taskId] : [])];
    const metadata = stamp(base.metadata, record.id, node.id, revision);
    const body = { ...base, contextId: record.contextId, metadata, ...(references.length > 0 ? { referenceTaskIds: references } : {}) };
    const inputHash = await hashInput(body);
    // A send verified as never delivered is sent again with its key when the action is the same.
    const retry = node.attempts.at(-1);
    const same = retry?.state === 'skipped' && retry.revision === revision ? findEntry(record, retry.agent, 'SendMessage', retry.messageId) : undefined;
    const messageId = same?.inputHash === inputHash && same.outcome === 'confirmed-failure' ? same.key : this.p.newId();
    const client = this.p.clientOf(node.agent);
    const attempt: AttemptRecord = {
      n: node.attempts.length + 1,
      agent: node.agent,
      agentUrl: client.interface.url,
      revision,
      messageId,
      ...(references.length > 0 ? { referenceTaskIds: references } : {}),
      state: 'running',
      startedAt: journal.iso(),
    };
    node.attempts.push(attempt);
    const entry =
      same && same.key === messageId
        ? (settle(same, journal.iso(), 'intended', 'sent again after verifying it was never delivered'), same)
        : addEntry(record, journal.iso(), { revision, target: node.agent, operation: 'SendMessage', key: messageId, inputHash, node: node.id });
    journal.move(node, 'running');
    await journal.save();
    // The gate again: an update may have come while the intent was written.
    if (attempt.rejectedReason !== undefined || record.state !== 'running' || node.state !== 'running' || this.p.stopped()) {
      settle(entry, journal.iso(), 'refused', 'the gate closed before it was sent');
      attempt.state = 'skipped';
      attempt.endedAt = journal.iso();
      if (node.state === 'running') journal.move(node, 'pending');
      await journal.save();
      return SETTLED;
    }
    this.armHopBudget(hop, node, attempt);
    let handle: TaskHandle;
    this.p.actions.inflight.add(entry.id);
    try {
      handle = await client.start(
        { ...body, messageId },
        {
          ...this.p.options.start,
          onResend: (resend) => this.onResend(entry, resend),
          traceContext: this.p.trace.hop(node, attempt, client, false),
          parentTaskId: this.p.trace.parentTaskOf(node),
        },
      );
    } catch (error) {
      this.p.actions.inflight.delete(entry.id);
      attempt.error = errorInfo(error);
      this.p.trace.endHop(node, attempt);
      const outcome = sendOutcome(error);
      if (outcome === 'not-delivered') {
        this.clearHopBudget(node, attempt);
        return this.resendUndelivered(node, attempt, entry, attempt.error.message);
      }
      if (outcome === 'failed') {
        settle(entry, journal.iso(), 'confirmed-failure', attempt.error.message);
        attempt.state = 'failed';
        attempt.endedAt = journal.iso();
        this.clearHopBudget(node, attempt);
        journal.move(node, 'failed', attempt.error.message);
        await journal.save();
        return SETTLED;
      }
      settle(entry, journal.iso(), 'unknown', attempt.error.message);
      await journal.save();
      this.clearHopBudget(node, attempt);
      // DELIVERY_UNKNOWN: the engine already looked for it for its whole lookup budget.
      return this.resolveSend(node, attempt, entry, isTetherError(error) && error.code === 'DELIVERY_UNKNOWN');
    }
    this.p.actions.inflight.delete(entry.id);
    if (handle.kind === 'message') {
      settle(entry, journal.iso(), 'confirmed-success', 'answered with a message');
      const message: Message | undefined = handle.message;
      attempt.endedAt = journal.iso();
      attempt.artifacts = message ? [{ artifact: { artifactId: 'message', parts: message.parts }, complete: true }] : [];
      this.clearHopBudget(node, attempt);
      this.adoptOrRefuse(node, attempt, [message?.metadata]);
      this.p.trace.endHop(node, attempt);
      await journal.save();
      return SETTLED;
    }
    attempt.taskId = handle.taskId;
    settle(entry, journal.iso(), 'confirmed-success', undefined, { taskId: handle.taskId });
    journal.after({ type: 'node', node: node.id, state: node.state, attempt: attempt.n, taskId: attempt.taskId });
    await journal.save();
    const following = this.follow(node, attempt, handle);
    // The send was in flight when an update superseded it or a cancel reached the node: the task exists now, so ask it to stop.
    if (attempt.rejectedReason !== undefined) {
      await this.p.cancels.request(node, attempt, 'workflow', `superseded by revision ${record.revision} while it was being sent`, { detach: false });
    } else if (node.state !== 'running' || this.p.failing() !== undefined || this.p.stopped()) {
      const why = node.cancel ?? record.cancel;
      await this.p.cancels.request(node, attempt, why?.by ?? this.p.options.budgetActor ?? 'budget', why?.reason ?? 'cancelled while it was being sent', { detach: true, state: 'canceled' });
    }
    return following;
  }

  /** Arms an attempt's hop budget (`ms`: the hop's timeout, or an escalation's extension). */
  armHopBudget(hop: HopSpec, node: NodeRecord, attempt: AttemptRecord, ms = hop.timeoutMs): void {
    if (ms === undefined) return;
    this.p.clock.arm(hopBudget(node.id, attempt.n), ms, { kind: 'hop-timeout', node: node.id, taskId: attempt.taskId, budgetMs: ms });
  }

  private clearHopBudget(node: NodeRecord, attempt: AttemptRecord): void {
    this.p.clock.clear(hopBudget(node.id, attempt.n));
  }

  private follow(node: NodeRecord, attempt: AttemptRecord, handle: TaskHandle): AttemptStart {
    const key = attemptKey(node.id, attempt.n);
    this.live.set(key, handle);
    const ended = (async () => {
      const { task, error } = await watch(handle, (event) => this.onTaskEvent(node, attempt, event));
      this.live.delete(key);
      if (this.p.stopped()) return;
      await this.onAttemptEnd(node, attempt, handle.view, task, error);
      this.p.trace.endHop(node, attempt);
    })();
    ended.catch(() => undefined); // its owner hears of a failure when it takes the start
    return { kind: 'following', ended };
  }

  private onTaskEvent(node: NodeRecord, attempt: AttemptRecord, event: TaskEvent): void {
    const { journal } = this.p;
    attempt.firstEventAt ??= journal.iso();
    if (event.type !== 'status') return;
    attempt.taskState = event.state;
    // An update that affects the node marks its attempt superseded (rejectedReason); others stay current
    // across revisions: a correction keeps what it does not touch.
    const current = node.attempts.at(-1) === attempt && attempt.rejectedReason === undefined;
    if (isInterruptedState(event.state) && current && !isFinalNodeState(attempt.state)) {
      attempt.state = event.state as NodeState;
      journal.move(node, event.state as NodeState);
      const pause = this.p.pauses.open(
        {
          id: `${node.id}/${attempt.n}/${this.p.eventCount()}`,
          node: node.id,
          agent: attempt.agent,
          taskId: attempt.taskId ?? '',
          state: event.state as 'input-required' | 'auth-required',
          ...(event.message ? { message: event.message } : {}),
          since: journal.iso(),
          attempt: attempt.n,
        },
        this.p.hops.get(node.id)?.pauseSlaMs,
      );
      journal.after({ type: 'pause', pause });
      journal.saveInBackground();
    } else if (!isTerminalState(event.state) && !isInterruptedState(event.state) && isInterruptedState(attempt.state as never) && current) {
      this.p.pauses.closeNode(node.id);
      attempt.state = 'running';
      journal.move(node, 'running');
      journal.saveInBackground();
    }
  }

  private async onAttemptEnd(node: NodeRecord, attempt: AttemptRecord, view: TaskView, task: Task | undefined, error: unknown): Promise<void> {
    const { journal } = this.p;
    this.clearHopBudget(node, attempt);
    this.p.pauses.closeNode(node.id, attempt.n);
    const final = task ?? viewTask(view);
    attempt.endedAt = journal.iso();
    attempt.artifacts = view.artifacts.map((artifact) => ({ artifact, complete: !view.incompleteArtifacts.includes(artifact.artifactId) }));
    if (view.statusMessage) attempt.statusMessage = view.statusMessage;
    attempt.taskState = final.status.state;
    const cost = (this.p.options.cost ?? defaultCost)(final);
    if (cost) attempt.cost = cost;
    if (attempt.cancel) {
      attempt.cancel.state = final.status.state;
      if (cost) attempt.cancel.cost = cost;
      if (final.status.state === 'canceled' && attempt.cancel.outcome !== 'confirmed') {
        attempt.cancel.outcome = 'confirmed';
        attempt.cancel.confirmedAt = journal.iso();
      } else if (isTerminalState(final.status.state) && attempt.cancel.outcome === 'requested') {
        attempt.cancel.outcome = 'ignored';
      }
    }
    const intent = this.p.cancels.takeIntent(node, attempt);
    const stoppedByUs = intent !== undefined;
    if (error !== undefined && !(stoppedByUs && isTetherError(error) && error.code === 'ABORTED')) attempt.error = errorInfo(error);
    const current = node.attempts.at(-1) === attempt;
    if (attempt.rejectedReason !== undefined || !current) {
      // A late result of superseded work: kept for audit, never adopted.
      attempt.adopted = false;
      attempt.rejectedReason ??= `late result of revision ${attempt.revision}; revision ${journal.record.revision} is in force`;
      if (!isFinalNodeState(attempt.state)) attempt.state = taskOutcome(final, error);
      await journal.save();
      this.p.emit({ type: 'late-result', node: node.id, taskId: attempt.taskId, reason: attempt.rejectedReason });
      return;
    }
    if (stoppedByUs) {
      // Stopped on purpose: a budget's cancel is `timed-out` whatever the agent did; a cancel the agent confirmed is `canceled`.
      if (intent === 'timed-out') attempt.state = 'timed-out';
      else if (final.status.state === 'canceled') attempt.state = 'canceled';
      else if (!isFinalNodeState(attempt.state)) attempt.state = isTerminalState(final.status.state) ? taskOutcome(final, error) : 'cancel-requested';
      if (node.state === 'pending') {
        // Handed to another agent: its next attempt decides the node's state and result.
        attempt.rejectedReason ??= node.reason ?? 'handed to another agent';
      } else if (attempt.state === 'completed') {
        this.adoptOrRefuse(node, attempt, answerMetadata(final), 'completed before the cancel took effect');
      } else {
        journal.move(node, attempt.state, attempt.cancel?.reason ?? node.reason);
      }
    } else {
      const state = taskOutcome(final, error);
      if (state === 'completed') this.adoptOrRefuse(node, attempt, answerMetadata(final));
      else {
        attempt.state = state;
        journal.move(node, state, attempt.error?.message ?? `task ${final.status.state}`);
      }
    }
    await journal.save();
  }

  /**
   * Ends the current attempt of a node whose task (or message) completed: adopted and checkpointed, or —
   * when the revision gate refuses the answer — kept for audit with its `rejectedReason`, not adopted,
   * and the node fails with that reason. `metadata`: where the answer can name its revision.
   */
  private adoptOrRefuse(node: NodeRecord, attempt: AttemptRecord, metadata: ReadonlyArray<Metadata | undefined>, reason?: string): void {
    const refused = refusal(attempt.revision, metadata, this.p.hops.get(node.id)?.requireRevisionEcho === true);
    if (refused !== undefined) {
      attempt.state = 'failed';
      attempt.rejectedReason = refused;
      this.p.journal.move(node, 'failed', refused);
      return;
    }
    attempt.state = 'completed';
    attempt.adopted = true;
    this.p.journal.move(node, 'completed', reason);
    this.p.journal.checkpoint(`node ${node.id} completed`);
  }
}
