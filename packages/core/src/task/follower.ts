import type { TetherError } from '../errors/tether-error.js';
import type { Message } from '../model/types.js';
import type { StoreLease } from '../store/task-store.js';
import type { SendOptions } from '../transport/transport.js';
import { leaseFirst, recordEnd, unacknowledged } from './follow-records.js';
import { cancelAndWatch, inputTimeout, leaseLost, replyRefused, stronger } from './follow-commands.js';
import type { FollowContext, LeaseRunner, PushRunner } from './follow-context.js';
import type { FollowCore } from './follow-core.js';
import { absorbSnapshot, reducerEnv, type ReducerEnv } from './follow-intake.js';
import { runStep, sessionHostOf } from './follow-steps.js';
import { InputWait } from './input-wait.js';
import { deferred, LazyResult, type CancelOptions, type CancelOutcome, type FollowerSink, type FollowOptions, type PendingSend, type StartAck } from './follow-types.js';
import { initialState, isOver, reduce, type DeliveryMode, type FollowInput, type FollowState } from './follow-state.js';
import type { Outcome } from './phase.js';
import { asTetherError } from './classify.js';
import { Reconciler } from './reconciler.js';
import { RequestLimiter } from './request-limiter.js';
import { RetryBudget } from './retry-budget.js';
import { RecordKeeper } from './record-keeper.js';
import type { RecordChange } from './store-writer.js';
import type { SessionHost, StreamSession } from './stream-session.js';
import type { TaskEvent } from './task-event.js';
import type { TaskClaim } from './coordinator.js';
import { linkedFollow, TabLink } from './tab-link.js';

export type { CancelOptions, CancelOutcome, DeliveryMode, FollowerSink, FollowOptions, StartAck } from './follow-types.js';

/**
 * The follow's loop, one per task: the single owner of every stream and request of that task. It runs
 * the current phase's step (`follow-steps.ts`: a runner — the stream session, the sender, one GetTask —
 * and what it returned applied to the reconciler), hands the reducer (`follow-state.ts`) the input and
 * runs the effects it returns. Progress (the task moved) resets the retry budget; nothing else does,
 * except a healthy answer (a poll, a probe in step). Every request it makes on its own passes the
 * request-rate ceiling. The steps and commands see it as a {@link FollowCore}.
 */
export class TaskFollower implements FollowCore {
  /** The follow's state: the only place it lives, and only {@link dispatch} replaces it. */
  private current: FollowState;
  private reconciler: Reconciler | undefined;
  /** The task's record (once the agent named the task). */
  private records: RecordKeeper | undefined;
  private open: StreamSession | undefined;
  private sending: PendingSend | undefined;
  private stepAbort: AbortController | undefined;
  private interruption: Outcome | undefined;
  readonly limiter: RequestLimiter;
  readonly budget: RetryBudget;
  readonly inputWait: InputWait;
  private readonly stopper = new AbortController();
  /** Resolves when the follow ended. */
  private readonly over = new LazyResult<void>();
  /** The stream that just ended (its progress decides whether it was futile). */
  private ended: StreamSession | undefined;
  private running = false;
  private pushRunner: PushRunner | undefined;
  private readonly oldPushConfigId: string | undefined;
  /** Keeps the task's lease, when the store leases tasks (several processes share it). */
  private leaseKeeper: LeaseRunner | undefined;
  /** The fencing token of the lease taken for this task: every write carries it, also after the lease was lost. */
  private fence: number | undefined;
  private sessionHost: SessionHost | undefined;
  private env: ReducerEnv | undefined;
  /** Tabs (a coordinator): this follow's link to the other tabs of the task (it drives, or mirrors a driver). */
  private tabs: TabLink | undefined;
  /** Resolves once the task's record is stored (G1). */
  get stored(): Promise<void> {
    return this.records?.stored ?? Promise.resolve();
  }

  constructor(
    readonly context: FollowContext,
    private readonly sink: FollowerSink,
    readonly options: FollowOptions,
    resume?: { taskId: string; contextId: string; lastEventId: string | undefined; mode: DeliveryMode; pushConfigId?: string | undefined },
  ) {
    const { resilience, scheduler, random } = context;
    this.limiter = new RequestLimiter(resilience.maxRequestsPerWindow, resilience.requestWindowMs, scheduler);
    this.budget = new RetryBudget(resilience, scheduler, random);
    this.inputWait = new InputWait(scheduler, options.inputTimeoutMs, resilience.authRequiredPollMs, (state) => {
      const timeout = inputTimeout(this, state);
      if (timeout) this.interrupt(timeout);
    });
    const streaming = context.client.agent.streaming;
    this.current = initialState((this.env ??= reducerEnv(this)).tick().now, resilience, resume && { mode: resume.mode, lastEventId: resume.lastEventId, streaming }, options.delivery === 'poll');
    if (resume) {
      this.reconciler = new Reconciler(resume.taskId, resume.contextId, undefined, options.keepArtifacts !== false, context.gate?.());
      this.records = RecordKeeper.resume(context.store, { agentUrl: context.client.agent.url, taskId: resume.taskId }, { scheduler, onFailure: (error) => this.storeFailed(error), fence: () => this.fence });
      this.oldPushConfigId = resume.pushConfigId;
      context.following.set(resume.taskId, this);
    }
  }

  /** The task id, once the agent named it. */
  get taskId(): string | undefined {
    return this.reconciler?.taskId;
  }

  /** The task's reconciled state (for the handle's view). */
  get view(): Reconciler | undefined {
    return this.reconciler;
  }

  get state(): FollowState {
    return this.current;
  }

  get session(): StreamSession | undefined {
    return this.open;
  }

  get pending(): PendingSend | undefined {
    return this.sending;
  }

  get push(): PushRunner | undefined {
    return this.pushRunner;
  }

  /** The follow ended (done, failed or detached). */
  get finished(): boolean {
    return isOver(this.state);
  }

  /** Sends the creating message and follows the task it creates. Resolves once the agent answered. */
  start(message: Message, mode: DeliveryMode, options: SendOptions): Promise<StartAck> {
    this.dispatch({ type: 'delivery', mode });
    const push = this.context.push;
    const parts = this.context.parts.push;
    if (mode === 'push' && push && parts) {
      // The webhook is registered with the creating send; its token authenticates the agent's pushes.
      this.pushRunner = parts.runner(push, this.context.scheduler, this.context.newId);
      options = { ...options, pushNotification: this.pushRunner.registration() };
    }
    const ack = deferred<StartAck>();
    this.sending = { message, purpose: 'start', options, ack };
    // A push may come before the answer names the task: the receiver must know the token before the send.
    void (this.push?.ready.then(() => this.run()) ?? this.run());
    return ack.promise;
  }

  /** Follows a known task (after a restart, a detach, or from another process). */
  resume(): void {
    if (this.current.mode === 'push') {
      void this.rearmPush().then(() => this.run());
      return;
    }
    void this.run();
  }

  /** A resumed push-mode task: a new webhook config (push-waiter.ts, `rearmPush`), or polling if there can be none. */
  private async rearmPush(): Promise<void> {
    const { client, push, scheduler, newId, parts } = this.context;
    const taskId = (this.reconciler as Reconciler).taskId;
    this.pushRunner = await parts.push?.rearm({ client, delivery: push, scheduler, newId, taskId, oldConfigId: this.oldPushConfigId, signal: this.stopper.signal });
    if (this.push) this.persist({ pushConfigId: this.push.config.id });
    else this.dispatch({ type: 'delivery', mode: 'poll' });
  }

  /**
   * Drives the task only while holding its lease (asked for at `askedAt`, on this process's clock), kept by
   * a {@link LeaseKeeper}: the follow stops (`LEASE_LOST`) when it is lost. Released after the last write.
   */
  holdLease(lease: StoreLease, askedAt: number): void {
    const taskId = this.taskId;
    if (this.finished || taskId === undefined) {
      void lease.release().catch(() => undefined);
      return;
    }
    this.fence = lease.fence;
    this.sink.leased?.(lease.fence);
    this.context.following.set(taskId, this);
    this.leaseKeeper = this.context.parts.lease?.(lease, askedAt, this.context.scheduler, (why) => {
      this.leaseKeeper = undefined;
      this.interrupt(leaseLost(this.taskId, why));
    });
  }

  /**
   * Drives the task under a coordinator's claim (`tabs`): everything the handle is told goes to the
   * mirrors too; a mirror that arrives gets a snapshot; a mirror's reply is sent from here.
   */
  lead(claim: TaskClaim): void {
    this.tabs = this.link(claim, false);
  }

  /**
   * Mirrors the task's driver (another tab) until the claim is granted: applies what the driver
   * saw to this follower's own view and hands it to the handle, unchanged; opens nothing. When the
   * driver goes away, follows the task itself from that view (only what is new is emitted).
   */
  mirror(claim: TaskClaim): void {
    this.tabs = this.link(claim, true);
  }

  private link(claim: TaskClaim, mirroring: boolean): TabLink | undefined {
    if (this.finished) {
      claim.release();
      return undefined;
    }
    if (this.taskId !== undefined) this.context.following.set(this.taskId, this);
    const hooks = { show: (events: TaskEvent[]) => this.sink.emit(events), reply: (message: Message) => this.reply(message, {}) };
    return new TabLink(claim, mirroring, this.context, linkedFollow(this, { ...hooks, finish: () => this.finish(), resume: () => this.resume(), flush: () => this.flush() }));
  }

  /**
   * The client stops counting the task as followed once its last record write landed: until then the
   * store may still show it live, and a `resumeAll()` in between would follow it again.
   */
  private forgetWhenWritten(): void {
    const taskId = this.taskId;
    if (taskId === undefined || this.context.following.get(taskId) !== this) return;
    const forget = (): void => {
      if (this.context.following.get(taskId) === this) this.context.following.delete(taskId);
    };
    void this.flush().then(forget, forget);
  }

  /**
   * Answers the agent at `input-required` / `auth-required`. Resolves once the agent acknowledged
   * the message (its stream's first event, or its answer).
   */
  async reply(message: Message, options: SendOptions): Promise<void> {
    const refused = replyRefused(this, this.tabs?.relaying === true);
    if (refused) throw refused;
    if (this.tabs?.mirroring) return this.tabs.relay(message);
    const ack = deferred<StartAck>();
    this.sending = { message, purpose: 'reply', options, ack };
    this.inputWait.stop();
    this.interrupt({ type: 'reply' });
    await ack.promise;
  }

  /** Asks the agent to cancel, then watches what the task really does (`follow-commands.ts`). */
  cancel(options: CancelOptions = {}): Promise<CancelOutcome> {
    return cancelAndWatch(this, options);
  }

  settledWithin(ms: number): Promise<void> {
    if (this.finished || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.context.scheduler.setTimeout(resolve, ms);
      void this.over.promise.then(() => {
        this.context.scheduler.clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Stops following: no request is made after this returns. */
  detach(): void {
    if (this.finished) return;
    this.interrupt({ type: 'detach' });
    this.stopper.abort();
    this.open?.close();
    this.inputWait.stop();
    if (!this.running) {
      this.dispatch({ type: 'detached' });
      this.forgetWhenWritten();
      this.tabs?.close();
    }
  }

  /** Resolves when pending store writes are done. */
  flush(): Promise<void> {
    return this.records?.flush() ?? Promise.resolve();
  }

  interrupt(outcome: Outcome): void {
    this.interruption = stronger(outcome, this.interruption);
    this.stepAbort?.abort();
  }

  // ── the loop ──────────────────────────────────────────────────────────────────────────────

  private async run(): Promise<void> {
    this.running = true;
    this.dispatch({ type: 'started' });
    while (!this.finished) {
      const controller = new AbortController();
      this.stepAbort = controller;
      let outcome: Outcome;
      try {
        outcome = await runStep(this, this.current.phase, controller.signal);
      } catch (error) {
        outcome = { type: 'fatal', error: asTetherError(error, this.taskId) };
      }
      if (this.interruption) {
        outcome = this.interruption;
        this.interruption = undefined;
      }
      if (outcome.type === 'input-timeout' && this.options.cancelOnInputTimeout && this.taskId !== undefined) {
        await this.context.client.cancelTask(this.taskId, {}).catch(() => undefined);
      }
      const ended = this.ended;
      this.ended = undefined;
      if (outcome.type === 'behind') absorbSnapshot(this, outcome.task, true);
      this.dispatch({ type: 'outcome', outcome, ended: ended && { progressed: ended.progressed, healthy: ended.healthy } });
    }
    this.running = false;
    this.finish();
  }

  /** Replaces the state with the reducer's next one, and runs its effects in order. */
  dispatch(input: FollowInput): void {
    const env = (this.env ??= reducerEnv(this)).tick();
    const { state, effects } = reduce(this.current, input, env);
    this.current = state;
    for (const effect of effects) {
      switch (effect.type) {
        case 'emit':
          this.emit(effect.events);
          break;
        case 'persist':
          this.persist(effect.change);
          break;
        case 'reset-budget':
          this.budget.reset();
          break;
        case 'input-wait':
          this.inputWait.update(effect.state, this.pending !== undefined);
          break;
      }
    }
  }

  private finish(): void {
    this.inputWait.stop();
    this.forgetWhenWritten();
    // After the last record write: the next owner reads a record that is whole.
    this.leaseKeeper?.release(this.flush());
    this.leaseKeeper = undefined;
    this.push?.stop();
    this.stopper.abort();
    this.over.resolve();
    const end = recordEnd(this);
    if (end) {
      // The handle hears of the end once the record writes so far landed: right after `done()` the store
      // shows the outcome. A failed write does not change how the task ended (it was a `store-error` event).
      const tell = (): void => ('task' in end ? this.sink.finished(end.task) : this.sink.failed(end.error));
      void this.flush().then(tell, tell);
      this.tabs?.ended(end);
    }
    this.tabs?.close();
    const pending = this.sending;
    this.sending = undefined;
    pending?.ack.reject(unacknowledged(this, pending.message));
  }

  // ── the follow's resources, for its steps (follow-core.ts) ─────────────────────────────────

  persist(change: RecordChange): void {
    this.records?.persist(change);
  }

  attach(session: StreamSession): void {
    this.open = session;
  }

  release(session: StreamSession, ended: boolean): void {
    session.close();
    if (this.open === session) this.open = undefined;
    if (ended) this.ended = session;
  }

  settled(): void {
    this.sending = undefined;
  }

  get sessions(): SessionHost {
    return (this.sessionHost ??= sessionHostOf(this));
  }

  /** The agent named the task: the handle can follow it, and its record is stored (G1). */
  identify(taskId: string, contextId: string, mode: DeliveryMode): void {
    const now = this.context.scheduler.now();
    this.reconciler = new Reconciler(taskId, contextId, undefined, this.options.keepArtifacts !== false, this.context.gate?.());
    this.context.following.set(taskId, this);
    // Several processes share the store: the lease comes before the first write, so no other process can
    // find the task's record (and take the task) before this one holds it.
    const { store, client, principal, scheduler } = this.context;
    const record = { taskId, contextId, agentUrl: client.agent.url, delivery: mode, principal, now, trace: this.options.traceContext, parentTaskId: this.options.parentTaskId, tags: this.options.tags };
    const before = leaseFirst(this.context, taskId, (lease, askedAt) => this.holdLease(lease, askedAt));
    this.records = RecordKeeper.create(store, record, { scheduler, onFailure: (error) => this.storeFailed(error), fence: () => this.fence, before });
    if (mode === 'push' && this.pushRunner) {
      this.pushRunner.listen(taskId);
      this.persist({ pushConfigId: this.pushRunner.config.id });
    }
  }

  /** Hands events to the handle; a driving claim passes them on to the mirrors. */
  private emit(events: TaskEvent[]): void {
    this.sink.emit(events);
    this.tabs?.publish(events);
  }

  /** A store write failed: the app hears of it (the follow goes on; `flush()` rejects with it). */
  private storeFailed(error: TetherError): void {
    if (this.reconciler) this.emit([{ type: 'store-error', error }]);
  }
}
