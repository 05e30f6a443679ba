import type { A2AClient } from '../client/a2a-client.js';
import { DEFAULTS } from '../defaults.js';
import type { LeaseKeeper } from '../task/lease-keeper.js';
import { randomId } from '../model/message-input.js';
import { realScheduler, type Scheduler } from '../util/scheduler.js';
import { ActionDesk } from './action-desk.js';
import { BudgetClock, DEADLINE, pauseBudget } from './budget-clock.js';
import { CancelPropagation } from './cancel-propagation.js';
import { decide, planEscalation } from './escalation.js';
import { EventLog } from './event-log.js';
import { checkHops, descendants } from './graph.js';
import { HopAttempts, type AttemptStart } from './hop-attempt.js';
import { Journal, attemptKey } from './journal.js';
import { INITIAL_LIFECYCLE, isEnded, isStopped, live, nextLifecycle, type Lifecycle, type LifecycleInput } from './lifecycle.js';
import { PauseDesk } from './pause-desk.js';
import { recordUpdate, stamp } from './revision-gate.js';
import { summarize } from './summary.js';
import { invalid } from './workflow-errors.js';
import { keepWorkflowLease, leaseWorkflow, releasing, type HeldWorkflowLease } from './workflow-lease.js';
import { onAbort, openRecord } from './workflow-open.js';
import { endState } from './workflow-outcome.js';
import { isFinalNodeState, type AttemptRecord, type NodeCancelRecord, type NodeRecord, type UpdateRecord, type WorkflowRecord } from './workflow-record.js';
import { MemoryWorkflowStore, type WorkflowStore } from './workflow-store.js';
import { WorkflowTrace } from './workflow-trace.js';
import type {
  ActionSpec,
  Breach,
  HopSpec,
  PauseAnswer,
  PauseAnswerOutcome,
  WorkflowEvent,
  WorkflowOptions,
  WorkflowPause,
  WorkflowSummary,
  WorkflowUpdate,
} from './workflow-types.js';

const UPDATE_KINDS = new Set(['question', 'correction', 'pause', 'resume', 'cancel', 'new-goal']);

/**
 * Starts a workflow, or resumes it when `options.store` already holds one with this id: finished
 * hops are not run again (their checkpoints are reused), running hops are followed again by task id,
 * and a send whose outcome the crash left unknown is looked up before anything is sent again.
 *
 * With a store that leases workflows (`LeasingWorkflowStore`), this process becomes the workflow's one
 * driver: the lease is acquired first, kept while the workflow runs, and given back when it ends.
 *
 * @throws TetherError `INVALID_ARGUMENT` for a malformed graph (unknown agents or dependencies, cycles)
 *   or hops that do not match the stored workflow; `LEASE_HELD` when another process drives it; the
 *   store's errors.
 */
export async function startWorkflow(options: WorkflowOptions): Promise<Workflow> {
  checkHops(options.hops, options.agents);
  if (typeof options.id !== 'string' || options.id === '') throw invalid('a workflow needs an id');
  const scheduler = options.scheduler ?? realScheduler;
  const { store, held } = await leaseWorkflow(options.store ?? new MemoryWorkflowStore(), options.id, options.leaseOwner, scheduler);
  const record = await releasing(held, openRecord(options, store, options.now ?? (() => scheduler.now()), options.newId ?? randomId));
  const workflow = new Workflow(options, store, record);
  workflow.boot(held);
  return workflow;
}

/**
 * A running delegation graph: hops on several agents, followed and persisted. Read `events()`, answer
 * `pauses()`, redirect with `update()`, cancel with `cancel()`, run your own side effects through
 * `act()`, and `done()` for the summary. Create one with {@link startWorkflow}.
 *
 * The runner owns the lifecycle and the step loop; the parts do the work: the journal (record and
 * writes), hop attempts, the pause desk, the budget clock, cancel propagation and the action desk.
 */
export class Workflow {
  private readonly hops: Map<string, HopSpec>;
  private readonly log = new EventLog();
  private readonly journal: Journal;
  private readonly clock: BudgetClock;
  private readonly pauseDesk: PauseDesk;
  private readonly cancels: CancelPropagation;
  private readonly actions: ActionDesk;
  private readonly attempts: HopAttempts;
  private readonly trace: WorkflowTrace;
  private lifecycle: Lifecycle = INITIAL_LIFECYCLE;
  private readonly result: { promise: Promise<WorkflowSummary>; resolve(s: WorkflowSummary): void; reject(e: unknown): void };
  private readonly now: () => number;
  /** The workflow's lease, kept while this process drives it (a leasing store). */
  private keeper: LeaseKeeper | undefined;

  /** @internal Use {@link startWorkflow}. */
  constructor(
    private readonly options: WorkflowOptions,
    store: WorkflowStore,
    record: WorkflowRecord,
  ) {
    this.hops = new Map(options.hops.map((h) => [h.id, h]));
    const scheduler: Scheduler = options.scheduler ?? realScheduler;
    const now = options.now ?? (() => scheduler.now());
    this.now = now;
    const emit = (event: WorkflowEvent): void => this.log.emit(event);
    const clientOf = (agent: string): A2AClient => this.client(agent);
    // A store outage shorter than the lease (or, without leases, than two lease TTLs) does not end the workflow.
    this.journal = new Journal(record, store, now, emit, (error) => this.fail(error), { scheduler, canRetry: () => this.lifecycle.phase !== 'broken' && !isStopped(this.lifecycle), budgetMs: 2 * DEFAULTS.leaseMs });
    this.trace = new WorkflowTrace(options, record, now);
    this.clock = new BudgetClock(scheduler, (breach) => void this.breach(breach));
    this.pauseDesk = new PauseDesk(this.clock);
    this.actions = new ActionDesk(this.journal, emit, clientOf);
    this.cancels = new CancelPropagation(this.journal, (key) => this.attempts.handleOf(key), options.cancelWaitMs);
    this.attempts = new HopAttempts({
      journal: this.journal,
      options,
      hops: this.hops,
      clock: this.clock,
      pauses: this.pauseDesk,
      cancels: this.cancels,
      actions: this.actions,
      scheduler,
      now,
      newId: options.newId ?? randomId,
      emit,
      clientOf,
      trace: this.trace,
      stopped: () => isStopped(this.lifecycle),
      failing: () => this.failing,
      eventCount: () => this.log.length,
    });
    let resolve!: (s: WorkflowSummary) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<WorkflowSummary>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => undefined);
    this.result = { promise, resolve, reject };
  }

  private get record(): WorkflowRecord {
    return this.journal.record;
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
    return this.pauseDesk.list();
  }

  /** Every event from the start, then live ones, until the workflow ends (each reader gets all of them). */
  events(options: { signal?: AbortSignal | undefined } = {}): AsyncGenerator<WorkflowEvent> {
    return this.log.read(() => isStopped(this.lifecycle) || this.lifecycle.phase === 'broken', options.signal);
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
      answers.map(async (answer) => {
        const outcome = await this.pauseDesk.answer(answer, async (pause, input) => {
          const handle = this.attempts.handleOf(attemptKey(pause.node, pause.attempt));
          if (!handle) throw invalid(`the task of pause ${pause.id} is no longer followed`);
          const base = typeof input === 'string' ? { text: input } : input;
          const attempt = this.journal.node(pause.node).attempts.find((a) => a.n === pause.attempt);
          await handle.reply({ ...base, metadata: stamp(base.metadata, this.record.id, pause.node, attempt?.revision ?? this.record.revision) });
        });
        if (outcome.ok) this.log.emit({ type: 'pause-answered', pause: outcome.pause, node: outcome.node as string });
        return outcome;
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
    const journal = this.journal;
    const record = recordUpdate(this.record, this.options.hops, update, journal.iso());
    const { seq, by } = record;
    const affected = record.affects;
    // 1. Persisted before anything acts on it.
    await journal.save();
    this.log.emit({ type: 'update', update: record });
    if (update.kind === 'cancel') {
      await this.cancel({ by, reason: update.text });
      return record;
    }
    if (affected === undefined) {
      this.advance();
      return record;
    }
    // 2. The gate: the old revision's work is pending reconciliation.
    const superseded: Array<{ node: NodeRecord; attempt: AttemptRecord }> = [];
    for (const id of affected) {
      const node = journal.node(id);
      const attempt = node.attempts.at(-1);
      if (attempt?.adopted) {
        attempt.adopted = false;
        attempt.rejectedReason = `superseded by revision ${this.record.revision} (update ${seq})`;
      }
      if (attempt && !isFinalNodeState(attempt.state) && attempt.state !== 'pending-reconciliation') superseded.push({ node, attempt });
      this.pauseDesk.closeNode(id);
      if (attempt && !attempt.rejectedReason) attempt.rejectedReason = `superseded by revision ${this.record.revision} (update ${seq})`;
      if (node.state !== 'pending') journal.move(node, 'pending-reconciliation', `superseded by update ${seq}`);
    }
    await journal.save();
    // 3. Stop requested, then observed: the superseded tasks keep being followed (a late result is
    // recorded and rejected), and their cancel records are settled as they answer. The gate already
    // keeps their results out, so the successors need not wait for that.
    for (const { node, attempt } of superseded) {
      if (attempt.taskId !== undefined) {
        void this.cancels.request(node, attempt, by, `superseded by revision ${this.record.revision}`, { detach: false }).catch((error: unknown) => this.fail(error));
      }
    }
    // 4. Unknown effects of older revisions: looked up where possible.
    await this.actions.reconcileOlder();
    // 5. The transition's checkpoint.
    journal.checkpoint(`update ${seq} (${update.kind})`);
    // 6. Successors: the affected nodes start again under the new revision.
    for (const id of affected) {
      const node = journal.node(id);
      if (node.state === 'pending-reconciliation') journal.move(node, 'pending', `successor for revision ${this.record.revision}`);
    }
    await journal.save();
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
    const targets = options.node === undefined ? [...this.hops.keys()] : [options.node, ...descendants(this.options.hops, options.node)];
    const cancels = (): Record<string, NodeCancelRecord | undefined> =>
      Object.fromEntries(targets.map((id) => [id, this.journal.node(id).attempts.at(-1)?.cancel ?? this.journal.node(id).cancel]));
    // Nothing runs any more: what the record says stands.
    if (isEnded(this.lifecycle)) return cancels();
    if (options.node === undefined && !this.record.cancel) {
      this.record.cancel = { by: options.by, reason: options.reason, at: this.journal.iso() };
      if (this.record.state === 'paused') this.record.state = 'running'; // nothing will start: the workflow can end
    }
    await this.cancels.stop(targets, options.by, options.reason, 'canceled');
    const out = cancels();
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
   * The intent is persisted before `perform` runs, so a crash leaves it for reconciliation. `done()`
   * waits for every `act()` still in flight, so the summary holds its outcome.
   */
  act<T>(spec: ActionSpec<T>): Promise<T> {
    return this.actions.act(spec);
  }

  /**
   * Stops following without cancelling anything: timers stop, tasks run on at their agents, and the
   * record stays as it is — `startWorkflow` with the same id and store picks it up.
   */
  stop(): void {
    this.to({ type: 'stop' });
    this.keeper?.release(Promise.resolve());
    this.clearTimers();
    this.attempts.detachAll();
    // The spans end here (`stopped`); a process that picks the workflow up continues its trace.
    this.trace.close('stopped');
    this.log.wakeAll();
  }

  /** @internal Picks up where the record stands (new or restarted), keeping the workflow's lease if it has one. */
  boot(held?: HeldWorkflowLease): void {
    this.keeper = keepWorkflowLease(held, this.options.scheduler ?? realScheduler, this.id, (error) => this.fail(error));
    if (this.record.state !== 'running' && this.record.state !== 'paused') {
      this.keeper?.release(Promise.resolve());
      this.to({ type: 'end' });
      const summary = this.summary();
      this.log.emit({ type: 'done', summary });
      this.result.resolve(summary);
      return;
    }
    this.trace.open();
    onAbort(this.options.signal, (reason) => void this.cancel({ by: 'signal', reason }).catch((error: unknown) => this.fail(error)));
    if (this.record.deadlineAt !== undefined) {
      this.clock.arm(DEADLINE, this.record.deadlineAt - this.now(), { kind: 'deadline', budgetMs: this.options.deadlineMs ?? 0 });
    }
    const restarts: Array<Promise<void>> = [];
    for (const node of Object.values(this.record.nodes)) {
      const attempt = node.attempts.at(-1);
      if (node.state === 'pending-reconciliation') {
        this.journal.move(node, 'pending', 'restarted during an update');
        continue;
      }
      if (!attempt || isFinalNodeState(node.state) || node.state === 'pending') continue;
      restarts.push(this.attempts.recover(node, attempt).then((start) => this.started(start)));
    }
    restarts.push(this.journal.save());
    void Promise.all(restarts)
      .then(() => this.advance())
      .catch((error: unknown) => this.fail(error));
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
      const node = this.journal.node(hop.id);
      if (node.state !== 'pending') continue;
      const deps = node.dependsOn.map((d) => this.journal.node(d));
      const blocked = deps.find((d) => isFinalNodeState(d.state) && d.state !== 'completed');
      if (blocked || this.failing !== undefined) {
        this.journal.move(node, 'skipped', blocked ? `${blocked.id} ended ${blocked.state}` : this.failing);
        changed = true;
        continue;
      }
      if (this.record.state === 'running' && deps.every((d) => d.state === 'completed')) ready.push([hop, node]);
    }
    if (changed) await this.journal.save();
    await Promise.all(ready.map(async ([hop, node]) => this.started(await this.attempts.launch(hop, node))));
    const nodes = Object.values(this.record.nodes);
    if (nodes.every((n) => isFinalNodeState(n.state)) && this.record.state !== 'paused') await this.finish();
  }

  /** Takes what an attempt's start came to: a node pending again, or a task whose end lets the loop go on. */
  private started(start: AttemptStart): void {
    if (start.kind === 'following') start.ended.then(() => this.advance(), (error: unknown) => this.fail(error));
    else if (start.again) this.advance();
  }

  private async finish(): Promise<void> {
    if (isEnded(this.lifecycle)) return;
    // Every cancel asked for is answered first, so the record says what the agent confirmed, and every
    // action admitted has written its outcome.
    await this.cancels.settled();
    await this.actions.settled();
    if (isEnded(this.lifecycle) || !Object.values(this.record.nodes).every((n) => isFinalNodeState(n.state))) return;
    const failing = this.failing;
    this.to({ type: 'end' });
    this.clearTimers();
    // Superseded attempts still followed (their late results): stop watching; their cancel stays "requested".
    this.attempts.detachAll();
    this.record.state = endState(this.record, this.options.hops, failing !== undefined);
    this.record.endedAt = this.journal.iso();
    this.journal.checkpoint(`workflow ${this.record.state}`);
    const last = this.journal.save();
    this.keeper?.release(last);
    await last;
    this.trace.close(this.record.state);
    const summary = this.summary();
    this.log.emit({ type: 'done', summary });
    this.result.resolve(summary);
  }

  private fail(error: unknown): void {
    if (isEnded(this.lifecycle)) return;
    // Given back (compare-and-delete: a lease already passed on stays with its new holder), so another
    // process can take the workflow over at once.
    this.keeper?.release(Promise.resolve());
    this.to({ type: 'break', error });
    this.clearTimers();
    this.attempts.detachAll();
    this.trace.close('broken', error);
    this.result.reject(error);
    this.log.wakeAll();
  }

  private clearTimers(): void {
    this.clock.clearAll();
    this.pauseDesk.closeAll();
  }

  // ————— budgets —————

  private async breach(breach: Breach): Promise<void> {
    if (!live(this.lifecycle)) return;
    const decision = await decide(this.options.escalate, breach);
    this.log.emit({ type: 'escalation', breach, decision });
    const plan = planEscalation(breach, decision);
    const actor = this.options.budgetActor ?? 'budget';
    try {
      if (plan.kind === 'stop-all') {
        if (plan.failing !== undefined) this.to({ type: 'fail', reason: plan.failing });
        await this.cancels.stop([...this.hops.keys()], actor, plan.why, 'timed-out');
        this.advance();
        return;
      }
      if (breach.kind === 'deadline' && plan.kind === 'extend') {
        this.record.deadlineAt = this.now() + plan.ms;
        await this.journal.save();
        this.clock.arm(DEADLINE, plan.ms, { kind: 'deadline', budgetMs: plan.ms });
        return;
      }
      const node = this.journal.node(breach.node as string);
      const attempt = node.attempts.at(-1);
      if (!attempt || isFinalNodeState(node.state) || attempt.taskId === undefined) return;
      if (plan.kind === 'extend') {
        if (breach.kind === 'hop-timeout') this.attempts.armHopBudget(this.hops.get(node.id) as HopSpec, node, attempt, plan.ms);
        else {
          const pause = this.pauseDesk.forNode(node.id);
          if (pause) this.clock.arm(pauseBudget(pause.id), plan.ms, { ...breach, budgetMs: plan.ms });
        }
        return;
      }
      if (plan.kind === 'hand-to') {
        if (!Object.hasOwn(this.options.agents, plan.agent)) throw invalid(`escalation hands ${node.id} to an unknown agent ${plan.agent}`);
        // Pending again first, so the old attempt's end does not end the node.
        node.agent = plan.agent;
        this.journal.move(node, 'pending', `handed to ${plan.agent} after ${plan.why}`);
        await this.cancels.request(node, attempt, actor, `${plan.why}: handed to ${plan.agent}`, { detach: true, state: 'timed-out' });
        this.advance();
        return;
      }
      await this.cancels.stop([node.id, ...descendants(this.options.hops, node.id)], actor, plan.why, 'timed-out');
      this.advance();
    } catch (error) {
      this.fail(error);
    }
  }

  private client(agent: string): A2AClient {
    const client = this.options.agents[agent];
    if (!client) throw invalid(`no agent ${agent}`);
    return client;
  }
}
