import type { A2AClient } from '../client/a2a-client.js';
import { TetherError, isTetherError } from '../errors/tether-error.js';
import { isInterruptedState, isTerminalState } from '../model/task-state.js';
import { randomId, type MessageInput } from '../model/message-input.js';
import type { Metadata, Part, Task } from '../model/types.js';
import type { Resend } from '../task/delivery.js';
import { RESILIENCE_DEFAULTS } from '../task/resilience.js';
import type { TaskHandle } from '../task/task-handle.js';
import type { TaskEvent, TaskView } from '../task/task-event.js';
import { realScheduler, sleep, type Scheduler } from '../util/scheduler.js';
import { hashInput } from './canonical.js';
import { checkHops, descendants, withDependents } from './graph.js';
import { addEntry, findEntry, findSentTask, sendOutcome, settle } from './ledger.js';
import { INITIAL_LIFECYCLE, isEnded, isStopped, live, nextLifecycle, type Lifecycle, type LifecycleInput } from './lifecycle.js';
import { moveNode } from './node-moves.js';
import { summarize } from './summary.js';
import { BudgetClock, DEADLINE, hopBudget, pauseBudget } from './budget-clock.js';
import {
  WORKFLOW_RECORD_VERSION,
  isFinalNodeState,
  type AttemptRecord,
  type CheckpointRecord,
  type CostRecord,
  type LedgerEntry,
  type NodeCancelRecord,
  type NodeRecord,
  type NodeState,
  type UpdateRecord,
  type WorkflowRecord,
} from './workflow-record.js';
import { MemoryWorkflowStore, type WorkflowStore } from './workflow-store.js';
import type {
  ActionSpec,
  Breach,
  Escalation,
  HopResult,
  HopSpec,
  LookupAnswer,
  PauseAnswer,
  PauseAnswerOutcome,
  WorkflowEvent,
  WorkflowOptions,
  WorkflowPause,
  WorkflowSummary,
  WorkflowUpdate,
} from './workflow-types.js';

/** Metadata keys Tether puts on every hop's message. */
export const WORKFLOW_METADATA = {
  workflow: 'a2a-tether/workflow',
  node: 'a2a-tether/node',
  revision: 'a2a-tether/revision',
} as const;

const DEFAULT_CANCEL_WAIT_MS = 5_000;
/** A cancel request is answered within twice `cancelWaitMs`, and at least this (ms). */
const MIN_CANCEL_ANSWER_MS = 1_000;
/** Sends of one node (per revision) verified as never delivered before the node fails instead of sending again. */
const MAX_UNDELIVERED = 3;
/** While a lost send is looked for (see `resolveSend`), ListTasks this often (ms). */
const LOOK_AGAIN_MS = 1_000;
const NOT_DELIVERED = 'not delivered';
const UPDATE_KINDS = new Set(['question', 'correction', 'pause', 'resume', 'cancel', 'new-goal']);

interface Live {
  handle: TaskHandle;
}

interface PendingPause extends WorkflowPause {
  attempt: number;
}

function invalid(message: string): TetherError {
  return new TetherError('INVALID_ARGUMENT', message, { maybeDelivered: false });
}

function errorInfo(error: unknown): { code: string; message: string } {
  if (isTetherError(error)) return { code: error.code, message: error.message };
  return { code: 'ERROR', message: error instanceof Error ? error.message : String(error) };
}

/** The default cost reader: `metadata.cost` of the task, else of its final status message. */
export function defaultCost(task: Task): CostRecord | undefined {
  const raw = task.metadata?.['cost'] ?? task.status.message?.metadata?.['cost'];
  if (typeof raw === 'number' && Number.isFinite(raw)) return { amount: raw, unit: 'units' };
  if (raw !== null && typeof raw === 'object') {
    const { amount, unit } = raw as { amount?: unknown; unit?: unknown };
    if (typeof amount === 'number' && Number.isFinite(amount)) return { amount, unit: typeof unit === 'string' ? unit : 'units' };
  }
  return undefined;
}

/** The revisions an answer says it was made for: `a2a-tether/revision` (a number or digits) in each metadata given. */
function echoedRevisions(sources: ReadonlyArray<Metadata | undefined>): number[] {
  const out: number[] = [];
  for (const metadata of sources) {
    const value = metadata?.[WORKFLOW_METADATA.revision];
    if (typeof value === 'number') out.push(value);
    else if (typeof value === 'string' && /^\d+$/.test(value)) out.push(Number(value));
  }
  return out;
}

/** Where a task's answer can name its revision: the task, its final status message, its artifacts. */
function answerMetadata(task: Task): Array<Metadata | undefined> {
  return [task.metadata, task.status.message?.metadata, ...task.artifacts.map((a) => a.metadata)];
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

/**
 * Starts a workflow, or resumes it when `options.store` already holds one with this id: finished
 * hops are not run again (their checkpoints are reused), running hops are followed again by task id,
 * and a send whose outcome the crash left unknown is looked up before anything is sent again.
 *
 * @throws TetherError `INVALID_ARGUMENT` for a malformed graph (unknown agents or dependencies, cycles)
 *   or hops that do not match the stored workflow; the store's errors.
 */
export async function startWorkflow(options: WorkflowOptions): Promise<Workflow> {
  checkHops(options.hops, options.agents);
  if (typeof options.id !== 'string' || options.id === '') throw invalid('a workflow needs an id');
  const store = options.store ?? new MemoryWorkflowStore();
  const scheduler = options.scheduler ?? realScheduler;
  const now = options.now ?? (() => scheduler.now());
  const newId = options.newId ?? randomId;
  let record = await store.load(options.id);
  if (record) {
    if (record.schemaVersion > WORKFLOW_RECORD_VERSION) {
      throw new TetherError('STORE_CORRUPT', `workflow ${options.id} was written by a newer version of Tether (schema ${record.schemaVersion})`, {
        maybeDelivered: false,
      });
    }
    const stored = Object.keys(record.nodes).sort().join(',');
    const given = options.hops.map((h) => h.id).sort().join(',');
    if (stored !== given) throw invalid(`workflow ${options.id} is stored with hops ${stored}, not ${given}`);
    for (const hop of options.hops) {
      const node = record.nodes[hop.id] as NodeRecord;
      if (node.parent !== hop.parent || [...node.dependsOn].sort().join(',') !== [...(hop.dependsOn ?? [])].sort().join(',')) {
        throw invalid(`workflow ${options.id}: hop ${hop.id} is stored with other edges (parent ${node.parent ?? 'none'}, depends on ${node.dependsOn.join(',') || 'nothing'})`);
      }
    }
  } else {
    const at = new Date(now()).toISOString();
    record = {
      schemaVersion: WORKFLOW_RECORD_VERSION,
      id: options.id,
      contextId: newId(),
      state: 'running',
      createdAt: at,
      ...(options.deadlineMs === undefined ? {} : { deadlineAt: now() + options.deadlineMs }),
      revision: 1,
      revisions: [{ n: 1, text: options.goal, updateSeq: 0, at }],
      updates: [],
      nodes: Object.fromEntries(
        options.hops.map((h): [string, NodeRecord] => [
          h.id,
          { id: h.id, agent: h.agent, ...(h.parent === undefined ? {} : { parent: h.parent }), dependsOn: [...(h.dependsOn ?? [])], state: 'pending', attempts: [] },
        ]),
      ),
      ledger: [],
      checkpoints: [],
    };
    await store.save(record);
  }
  const workflow = new Workflow(options, store, record);
  workflow.boot();
  return workflow;
}

/**
 * A running delegation graph: hops on several agents, followed and persisted. Read `events()`, answer
 * `pauses()`, redirect with `update()`, cancel with `cancel()`, run your own side effects through
 * `act()`, and `done()` for the summary. Create one with {@link startWorkflow}.
 */
export class Workflow {
  private readonly hops: Map<string, HopSpec>;
  private readonly live = new Map<string, Live>();
  private readonly pending = new Map<string, PendingPause>();
  /** Ledger entries whose action is running now (a send awaiting its answer, an act() performing). */
  private readonly inflight = new Set<string>();
  /** The lookups act() was given, by ledger entry id (for reconciling after an update). */
  private readonly lookups = new Map<string, (key: string) => Promise<LookupAnswer>>();
  /** Cancel requests on their way: the workflow ends only once each is answered. */
  private readonly cancelling = new Set<Promise<void>>();
  /** Attempts being stopped on purpose, and the state their node ends in. */
  private readonly stopping = new Map<string, 'canceled' | 'timed-out'>();
  private readonly log: WorkflowEvent[] = [];
  /** Node events whose change is not written yet (see save()). */
  private readonly unsaved: WorkflowEvent[] = [];
  private readonly wake = new Set<() => void>();
  private saving: Promise<void> = Promise.resolve();
  private lifecycle: Lifecycle = INITIAL_LIFECYCLE;
  private readonly clock: BudgetClock;
  private readonly scheduler: Scheduler;
  private readonly result: { promise: Promise<WorkflowSummary>; resolve(s: WorkflowSummary): void; reject(e: unknown): void };
  private readonly now: () => number;
  private readonly newId: () => string;

  /** @internal Use {@link startWorkflow}. */
  constructor(
    private readonly options: WorkflowOptions,
    private readonly store: WorkflowStore,
    private record: WorkflowRecord,
  ) {
    this.hops = new Map(options.hops.map((h) => [h.id, h]));
    this.scheduler = options.scheduler ?? realScheduler;
    this.now = options.now ?? (() => this.scheduler.now());
    this.clock = new BudgetClock(this.scheduler, (breach) => void this.breach(breach));
    this.newId = options.newId ?? randomId;
    let resolve!: (s: WorkflowSummary) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<WorkflowSummary>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => undefined);
    this.result = { promise, resolve, reject };
  }

  /** The workflow's id. */
  get id(): string {
    return this.record.id;
  }

  /** The A2A context every hop's task shares. */
  get contextId(): string {
    return this.record.contextId;
  }

  /** The instruction revision in force: pass it to `act()` as the revision an action was decided under. */
  get revision(): number {
    return this.record.revision;
  }

  /** A copy of the persisted record. */
  get snapshot(): WorkflowRecord {
    return structuredClone(this.record);
  }

  /** The human pauses waiting for an answer, oldest first. */
  pauses(): WorkflowPause[] {
    return [...this.pending.values()].map(({ attempt: _attempt, ...pause }) => pause);
  }

  /** Every event from the start, then live ones, until the workflow ends (each reader gets all of them). */
  async *events(options: { signal?: AbortSignal | undefined } = {}): AsyncGenerator<WorkflowEvent> {
    let index = 0;
    for (;;) {
      while (index < this.log.length) {
        const event = this.log[index++] as WorkflowEvent;
        yield event;
        if (event.type === 'done') return;
      }
      if (options.signal?.aborted || isStopped(this.lifecycle) || this.lifecycle.phase === 'broken') return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.wake.delete(done);
          options.signal?.removeEventListener('abort', done);
          resolve();
        };
        this.wake.add(done);
        options.signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** The summary once every node has ended. Rejects only when the store fails. */
  done(): Promise<WorkflowSummary> {
    return this.result.promise;
  }

  /** What a user can read now: what changed, what was completed before, what is unresolved, the tree. */
  summary(): WorkflowSummary {
    return summarize(this.record, this.options.hops, this.now());
  }

  /**
   * Answers pauses (several at once): each answer goes to its node's task as a reply. An answer to a
   * pause no longer pending fails alone (`ok: false`).
   */
  async answer(answers: PauseAnswer[]): Promise<PauseAnswerOutcome[]> {
    return Promise.all(
      answers.map(async ({ pause, input }): Promise<PauseAnswerOutcome> => {
        const id = typeof pause === 'string' ? pause : pause.id;
        const found = this.pending.get(id);
        if (!found) return { pause: id, node: undefined, ok: false, error: invalid(`no pause ${id} is waiting for an answer`) };
        const live = this.live.get(`${found.node}#${found.attempt}`);
        if (!live) return { pause: id, node: found.node, ok: false, error: invalid(`the task of pause ${id} is no longer followed`) };
        const base = typeof input === 'string' ? { text: input } : input;
        const attempt = this.node(found.node).attempts.find((a) => a.n === found.attempt);
        const metadata = { ...base.metadata, [WORKFLOW_METADATA.workflow]: this.record.id, [WORKFLOW_METADATA.node]: found.node, [WORKFLOW_METADATA.revision]: attempt?.revision ?? this.record.revision };
        try {
          await live.handle.reply({ ...base, metadata });
        } catch (error) {
          return { pause: id, node: found.node, ok: false, error: error instanceof Error ? error : new Error(String(error)) };
        }
        this.clearPause(id);
        this.emit({ type: 'pause-answered', pause: id, node: found.node });
        return { pause: id, node: found.node, ok: true };
      }),
    );
  }

  /**
   * Applies a user's update while the work runs. In order: the update (and, for a correction or new
   * goal, the new revision) is persisted; the admission gate closes on the old revision (`act()` with
   * it is refused, affected nodes become `pending-reconciliation`); a stop is requested for the
   * affected running tasks and what they do is observed; unknown actions of the old revision are
   * looked up; a checkpoint is stored; then each affected node starts again as a successor task
   * (`referenceTaskIds` to the old one, same context, the new revision in its metadata). A late result
   * of a superseded task is kept for audit and never adopted.
   *
   * A `question` is only recorded (read `summary()`); `pause` stops new hops from starting (running
   * ones go on: a pause is not a cancel) until `resume`; `cancel` cancels the whole workflow.
   */
  async update(update: WorkflowUpdate): Promise<UpdateRecord> {
    if (!UPDATE_KINDS.has(update.kind)) throw invalid(`unknown update kind ${JSON.stringify(update.kind)}`);
    if (isEnded(this.lifecycle)) throw invalid(`workflow ${this.id} has ended (${this.record.state})`);
    for (const id of update.affects ?? []) if (!this.hops.has(id)) throw invalid(`update affects an unknown hop ${JSON.stringify(id)}`);
    const at = this.iso();
    const by = update.by ?? 'user';
    const seq = this.record.updates.length + 1;
    const changes = update.kind === 'correction' || update.kind === 'new-goal';
    let affected: string[] = [];
    if (changes) {
      const previous = this.record.revision;
      this.record.revision = previous + 1;
      this.record.revisions.push({ n: this.record.revision, text: update.text, updateSeq: seq, at, supersedes: previous });
      const base =
        update.affects ?? (update.kind === 'new-goal' ? [...this.hops.keys()] : [...this.hops.keys()].filter((id) => this.node(id).state !== 'completed'));
      affected = withDependents(this.options.hops, base);
    }
    const record: UpdateRecord = { seq, kind: update.kind, text: update.text, by, at, revision: this.record.revision, ...(changes ? { affects: affected } : {}) };
    this.record.updates.push(record);
    if (update.kind === 'pause') this.record.state = 'paused';
    if (update.kind === 'resume' && this.record.state === 'paused') this.record.state = 'running';
    // 1. Persisted before anything acts on it.
    await this.save();
    this.emit({ type: 'update', update: record });
    if (update.kind === 'cancel') {
      await this.cancel({ by, reason: update.text });
      return record;
    }
    if (!changes) {
      this.advance();
      return record;
    }
    // 2. The gate: the old revision's work is pending reconciliation.
    const superseded: Array<{ node: NodeRecord; attempt: AttemptRecord }> = [];
    for (const id of affected) {
      const node = this.node(id);
      const attempt = node.attempts.at(-1);
      if (attempt?.adopted) {
        attempt.adopted = false;
        attempt.rejectedReason = `superseded by revision ${this.record.revision} (update ${seq})`;
      }
      if (attempt && !isFinalNodeState(attempt.state) && attempt.state !== 'pending-reconciliation') superseded.push({ node, attempt });
      for (const [pause, p] of this.pending) if (p.node === id) this.clearPause(pause);
      if (attempt && !attempt.rejectedReason) attempt.rejectedReason = `superseded by revision ${this.record.revision} (update ${seq})`;
      if (node.state !== 'pending') this.setNode(node, 'pending-reconciliation', `superseded by update ${seq}`);
    }
    await this.save();
    // 3. Stop requested, then observed: the superseded tasks keep being followed (a late result is
    // recorded and rejected), and their cancel records are settled as they answer. The gate already
    // keeps their results out, so the successors need not wait for that.
    for (const { node, attempt } of superseded) {
      if (attempt.taskId !== undefined) void this.requestCancel(node, attempt, by, `superseded by revision ${this.record.revision}`, { detach: false }).catch((error: unknown) => this.fail(error));
    }
    // 4. Unknown effects of older revisions: looked up where possible.
    await this.reconcileOlder();
    // 5. The transition's checkpoint.
    this.checkpoint(`update ${seq} (${update.kind})`);
    // 6. Successors: the affected nodes start again under the new revision.
    for (const id of affected) {
      const node = this.node(id);
      if (node.state === 'pending-reconciliation') this.setNode(node, 'pending', `successor for revision ${this.record.revision}`);
    }
    await this.save();
    this.advance();
    return record;
  }

  /**
   * Cancels a node and every node below it (or, without `node`, the whole workflow). A running task
   * gets a cancel request; its record says who, why, when, and whether the agent confirmed
   * (`confirmed`) or only took the request (`requested`, then the node is `cancel-requested`). A node
   * that never ran is `canceled` with outcome `not-started`.
   */
  async cancel(options: { node?: string | undefined; by: string; reason: string }): Promise<Record<string, NodeCancelRecord | undefined>> {
    if (options.node !== undefined && !this.hops.has(options.node)) throw invalid(`no hop ${JSON.stringify(options.node)}`);
    if (isEnded(this.lifecycle)) {
      // Nothing runs any more: what the record says stands.
      const ids = options.node === undefined ? [...this.hops.keys()] : [options.node, ...descendants(this.options.hops, options.node)];
      return Object.fromEntries(ids.map((id) => [id, this.node(id).attempts.at(-1)?.cancel ?? this.node(id).cancel]));
    }
    const targets = options.node === undefined ? [...this.hops.keys()] : [options.node, ...descendants(this.options.hops, options.node)];
    if (options.node === undefined && !this.record.cancel) {
      this.record.cancel = { by: options.by, reason: options.reason, at: this.iso() };
      if (this.record.state === 'paused') this.record.state = 'running'; // nothing will start: the workflow can end
    }
    await this.stopNodes(targets, options.by, options.reason, 'canceled');
    const out: Record<string, NodeCancelRecord | undefined> = {};
    for (const id of targets) {
      const node = this.node(id);
      out[id] = node.attempts.at(-1)?.cancel ?? node.cancel;
    }
    this.advance();
    return out;
  }

  /**
   * Runs one of your own side effects through the ledger and the admission gate:
   * - refused with `SUPERSEDED` when `spec.revision` is older than the revision in force (nothing runs);
   * - a key already confirmed returns the recorded result without running again;
   * - a key whose earlier outcome is unknown is looked up first (`spec.lookup`): found → its result;
   *   surely absent → performed again with the same key; no answer → `ACTION_UNRESOLVED`, not performed;
   * - the same key with another input is `INVALID_ARGUMENT` (a key names one intended action).
   * The intent is persisted before `perform` runs, so a crash leaves it for reconciliation.
   */
  async act<T>(spec: ActionSpec<T>): Promise<T> {
    const inputHash = await hashInput({ target: spec.target, operation: spec.operation, input: spec.input });
    let entry = findEntry(this.record, spec.target, spec.operation, spec.key);
    if (spec.revision < this.record.revision) {
      const refused = addEntry(this.record, this.iso(), { ...this.fields(spec, inputHash), outcome: 'refused', note: `revision ${spec.revision} superseded by ${this.record.revision}` });
      await this.save();
      this.emit({ type: 'action', entry: structuredClone(refused) });
      throw new TetherError('SUPERSEDED', `${spec.operation} on ${spec.target} was decided under revision ${spec.revision}; revision ${this.record.revision} is in force`, {
        maybeDelivered: false,
      });
    }
    if (entry && entry.inputHash !== inputHash) {
      throw invalid(`key ${spec.key} already names another ${spec.operation} on ${spec.target} (different input): use a new key for a new action`);
    }
    if (entry?.outcome === 'confirmed-success') return entry.result as T;
    if (entry && (entry.outcome === 'unknown' || entry.outcome === 'unresolved' || entry.outcome === 'intended')) {
      const looked = await this.lookUp(entry, spec);
      if (looked.found) return looked.result;
    }
    if (entry) settle(entry, this.iso(), 'intended', 'attempt');
    else entry = addEntry(this.record, this.iso(), this.fields(spec, inputHash));
    await this.save();
    if (spec.revision < this.record.revision) {
      settle(entry, this.iso(), 'refused', `revision ${spec.revision} superseded by ${this.record.revision} before it ran`);
      await this.save();
      throw new TetherError('SUPERSEDED', `${spec.operation} on ${spec.target}: revision ${spec.revision} was superseded before it ran`, { maybeDelivered: false });
    }
    if (spec.lookup) this.lookups.set(entry.id, spec.lookup);
    this.inflight.add(entry.id);
    try {
      const result = await spec.perform(spec.key);
      this.inflight.delete(entry.id);
      settle(entry, this.iso(), 'confirmed-success', undefined, result ?? null);
      await this.save();
      this.emit({ type: 'action', entry: structuredClone(entry) });
      return result;
    } catch (error) {
      this.inflight.delete(entry.id);
      if (isTetherError(error) && !error.maybeDelivered) {
        settle(entry, this.iso(), 'confirmed-failure', error.message);
        await this.save();
        throw error;
      }
      settle(entry, this.iso(), 'unknown', errorInfo(error).message);
      await this.save();
      const looked = await this.lookUp(entry, spec, error);
      if (looked.found) return looked.result;
      throw error;
    }
  }

  /**
   * Stops following without cancelling anything: timers stop, tasks run on at their agents, and the
   * record stays as it is — `startWorkflow` with the same id and store picks it up.
   */
  stop(): void {
    this.to({ type: 'stop' });
    this.clearTimers();
    this.detachAll();
    for (const wake of [...this.wake]) wake();
  }

  /** Stops following every live task (their budget timers too); the tasks themselves run on. */
  private detachAll(): void {
    for (const live of this.live.values()) live.handle.detach();
    this.live.clear();
  }

  /** @internal Picks up where the record stands (new or restarted). */
  boot(): void {
    if (this.record.state !== 'running' && this.record.state !== 'paused') {
      this.to({ type: 'end' });
      const summary = this.summary();
      this.emit({ type: 'done', summary });
      this.result.resolve(summary);
      return;
    }
    const signal = this.options.signal;
    if (signal) {
      const abort = (): void => {
        const reason: unknown = signal.reason;
        void this.cancel({ by: 'signal', reason: reason instanceof Error ? reason.message : String(reason ?? 'aborted') }).catch((error: unknown) => this.fail(error));
      };
      if (signal.aborted) queueMicrotask(abort);
      else signal.addEventListener('abort', abort, { once: true });
    }
    if (this.record.deadlineAt !== undefined) {
      this.clock.arm(DEADLINE, this.record.deadlineAt - this.now(), { kind: 'deadline', budgetMs: this.options.deadlineMs ?? 0 });
    }
    const restarts: Array<Promise<void>> = [];
    for (const node of Object.values(this.record.nodes)) {
      const attempt = node.attempts.at(-1);
      if (node.state === 'pending-reconciliation') {
        this.setNode(node, 'pending', 'restarted during an update');
        continue;
      }
      if (!attempt || isFinalNodeState(node.state) || node.state === 'pending') continue;
      restarts.push(this.recover(node, attempt));
    }
    restarts.push(this.save());
    void Promise.all(restarts)
      .then(() => this.advance())
      .catch((error: unknown) => this.fail(error));
  }

  // ————— hops —————

  private async recover(node: NodeRecord, attempt: AttemptRecord): Promise<void> {
    if (attempt.taskId !== undefined) {
      await this.resumeAttempt(node, attempt, attempt.taskId);
      return;
    }
    const entry = findEntry(this.record, attempt.agent, 'SendMessage', attempt.messageId);
    if (entry) settle(entry, this.iso(), 'unknown', 'the orchestrator stopped before the send was answered');
    await this.resolveSend(node, attempt, entry);
  }

  private async resumeAttempt(node: NodeRecord, attempt: AttemptRecord, taskId: string): Promise<void> {
    let handle: TaskHandle;
    try {
      handle = await this.client(attempt.agent).resume(taskId);
    } catch (error) {
      // The task may still run at the agent: nothing here can follow it, so say so rather than call it failed.
      attempt.error = errorInfo(error);
      attempt.endedAt = this.iso();
      attempt.state = 'unresolved';
      this.setNode(node, 'unresolved', `task ${taskId} may still run at ${attempt.agent}, but it could not be followed again: ${attempt.error.message}`);
      await this.save();
      return;
    }
    this.unsaved.push({ type: 'node', node: node.id, state: node.state, attempt: attempt.n, taskId });
    await this.save();
    this.follow(node, attempt, handle);
  }

  /**
   * A send whose answer never came (lost, or the orchestrator stopped before it): find its task before
   * anything is sent again. A task not found is no proof the message did not arrive — an agent may store
   * its task seconds later — so it is looked for until the engine's lookup budget (`lostSendLookupMs`)
   * has passed since the send began (a restart can come right after it), then the send is unresolved,
   * never sent again. `lookedFor`: the engine already looked for its whole budget (`DELIVERY_UNKNOWN`).
   */
  private async resolveSend(node: NodeRecord, attempt: AttemptRecord, entry: LedgerEntry | undefined, lookedFor = false): Promise<void> {
    const client = this.client(attempt.agent);
    const until = lookedFor ? 0 : Date.parse(attempt.startedAt) + RESILIENCE_DEFAULTS.lostSendLookupMs;
    let found = await findSentTask(client, this.record.contextId, attempt.messageId);
    while (found === undefined && this.now() < until && !isStopped(this.lifecycle)) {
      await sleep(this.scheduler, LOOK_AGAIN_MS);
      found = await findSentTask(client, this.record.contextId, attempt.messageId);
    }
    if (isStopped(this.lifecycle)) return;
    if (found === 'unknowable' || found === undefined) {
      const why =
        found === 'unknowable'
          ? 'the agent offers no way to look for the task (no ListTasks) or the lookup failed'
          : 'no task with this message was found within the lookup budget (lostSendLookupMs), which proves nothing';
      if (entry) settle(entry, this.iso(), 'unresolved', `${why}: not sent again`);
      attempt.state = 'unresolved';
      attempt.endedAt = this.iso();
      this.setNode(node, 'unresolved', `message ${attempt.messageId} may have reached ${attempt.agent}; nothing can show it, so it is not sent again`);
      await this.save();
      return;
    }
    if (entry) settle(entry, this.iso(), 'confirmed-success', `found task ${found.id} by its message id`, { taskId: found.id });
    attempt.taskId = found.id;
    await this.save();
    await this.resumeAttempt(node, attempt, found.id);
  }

  /** A send that surely never reached the agent: the same intended action may go again, with the same key (a bounded number of times). */
  private async resendUndelivered(node: NodeRecord, attempt: AttemptRecord, entry: LedgerEntry, why: string): Promise<void> {
    settle(entry, this.iso(), 'confirmed-failure', `${NOT_DELIVERED} (${why})`);
    attempt.state = 'skipped';
    attempt.endedAt = this.iso();
    const lost = this.record.ledger
      .filter((e) => e.node === node.id && e.operation === 'SendMessage' && e.revision === attempt.revision)
      .reduce((n, e) => n + e.history.filter((h) => h.note?.startsWith(NOT_DELIVERED)).length, 0);
    if (lost >= MAX_UNDELIVERED) this.setNode(node, 'failed', `its message was not delivered ${lost} times (each verified): not sent again`);
    // A node cancelled while its message was out stays cancelled: it is not sent again.
    else if (node.state !== 'canceled') this.setNode(node, 'pending', 'its message was never delivered: sent again');
    await this.save();
    this.advance();
  }

  /** The engine sends the message again (same id, G6): the ledger says so (saved with the send's outcome). */
  private onResend(entry: LedgerEntry, resend: Resend): void {
    const why = resend.reason === 'not-delivered' ? 'the previous send surely never reached the agent' : 'its fate stayed unknown and the agent is said to deduplicate (resendUnknownDeliveries)';
    settle(entry, this.iso(), 'intended', `sent again (send ${resend.attempt}, the same message id): ${why}: ${resend.error.message}`);
    this.options.start?.onResend?.(resend);
  }

  private async launch(hop: HopSpec, node: NodeRecord): Promise<void> {
    const revision = this.record.revision;
    const previous = [...node.attempts].reverse().find((a) => a.taskId !== undefined);
    const results: Record<string, HopResult> = {};
    for (const dep of hop.dependsOn ?? []) {
      const result = this.resultOf(dep);
      if (result) results[dep] = result;
    }
    let input: MessageInput;
    try {
      input = await hop.input({ node: node.id, revision: this.record.revisions.at(-1) as WorkflowRecord['revisions'][number], results, ...(previous ? { previous: structuredClone(previous) } : {}) });
    } catch (error) {
      this.setNode(node, 'failed', `its input function threw: ${errorInfo(error).message}`);
      await this.save();
      return;
    }
    const base = typeof input === 'string' ? { text: input } : input;
    const references = [...(base.referenceTaskIds ?? []), ...(previous?.taskId ? [previous.taskId] : [])];
    const metadata = { ...base.metadata, [WORKFLOW_METADATA.workflow]: this.record.id, [WORKFLOW_METADATA.node]: node.id, [WORKFLOW_METADATA.revision]: revision };
    const body = { ...base, contextId: this.record.contextId, metadata, ...(references.length > 0 ? { referenceTaskIds: references } : {}) };
    const inputHash = await hashInput(body);
    // A send verified as never delivered is sent again with its key when the action is the same.
    const retry = node.attempts.at(-1);
    const same = retry?.state === 'skipped' && retry.revision === revision ? findEntry(this.record, retry.agent, 'SendMessage', retry.messageId) : undefined;
    const messageId = same?.inputHash === inputHash && same.outcome === 'confirmed-failure' ? same.key : this.newId();
    const client = this.client(node.agent);
    const attempt: AttemptRecord = {
      n: node.attempts.length + 1,
      agent: node.agent,
      agentUrl: client.interface.url,
      revision,
      messageId,
      ...(references.length > 0 ? { referenceTaskIds: references } : {}),
      state: 'running',
      startedAt: this.iso(),
    };
    node.attempts.push(attempt);
    const entry =
      same && same.key === messageId
        ? (settle(same, this.iso(), 'intended', 'sent again after verifying it was never delivered'), same)
        : addEntry(this.record, this.iso(), { revision, target: node.agent, operation: 'SendMessage', key: messageId, inputHash, node: node.id });
    this.setNode(node, 'running');
    await this.save();
    // The gate again: an update may have come while the intent was written.
    if (attempt.rejectedReason !== undefined || this.record.state !== 'running' || node.state !== 'running' || isStopped(this.lifecycle)) {
      settle(entry, this.iso(), 'refused', 'the gate closed before it was sent');
      attempt.state = 'skipped';
      attempt.endedAt = this.iso();
      if (node.state === 'running') this.setNode(node, 'pending');
      await this.save();
      return;
    }
    this.armHopTimer(hop, node, attempt);
    let handle: TaskHandle;
    this.inflight.add(entry.id);
    try {
      handle = await client.start({ ...body, messageId }, { ...this.options.start, onResend: (resend) => this.onResend(entry, resend) });
    } catch (error) {
      this.inflight.delete(entry.id);
      attempt.error = errorInfo(error);
      const outcome = sendOutcome(error);
      if (outcome === 'not-delivered') {
        this.clearHopTimer(node, attempt);
        await this.resendUndelivered(node, attempt, entry, attempt.error.message);
        return;
      }
      if (outcome === 'failed') {
        settle(entry, this.iso(), 'confirmed-failure', attempt.error.message);
        attempt.state = 'failed';
        attempt.endedAt = this.iso();
        this.clearHopTimer(node, attempt);
        this.setNode(node, 'failed', attempt.error.message);
        await this.save();
        return;
      }
      settle(entry, this.iso(), 'unknown', attempt.error.message);
      await this.save();
      this.clearHopTimer(node, attempt);
      // DELIVERY_UNKNOWN: the engine already looked for it for its whole lookup budget.
      await this.resolveSend(node, attempt, entry, isTetherError(error) && error.code === 'DELIVERY_UNKNOWN');
      return;
    }
    this.inflight.delete(entry.id);
    if (handle.kind === 'message') {
      settle(entry, this.iso(), 'confirmed-success', 'answered with a message');
      const message = handle.message;
      attempt.endedAt = this.iso();
      attempt.artifacts = message ? [{ artifact: { artifactId: 'message', parts: message.parts }, complete: true }] : [];
      this.clearHopTimer(node, attempt);
      this.adoptOrRefuse(node, attempt, [message?.metadata]);
      await this.save();
      return;
    }
    attempt.taskId = handle.taskId;
    settle(entry, this.iso(), 'confirmed-success', undefined, { taskId: handle.taskId });
    this.unsaved.push({ type: 'node', node: node.id, state: node.state, attempt: attempt.n, taskId: attempt.taskId });
    await this.save();
    this.follow(node, attempt, handle);
    // The send was in flight when an update superseded it or a cancel reached the node: the task exists now, so ask it to stop.
    if (attempt.rejectedReason !== undefined) {
      await this.requestCancel(node, attempt, 'workflow', `superseded by revision ${this.record.revision} while it was being sent`, { detach: false });
    } else if (node.state !== 'running' || this.failing !== undefined || isStopped(this.lifecycle)) {
      const why = node.cancel ?? this.record.cancel;
      await this.requestCancel(node, attempt, why?.by ?? this.options.budgetActor ?? 'budget', why?.reason ?? 'cancelled while it was being sent', { detach: true, state: 'canceled' });
    }
  }

  private follow(node: NodeRecord, attempt: AttemptRecord, handle: TaskHandle): void {
    const key = `${node.id}#${attempt.n}`;
    this.live.set(key, { handle });
    void (async () => {
      try {
        for await (const event of handle.events()) this.onTaskEvent(node, attempt, event);
      } catch {
        // done() reports the failure
      }
      let task: Task | undefined;
      let error: unknown;
      try {
        task = await handle.done();
      } catch (e) {
        error = e;
      }
      this.live.delete(key);
      if (isStopped(this.lifecycle)) return;
      await this.onAttemptEnd(node, attempt, handle.view, task, error);
    })().catch((error: unknown) => this.fail(error));
  }

  private onTaskEvent(node: NodeRecord, attempt: AttemptRecord, event: TaskEvent): void {
    attempt.firstEventAt ??= this.iso();
    if (event.type !== 'status') return;
    attempt.taskState = event.state;
    // An update that affects the node marks its attempt superseded (rejectedReason); others stay current
    // across revisions: a correction keeps what it does not touch.
    const current = node.attempts.at(-1) === attempt && attempt.rejectedReason === undefined;
    if (isInterruptedState(event.state) && current && !isFinalNodeState(attempt.state)) {
      attempt.state = event.state as NodeState;
      this.setNode(node, event.state as NodeState);
      const id = `${node.id}/${attempt.n}/${this.log.length}`;
      for (const [other, p] of this.pending) if (p.node === node.id) this.clearPause(other);
      const pause: PendingPause = {
        id,
        node: node.id,
        agent: attempt.agent,
        taskId: attempt.taskId ?? '',
        state: event.state as PendingPause['state'],
        ...(event.message ? { message: event.message } : {}),
        since: this.iso(),
        attempt: attempt.n,
      };
      const sla = this.hops.get(node.id)?.pauseSlaMs;
      if (sla !== undefined) this.clock.arm(pauseBudget(id), sla, { kind: 'pause-sla', node: node.id, taskId: attempt.taskId, budgetMs: sla });
      this.pending.set(id, pause);
      const { attempt: _a, ...visible } = pause;
      this.unsaved.push({ type: 'pause', pause: visible });
      void this.save().catch((error: unknown) => this.fail(error));
    } else if (!isTerminalState(event.state) && !isInterruptedState(event.state) && isInterruptedState(attempt.state as never) && current) {
      for (const [other, p] of this.pending) if (p.node === node.id) this.clearPause(other);
      attempt.state = 'running';
      this.setNode(node, 'running');
      void this.save().catch((error: unknown) => this.fail(error));
    }
  }

  private async onAttemptEnd(node: NodeRecord, attempt: AttemptRecord, view: TaskView, task: Task | undefined, error: unknown): Promise<void> {
    this.clearHopTimer(node, attempt);
    for (const [id, p] of this.pending) if (p.node === node.id && p.attempt === attempt.n) this.clearPause(id);
    const final = task ?? viewTask(view);
    attempt.endedAt = this.iso();
    attempt.artifacts = view.artifacts.map((artifact) => ({ artifact, complete: !view.incompleteArtifacts.includes(artifact.artifactId) }));
    if (view.statusMessage) attempt.statusMessage = view.statusMessage;
    attempt.taskState = final.status.state;
    const cost = (this.options.cost ?? defaultCost)(final);
    if (cost) attempt.cost = cost;
    if (attempt.cancel) {
      attempt.cancel.state = final.status.state;
      if (cost) attempt.cancel.cost = cost;
      if (final.status.state === 'canceled' && attempt.cancel.outcome !== 'confirmed') {
        attempt.cancel.outcome = 'confirmed';
        attempt.cancel.confirmedAt = this.iso();
      } else if (isTerminalState(final.status.state) && attempt.cancel.outcome === 'requested') {
        attempt.cancel.outcome = 'ignored';
      }
    }
    const intent = this.stopping.get(`${node.id}#${attempt.n}`);
    this.stopping.delete(`${node.id}#${attempt.n}`);
    const stoppedByUs = intent !== undefined;
    if (error !== undefined && !(stoppedByUs && isTetherError(error) && error.code === 'ABORTED')) attempt.error = errorInfo(error);
    const current = node.attempts.at(-1) === attempt;
    if (attempt.rejectedReason !== undefined || !current) {
      // A late result of superseded work: kept for audit, never adopted.
      attempt.adopted = false;
      attempt.rejectedReason ??= `late result of revision ${attempt.revision}; revision ${this.record.revision} is in force`;
      if (!isFinalNodeState(attempt.state)) attempt.state = this.taskOutcome(final, error);
      await this.save();
      this.emit({ type: 'late-result', node: node.id, taskId: attempt.taskId, reason: attempt.rejectedReason });
      this.advance();
      return;
    }
    if (stoppedByUs) {
      // Stopped on purpose: a budget's cancel is `timed-out` whatever the agent did; a cancel the agent confirmed is `canceled`.
      if (intent === 'timed-out') attempt.state = 'timed-out';
      else if (final.status.state === 'canceled') attempt.state = 'canceled';
      else if (!isFinalNodeState(attempt.state)) attempt.state = isTerminalState(final.status.state) ? this.taskOutcome(final, error) : 'cancel-requested';
      if (node.state === 'pending') {
        // Handed to another agent: its next attempt decides the node's state and result.
        attempt.rejectedReason ??= node.reason ?? 'handed to another agent';
      } else if (attempt.state === 'completed') {
        this.adoptOrRefuse(node, attempt, answerMetadata(final), 'completed before the cancel took effect');
      } else {
        this.setNode(node, attempt.state, attempt.cancel?.reason ?? node.reason);
      }
    } else {
      const state = this.taskOutcome(final, error);
      if (state === 'completed') this.adoptOrRefuse(node, attempt, answerMetadata(final));
      else {
        attempt.state = state;
        this.setNode(node, state, attempt.error?.message ?? `task ${final.status.state}`);
      }
    }
    await this.save();
    this.advance();
  }

  /**
   * Ends the current attempt of a node whose task (or message) completed: adopted and checkpointed, or —
   * when the answer names another revision than the attempt's, or names none where the hop requires the
   * echo — kept for audit with its `rejectedReason`, not adopted, and the node fails with that reason.
   * `metadata`: where the answer can name its revision.
   */
  private adoptOrRefuse(node: NodeRecord, attempt: AttemptRecord, metadata: ReadonlyArray<Metadata | undefined>, reason?: string): void {
    const echoed = echoedRevisions(metadata);
    const other = echoed.find((n) => n !== attempt.revision);
    const refused =
      other !== undefined
        ? `the agent answered for revision ${other}, not ${attempt.revision}`
        : echoed.length === 0 && this.hops.get(node.id)?.requireRevisionEcho === true
          ? `the answer does not carry revision ${attempt.revision} (${WORKFLOW_METADATA.revision} in its metadata), which this hop requires (requireRevisionEcho)`
          : undefined;
    if (refused !== undefined) {
      attempt.state = 'failed';
      attempt.rejectedReason = refused;
      this.setNode(node, 'failed', refused);
      return;
    }
    attempt.state = 'completed';
    attempt.adopted = true;
    this.setNode(node, 'completed', reason);
    this.checkpoint(`node ${node.id} completed`);
  }

  private taskOutcome(task: Task, error: unknown): NodeState {
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

  // ————— the loop —————

  private advance(): void {
    if (!live(this.lifecycle)) return;
    const idle = this.lifecycle.loop === 'idle';
    this.to({ type: 'step' });
    if (!idle) return; // the running step's loop takes it
    void (async () => {
      do await this.step();
      while (this.stepAgain());
    })().catch((error: unknown) => this.fail(error));
  }

  /** Ends a step: true when another was asked for meanwhile (and the workflow still runs). */
  private stepAgain(): boolean {
    this.to({ type: 'stepped' });
    return live(this.lifecycle) && this.lifecycle.loop === 'stepping';
  }

  private to(input: LifecycleInput): void {
    this.lifecycle = nextLifecycle(this.lifecycle, input);
  }

  /** Why the workflow is failing (an escalation decided it), while it is. */
  private get failing(): string | undefined {
    return this.lifecycle.phase === 'failing' ? this.lifecycle.reason : undefined;
  }

  private async step(): Promise<void> {
    const ready: Array<[HopSpec, NodeRecord]> = [];
    let changed = false;
    for (const hop of this.options.hops) {
      const node = this.node(hop.id);
      if (node.state !== 'pending') continue;
      const deps = node.dependsOn.map((d) => this.node(d));
      const blocked = deps.find((d) => isFinalNodeState(d.state) && d.state !== 'completed');
      if (blocked || this.failing !== undefined) {
        this.setNode(node, 'skipped', blocked ? `${blocked.id} ended ${blocked.state}` : this.failing);
        changed = true;
        continue;
      }
      if (this.record.state === 'running' && deps.every((d) => d.state === 'completed')) ready.push([hop, node]);
    }
    if (changed) await this.save();
    await Promise.all(ready.map(([hop, node]) => this.launch(hop, node)));
    const nodes = Object.values(this.record.nodes);
    if (nodes.every((n) => isFinalNodeState(n.state)) && this.record.state !== 'paused') await this.finish();
  }

  private async finish(): Promise<void> {
    if (isEnded(this.lifecycle)) return;
    // Every cancel asked for is answered first, so the record says what the agent confirmed.
    while (this.cancelling.size > 0) await Promise.allSettled([...this.cancelling]);
    if (isEnded(this.lifecycle) || !Object.values(this.record.nodes).every((n) => isFinalNodeState(n.state))) return;
    const failing = this.failing;
    this.to({ type: 'end' });
    this.clearTimers();
    // Superseded attempts still followed (their late results): stop watching; their cancel stays "requested".
    this.detachAll();
    const nodes = Object.values(this.record.nodes);
    const required = this.options.hops.filter((h) => h.required !== false).map((h) => this.node(h.id));
    const cancelledOnly = nodes.every((n) => n.state === 'canceled' || n.state === 'cancel-requested');
    this.record.state = this.record.cancel || cancelledOnly
      ? 'canceled'
      : failing !== undefined
        ? 'failed'
        : required.every((n) => n.state === 'completed') && nodes.every((n) => n.state === 'completed')
          ? 'completed'
          : nodes.some((n) => n.state === 'completed' || n.attempts.some((a) => (a.artifacts?.length ?? 0) > 0))
            ? 'partial'
            : 'failed';
    this.record.endedAt = this.iso();
    this.checkpoint(`workflow ${this.record.state}`);
    await this.save();
    const summary = this.summary();
    this.emit({ type: 'done', summary });
    this.result.resolve(summary);
  }

  private fail(error: unknown): void {
    if (isEnded(this.lifecycle)) return;
    this.to({ type: 'break', error });
    this.clearTimers();
    for (const live of this.live.values()) live.handle.detach();
    this.live.clear();
    this.result.reject(error);
    for (const wake of [...this.wake]) wake();
  }

  // ————— cancels and budgets —————

  private async stopNodes(ids: string[], by: string, reason: string, state: 'canceled' | 'timed-out'): Promise<void> {
    const work: Array<Promise<void>> = [];
    for (const id of ids) {
      const node = this.node(id);
      if (isFinalNodeState(node.state)) continue;
      const attempt = node.attempts.at(-1);
      const running = attempt && !isFinalNodeState(attempt.state) && attempt.state !== 'pending-reconciliation' && attempt.taskId !== undefined;
      if (!running || node.state === 'pending' || node.state === 'pending-reconciliation') {
        node.cancel = { by, reason, requestedAt: this.iso(), outcome: 'not-started' };
        this.setNode(node, 'canceled', reason);
        continue;
      }
      work.push(this.requestCancel(node, attempt, by, reason, { detach: true, state }));
    }
    await this.save();
    await Promise.all(work);
  }

  /**
   * Asks the agent to cancel an attempt's task and records what it confirmed. With `how.state`, the
   * node ends in that state (`canceled` becomes `cancel-requested` when the agent does not confirm);
   * without it (a superseded attempt) the attempt is only asked to stop and followed on.
   */
  private requestCancel(
    node: NodeRecord,
    attempt: AttemptRecord,
    by: string,
    reason: string,
    how: { detach: boolean; state?: 'canceled' | 'timed-out' },
  ): Promise<void> {
    const request = this.askToCancel(node, attempt, by, reason, how);
    this.cancelling.add(request);
    void request.finally(() => this.cancelling.delete(request)).catch(() => undefined);
    return request;
  }

  private async askToCancel(
    node: NodeRecord,
    attempt: AttemptRecord,
    by: string,
    reason: string,
    how: { detach: boolean; state?: 'canceled' | 'timed-out' },
  ): Promise<void> {
    const key = `${node.id}#${attempt.n}`;
    const taskId = attempt.taskId as string;
    const seenBefore = attempt.taskState;
    if (attempt.endedAt !== undefined) {
      // Its task ended before the request could go out (a short task answered all at once): nothing to ask.
      attempt.cancel = { by, reason, requestedAt: this.iso(), outcome: 'already-final', ...(seenBefore ? { state: seenBefore } : {}) };
      await this.save();
      return;
    }
    if (how.state) this.stopping.set(key, how.state);
    attempt.cancel = { by, reason, requestedAt: this.iso(), outcome: 'requested' };
    const asks = this.record.ledger.filter((e) => e.operation === 'CancelTask' && e.node === node.id).length;
    const entry = addEntry(this.record, this.iso(), {
      revision: attempt.revision,
      target: attempt.agent,
      operation: 'CancelTask',
      key: `cancel:${taskId}:${asks + 1}`,
      inputHash: await hashInput({ taskId, reason }),
      node: node.id,
    });
    await this.save();
    const live = this.live.get(key);
    try {
      if (!live) throw invalid(`task ${taskId} is not followed`);
      const waitMs = this.options.cancelWaitMs ?? DEFAULT_CANCEL_WAIT_MS;
      // Some agents hold the request open until the task ends: the wait bounds the request too.
      const outcome = await live.handle.cancel({ reason, waitMs, timeoutMs: Math.max(MIN_CANCEL_ANSWER_MS, 2 * waitMs) });
      const stopped = outcome.confirmed ? 'canceled' : isTerminalState(outcome.state) ? `no effect: the task is ${outcome.state}` : `request taken; task ${outcome.state}`;
      settle(entry, this.iso(), !outcome.confirmed && isTerminalState(outcome.state) ? 'confirmed-failure' : 'confirmed-success', stopped, {
        confirmed: outcome.confirmed,
        state: outcome.state,
      });
      attempt.cancel.state = outcome.state;
      if (outcome.confirmed) {
        attempt.cancel.outcome = 'confirmed';
        attempt.cancel.confirmedAt ??= this.iso();
      } else if (isTerminalState(outcome.state) && attempt.cancel.outcome === 'requested') {
        // Ended before the request, or ended otherwise after it.
        attempt.cancel.outcome = seenBefore !== undefined && isTerminalState(seenBefore) ? 'already-final' : 'ignored';
      }
    } catch (error) {
      // A request that may have arrived stays "requested" (unknown); one that surely did not is "failed".
      const reached = sendOutcome(error) === 'unknown';
      settle(entry, this.iso(), reached ? 'unknown' : 'confirmed-failure', errorInfo(error).message);
      if (attempt.cancel.outcome === 'requested' && !reached) attempt.cancel.outcome = 'failed';
      attempt.cancel.error = errorInfo(error).message;
    }
    const ended = attempt.endedAt !== undefined;
    if (how.state && !ended && attempt.cancel.outcome !== 'confirmed' && attempt.cancel.outcome !== 'already-final') {
      // Not confirmed: the record says "requested"; the workflow stops watching this task.
      attempt.state = how.state === 'timed-out' ? 'timed-out' : 'cancel-requested';
      if (node.attempts.at(-1) === attempt && node.state !== 'pending') this.setNode(node, attempt.state, reason);
    }
    await this.save();
    if (how.detach && live && !ended && !isTerminalState(attempt.cancel.state ?? 'working')) live.handle.detach();
  }

  private armHopTimer(hop: HopSpec, node: NodeRecord, attempt: AttemptRecord, ms = hop.timeoutMs): void {
    if (ms === undefined) return;
    this.clock.arm(hopBudget(node.id, attempt.n), ms, { kind: 'hop-timeout', node: node.id, taskId: attempt.taskId, budgetMs: ms });
  }

  private clearHopTimer(node: NodeRecord, attempt: AttemptRecord): void {
    this.clock.clear(hopBudget(node.id, attempt.n));
  }

  private async breach(breach: Breach): Promise<void> {
    if (!live(this.lifecycle)) return;
    let decision: Escalation = 'cancel';
    try {
      if (this.options.escalate) decision = await this.options.escalate(breach);
    } catch {
      decision = 'cancel';
    }
    this.emit({ type: 'escalation', breach, decision });
    const actor = this.options.budgetActor ?? 'budget';
    const why = `${breach.kind} after ${breach.budgetMs} ms`;
    try {
      if (breach.kind === 'deadline' || decision === 'fail') {
        if (decision === 'fail') this.to({ type: 'fail', reason: `${why}: escalation failed the workflow` });
        else if (typeof decision === 'object' && 'extendMs' in decision) {
          this.record.deadlineAt = this.now() + decision.extendMs;
          await this.save();
          this.clock.arm(DEADLINE, decision.extendMs, { kind: 'deadline', budgetMs: decision.extendMs });
          return;
        }
        await this.stopNodes([...this.hops.keys()], actor, why, 'timed-out');
        this.advance();
        return;
      }
      const node = this.node(breach.node as string);
      const attempt = node.attempts.at(-1);
      if (!attempt || isFinalNodeState(node.state) || attempt.taskId === undefined) return;
      if (typeof decision === 'object' && 'extendMs' in decision) {
        if (breach.kind === 'hop-timeout') this.armHopTimer(this.hops.get(node.id) as HopSpec, node, attempt, decision.extendMs);
        else {
          const pause = [...this.pending.values()].find((p) => p.node === node.id);
          if (pause) this.clock.arm(pauseBudget(pause.id), decision.extendMs, { ...breach, budgetMs: decision.extendMs });
        }
        return;
      }
      if (typeof decision === 'object' && 'handTo' in decision) {
        if (!Object.hasOwn(this.options.agents, decision.handTo)) throw invalid(`escalation hands ${node.id} to an unknown agent ${decision.handTo}`);
        // Pending again first, so the old attempt's end does not end the node.
        node.agent = decision.handTo;
        this.setNode(node, 'pending', `handed to ${decision.handTo} after ${why}`);
        await this.requestCancel(node, attempt, actor, `${why}: handed to ${decision.handTo}`, { detach: true, state: 'timed-out' });
        this.advance();
        return;
      }
      await this.stopNodes([node.id, ...descendants(this.options.hops, node.id)], actor, why, 'timed-out');
      this.advance();
    } catch (error) {
      this.fail(error);
    }
  }

  // ————— the ledger —————

  private fields(spec: ActionSpec<unknown>, inputHash: string): Omit<LedgerEntry, 'id' | 'history' | 'outcome'> {
    return { revision: spec.revision, target: spec.target, operation: spec.operation, key: spec.key, inputHash, ...(spec.node === undefined ? {} : { node: spec.node }) };
  }

  /** Settles an entry whose outcome is unknown by asking the target; unresolved (and throws) when it cannot. */
  private async lookUp<T>(entry: LedgerEntry, spec: ActionSpec<T>, cause?: unknown): Promise<{ found: true; result: T } | { found: false }> {
    let answer: Awaited<ReturnType<NonNullable<ActionSpec<T>['lookup']>>> | undefined;
    let failure: unknown;
    if (spec.lookup) {
      try {
        answer = await spec.lookup(spec.key);
      } catch (error) {
        failure = error;
      }
    }
    if (answer?.found) {
      settle(entry, this.iso(), 'confirmed-success', 'found by lookup', answer.result ?? null);
      await this.save();
      this.emit({ type: 'action', entry: structuredClone(entry) });
      return { found: true, result: answer.result };
    }
    if (answer) {
      settle(entry, this.iso(), 'confirmed-failure', 'lookup: the target has no such action');
      await this.save();
      return { found: false };
    }
    const why = spec.lookup ? `the lookup failed (${errorInfo(failure).message})` : 'there is no lookup';
    settle(entry, this.iso(), 'unresolved', `${why}: not attempted again`);
    await this.save();
    this.emit({ type: 'action', entry: structuredClone(entry) });
    throw new TetherError('ACTION_UNRESOLVED', `${spec.operation} on ${spec.target} (key ${spec.key}) may have happened and ${why}: it is not attempted again`, {
      maybeDelivered: true,
      cause: cause ?? failure,
    });
  }

  /**
   * Actions of older revisions whose outcome is unknown (a crash, a lost answer): sends are looked up by
   * message id, your actions with the lookup their `act()` gave. Actions still on their way are left to
   * finish — an admitted action stays in the ledger until its result is known.
   */
  private async reconcileOlder(): Promise<void> {
    for (const entry of this.record.ledger) {
      if (entry.revision >= this.record.revision || this.inflight.has(entry.id)) continue;
      if (entry.outcome !== 'unknown' && entry.outcome !== 'intended') continue;
      if (entry.operation === 'SendMessage') {
        const found = await findSentTask(this.client(entry.target), this.record.contextId, entry.key);
        if (found === 'unknowable') settle(entry, this.iso(), 'unresolved', 'no way to look for the task: not sent again');
        else if (found) settle(entry, this.iso(), 'confirmed-success', `found task ${found.id}`, { taskId: found.id });
        // Not found is no proof: the agent may store its task later. Unknown, and not sent again (it is superseded).
        else settle(entry, this.iso(), 'unknown', 'ListTasks shows no task with this message yet: not sent again');
        continue;
      }
      if (entry.operation === 'CancelTask') continue; // its attempt's cancel record says what is known
      const lookup = this.lookups.get(entry.id);
      let answer: LookupAnswer | undefined;
      try {
        answer = lookup ? await lookup(entry.key) : undefined;
      } catch {
        answer = undefined;
      }
      if (answer?.found) settle(entry, this.iso(), 'confirmed-success', 'found by lookup after the revision changed', answer.result ?? null);
      else if (answer) settle(entry, this.iso(), 'confirmed-failure', 'lookup after the revision changed: the target has no such action');
      else settle(entry, this.iso(), 'unresolved', lookup ? 'the lookup failed after the revision changed' : 'no lookup: nothing can settle it');
    }
  }

  // ————— small helpers —————

  private checkpoint(reason: string): void {
    const checkpoint: CheckpointRecord = {
      at: this.iso(),
      reason,
      revision: this.record.revision,
      realized: this.record.ledger.filter((e) => e.outcome === 'confirmed-success' && e.operation !== 'CancelTask').map((e) => e.id),
      reusable: Object.values(this.record.nodes)
        .filter((n) => n.state === 'completed')
        .map((n) => ({ node: n.id, taskId: n.attempts.find((a) => a.adopted)?.taskId })),
      pending: [
        ...this.record.ledger.filter((e) => e.outcome === 'unknown' || e.outcome === 'unresolved' || e.outcome === 'intended').map((e) => e.id),
        ...Object.values(this.record.nodes).flatMap((n) => n.attempts.filter((a) => a.cancel?.outcome === 'requested').map((a) => `cancel of task ${a.taskId}`)),
      ],
      ...(this.record.deadlineAt === undefined ? {} : { remainingMs: Math.max(0, this.record.deadlineAt - this.now()) }),
    };
    this.record.checkpoints.push(checkpoint);
  }

  private resultOf(id: string): HopResult | undefined {
    const attempt = this.node(id).attempts.find((a) => a.adopted);
    if (!attempt) return undefined;
    const artifacts = attempt.artifacts ?? [];
    const textOf = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    // Agents that answer in their final status message and produce no artifact (common with v0.3) still pass a text on.
    const text = artifacts.length > 0 ? textOf(artifacts.flatMap((a) => a.artifact.parts)) : textOf(attempt.statusMessage?.parts ?? []);
    return { node: id, taskId: attempt.taskId, artifacts, text, ...(attempt.statusMessage ? { statusMessage: attempt.statusMessage } : {}) };
  }

  /** Changes a node's state; its `node` event goes out once the next save has written it. */
  private setNode(node: NodeRecord, state: NodeState, reason?: string): void {
    const event = moveNode(node, state, reason);
    if (event) this.unsaved.push(event);
  }

  private clearPause(id: string): void {
    this.clock.clear(pauseBudget(id));
    this.pending.delete(id);
  }

  private clearTimers(): void {
    this.clock.clearAll();
    this.pending.clear();
  }

  private node(id: string): NodeRecord {
    const node = this.record.nodes[id];
    if (!node) throw invalid(`no node ${id}`);
    return node;
  }

  private client(agent: string): A2AClient {
    const client = this.options.agents[agent];
    if (!client) throw invalid(`no agent ${agent}`);
    return client;
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  private emit(event: WorkflowEvent): void {
    this.log.push(event);
    for (const wake of [...this.wake]) wake();
  }

  /** Persists a copy of the record (writes are applied in call order), then emits the node events it holds. */
  private save(): Promise<void> {
    const copy = structuredClone(this.record);
    const events = this.unsaved.splice(0);
    const write = this.saving.then(() => this.store.save(copy)).then(() => {
      for (const event of events) this.emit(event);
    });
    this.saving = write.catch(() => undefined);
    return write;
  }
}
