import { TaskNotCancelableError, TaskNotFoundError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import { isInterruptedState, isTerminalState } from '../model/task-state.js';
import type { Message, Task, TaskState } from '../model/types.js';
import { DEFAULTS } from '../defaults.js';
import { canLease, type CancelRecord, type StoreLease } from '../store/task-store.js';
import type { StreamItem } from '../transport/event-feed.js';
import type { SendOptions } from '../transport/transport.js';
import { sleep } from '../util/scheduler.js';
import type { Resend } from './delivery.js';
import { deliverMessage } from './sender.js';
import { finalResult } from './final-check.js';
import type { FollowContext, LeaseRunner, PushRunner } from './follow-context.js';
import { InputWait } from './input-wait.js';
import { deferred, type CancelOptions, type CancelOutcome, type FollowerSink, type FollowOptions, type PendingSend, type StartAck } from './follow-types.js';
import { initialState, isOver, reduce, type DeliveryMode, type FollowEnv, type FollowInput, type FollowState } from './follow-state.js';
import type { Outcome, Phase } from './phase.js';
import { asTetherError, streamMendable, taskIdOf } from './classify.js';
import { pause } from './pause.js';
import { Reconciler } from './reconciler.js';
import { RequestLimiter } from './request-limiter.js';
import { RetryBudget } from './retry-budget.js';
import { RecordKeeper } from './record-keeper.js';
import type { RecordChange } from './store-writer.js';
import { StreamSession, type SessionHost, type StreamEnd } from './stream-session.js';
import { askTask, askTaskRetrying, type TaskAsker } from './task-requests.js';
import type { ConnectionState, TaskEvent } from './task-event.js';
import type { TaskClaim } from './coordinator.js';
import { TabLink } from './tab-link.js';

export type { CancelOptions, CancelOutcome, DeliveryMode, FollowerSink, FollowOptions, StartAck } from './follow-types.js';

const NO_OPTIONS = {};

/** The placeholder outcome of a step that was interrupted; the interruption replaces it. */
const INTERRUPTED: Outcome = { type: 'waited' };

/**
 * The follow's loop, one per task: the single owner of every stream and request of that task. It runs
 * the current phase's step (a runner: the stream session, the sender, one GetTask), applies what the
 * runner returned to the reconciler, hands the reducer (`follow-state.ts`) the input and runs the effects
 * it returns. Progress (the task moved) resets the retry budget; nothing else does, except a healthy
 * answer (a poll, a probe in step). Every request it makes on its own passes the request-rate ceiling.
 */
export class TaskFollower {
  /** The follow's state: the only place it lives, and only {@link dispatch} replaces it. */
  private state: FollowState;
  private reconciler: Reconciler | undefined;
  /** The task's record (once the agent named the task). */
  private records: RecordKeeper | undefined;
  /** The open stream, if any (the send's or a subscription's). */
  private session: StreamSession | undefined;
  private pending: PendingSend | undefined;
  private stepAbort: AbortController | undefined;
  private interruption: Outcome | undefined;
  private readonly limiter: RequestLimiter;
  private readonly budget: RetryBudget;
  private readonly inputWait: InputWait;
  private readonly stopper = new AbortController();
  /** Resolves when the follow ended. */
  private readonly over = deferred<void>();
  /** The stream that just ended (its progress decides whether it was futile). */
  private ended: StreamSession | undefined;
  private running = false;
  /** Push mode: the task's webhook config and the wait for its pushes. */
  private push: PushRunner | undefined;
  private readonly oldPushConfigId: string | undefined;
  /** Keeps the task's lease, when the store leases tasks (several processes share it). */
  private leaseKeeper: LeaseRunner | undefined;
  /** The fencing token of the lease taken for this task: every write carries it, also after the lease was lost. */
  private fence: number | undefined;
  private sessionHost: SessionHost | undefined;
  /** Tabs (a coordinator): this follow's link to the other tabs of the task (it drives, or mirrors a driver). */
  private tabs: TabLink | undefined;
  /** Resolves once the task's record is stored (G1). */
  get stored(): Promise<void> {
    return this.records?.stored ?? Promise.resolve();
  }

  constructor(
    private readonly context: FollowContext,
    private readonly sink: FollowerSink,
    private readonly options: FollowOptions,
    resume?: { taskId: string; contextId: string; lastEventId: string | undefined; mode: DeliveryMode; pushConfigId?: string | undefined },
  ) {
    const { resilience, scheduler, random } = context;
    this.limiter = new RequestLimiter(resilience.maxRequestsPerWindow, resilience.requestWindowMs, scheduler);
    this.budget = new RetryBudget(resilience, scheduler, random);
    this.inputWait = new InputWait(scheduler, options.inputTimeoutMs, resilience.authRequiredPollMs, (state) => this.inputTimedOut(state));
    const streaming = context.client.agent.streaming;
    this.state = initialState(scheduler.now(), resilience, resume && { mode: resume.mode, lastEventId: resume.lastEventId, streaming });
    if (resume) {
      this.reconciler = new Reconciler(resume.taskId, resume.contextId);
      this.records = RecordKeeper.resume(context.store, resume.taskId, { scheduler, onFailure: (error) => this.storeFailed(error), fence: () => this.fence });
      this.oldPushConfigId = resume.pushConfigId;
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

  get connectionState(): ConnectionState {
    return this.state.connection;
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
      this.push = parts.runner(push, this.context.scheduler, this.context.newId);
      options = { ...options, pushNotification: this.push.registration() };
    }
    const ack = deferred<StartAck>();
    this.pending = { message, purpose: 'start', options, ack };
    void this.run();
    return ack.promise;
  }

  /** Follows a known task (after a restart, a detach, or from another process). */
  resume(): void {
    if (this.state.mode === 'push') {
      void this.rearmPush().then(() => this.run());
      return;
    }
    void this.run();
  }

  /** A resumed push-mode task: a new webhook config (push-waiter.ts, `rearmPush`), or polling if there can be none. */
  private async rearmPush(): Promise<void> {
    const { client, push, scheduler, newId, parts } = this.context;
    const taskId = (this.reconciler as Reconciler).taskId;
    this.push = await parts.push?.rearm({ client, delivery: push, scheduler, newId, taskId, oldConfigId: this.oldPushConfigId, signal: this.stopper.signal });
    if (this.push) this.persist({ pushConfigId: this.push.config.id });
    else this.dispatch({ type: 'delivery', mode: 'poll' });
  }

  /**
   * A new task on a store that leases tasks: its lease, taken before its record is first written.
   * `undefined` when the store does not lease.
   */
  private leaseFirst(taskId: string): Promise<void> | undefined {
    const store = this.context.store;
    if (!canLease(store)) return undefined;
    const asked = this.context.scheduler.now();
    return store.lease(taskId, this.context.owner).then((lease) => {
      if (!lease) {
        throw new TetherError('LEASE_HELD', `task ${taskId} is driven by another process (it holds the task's lease)`, { taskId, maybeDelivered: false });
      }
      this.holdLease(lease, asked);
    });
  }

  /**
   * Drives the task only while holding its lease (asked for at `askedAt`, on this process's clock),
   * kept by a {@link LeaseKeeper}: the follow stops (`LEASE_LOST`) when the keeper loses it. Released
   * at the end, after the last record write.
   */
  holdLease(lease: StoreLease, askedAt: number): void {
    const taskId = this.taskId;
    if (this.finished || taskId === undefined) {
      void lease.release().catch(() => undefined);
      return;
    }
    this.fence = lease.fence;
    this.context.following.set(taskId, this);
    this.leaseKeeper = this.context.parts.lease?.(lease, askedAt, this.context.scheduler, (why) => this.leaseLost(why));
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
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the link's view of this follow
    const self = this;
    return new TabLink(claim, mirroring, this.context, {
      get taskId() {
        return self.taskId;
      },
      get view() {
        return self.reconciler;
      },
      get finished() {
        return self.finished;
      },
      get connection() {
        return self.state.connection;
      },
      mirrorConnection: (connection, show) => this.dispatch({ type: 'mirrored', connection, show }),
      show: (events) => this.sink.emit(events),
      finalTask: (task) => this.dispatch({ type: 'mirrored-final', task }),
      end: (phase) => {
        this.dispatch({ type: 'mirror-ended', phase });
        this.finish();
      },
      reply: (message) => this.reply(message, {}),
      takeOver: (look) => {
        this.dispatch({ type: 'took-over', look });
        this.resume();
      },
      settledWithin: (ms) => this.settledWithin(ms),
      flush: () => this.flush(),
    });
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

  private leaseLost(why: string): void {
    this.leaseKeeper = undefined;
    this.interrupt({
      type: 'fatal',
      error: new TetherError('LEASE_LOST', `task ${this.taskId ?? ''}: stopped driving it: ${why}; another process may drive it now`, {
        taskId: this.taskId,
        maybeDelivered: false,
      }),
    });
  }

  /**
   * Answers the agent at `input-required` / `auth-required`. Resolves once the agent acknowledged
   * the message (its stream's first event, or its answer).
   */
  async reply(message: Message, options: SendOptions): Promise<void> {
    const r = this.reconciler;
    if (!r || this.finished) {
      throw new TetherError('INVALID_ARGUMENT', `task ${r?.taskId ?? ''} is no longer followed (it ended or was detached)`, {
        taskId: r?.taskId,
        maybeDelivered: false,
      });
    }
    if (!isInterruptedState(r.state)) {
      throw new TetherError('INVALID_ARGUMENT', `task ${r.taskId} is ${r.state}, not waiting for input`, { taskId: r.taskId, maybeDelivered: false });
    }
    if (this.pending || this.tabs?.relaying) {
      throw new TetherError('INVALID_ARGUMENT', `a reply to task ${r.taskId} is already on its way`, { taskId: r.taskId, maybeDelivered: false });
    }
    if (this.tabs?.mirroring) return this.tabs.relay(message);
    const ack = deferred<StartAck>();
    this.pending = { message, purpose: 'reply', options, ack };
    this.inputWait.stop();
    this.interrupt({ type: 'reply' });
    await ack.promise;
  }

  /**
   * Asks the agent to cancel, then watches what the task really does: a cancel request is not a
   * cancellation, and an agent's "canceled" answer is a claim (some agents then finish the task
   * anyway). The answer is not applied; the engine keeps following the task (and asks GetTask at
   * once when nothing is open) for up to `waitMs`. `confirmed` is true only when the task was
   * then seen `canceled`; `state` is the state it was seen in.
   */
  async cancel(options: CancelOptions = {}): Promise<CancelOutcome> {
    const r = this.reconciler;
    if (!r) throw new TetherError('INVALID_ARGUMENT', 'no task to cancel yet', { maybeDelivered: false });
    const { reason, waitMs = DEFAULTS.cancelWaitMs, ...call } = options;
    const principal = this.context.principal;
    const asked: CancelRecord = { requestedAt: this.context.scheduler.now(), reason, ...(principal === undefined ? {} : { by: principal }) };
    this.persist({ cancel: asked });
    let answer: Task;
    try {
      answer = await this.context.client.cancelTask(r.taskId, {
        ...call,
        ...(reason === undefined ? {} : { metadata: { 'a2a-tether/cancel-reason': reason } }),
      });
    } catch (error) {
      if (!(error instanceof TaskNotCancelableError)) throw error;
      answer = await this.context.client.getTask(r.taskId, { signal: call.signal });
    }
    if (!this.finished && (this.session === undefined || !isTerminalState(answer.status.state))) {
      // Nothing open would show the outcome (or the agent says it is still stopping): ask.
      const seen = isTerminalState(answer.status.state) ? await this.context.client.getTask(r.taskId, { signal: call.signal }) : answer;
      if (!this.finished && isTerminalState(seen.status.state)) {
        this.absorbSnapshot(seen, false);
        this.interrupt({ type: 'state-changed' });
      }
    }
    await this.settledWithin(waitMs);
    const state = r.state;
    const confirmed = state === 'canceled';
    this.persist({ cancel: { ...asked, confirmed, seenState: state } });
    return { requested: true, confirmed, state };
  }

  private settledWithin(ms: number): Promise<void> {
    if (this.finished || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = this.context.scheduler.setTimeout(resolve, ms);
      void this.over.promise.then(() => {
        this.context.scheduler.clearTimeout(timer);
        resolve();
      });
    });
  }

  /** What a GetTask of this task needs (see task-requests.ts). */
  private asker(): TaskAsker {
    return { client: this.context.client, limiter: this.limiter, taskId: (this.reconciler as Reconciler).taskId };
  }

  /** Stops following: no request is made after this returns. */
  detach(): void {
    if (this.finished) return;
    this.interrupt({ type: 'detach' });
    this.stopper.abort();
    this.session?.close();
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

  private interrupt(outcome: Outcome): void {
    const rank = (o: Outcome | undefined): number =>
      o === undefined ? 0 : o.type === 'detach' ? 4 : o.type === 'input-timeout' ? 3 : o.type === 'reply' ? 2 : 1;
    if (rank(outcome) > rank(this.interruption)) this.interruption = outcome;
    this.stepAbort?.abort();
  }

  private inputTimedOut(state: TaskState): void {
    if (this.reconciler?.state !== state || this.pending) return;
    const ms = this.options.inputTimeoutMs;
    this.interrupt({
      type: 'input-timeout',
      error: new TetherError('INPUT_TIMEOUT', `no reply within ${ms} ms while the task was ${state}`, { taskId: this.taskId }),
    });
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
        outcome = await this.step(this.state.phase, controller.signal);
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
      if (outcome.type === 'behind') this.absorbSnapshot(outcome.task, true);
      this.dispatch({ type: 'outcome', outcome, ended: ended && { progressed: ended.progressed, healthy: ended.healthy } });
    }
    this.running = false;
    this.finish();
  }

  private step(phase: Phase, signal: AbortSignal): Promise<Outcome> {
    switch (phase.name) {
      case 'sending':
        return this.sendStep(signal);
      case 'live':
        return this.liveStep(signal);
      case 'resubscribing':
        return this.subscribeStep(signal);
      case 'backing-off':
        return this.waitStep(phase.delayMs, signal);
      case 'polling':
        return this.pollStep(phase.delayMs, signal);
      case 'waiting-input':
        return this.inputStep(signal);
      case 'final-check':
        return this.finalCheckStep(signal);
      default:
        return Promise.resolve({ type: 'detach' });
    }
  }

  /** Replaces the state with the reducer's next one, and runs its effects in order. */
  private dispatch(input: FollowInput): void {
    const { state, effects } = reduce(this.state, input, this.env());
    this.state = state;
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

  /** What the reducer reads of the world. */
  private env(): FollowEnv {
    const { client, resilience, scheduler, random, streamSlots } = this.context;
    return {
      now: scheduler.now(),
      resilience,
      random,
      taskId: this.taskId ?? '',
      canStream: client.agent.streaming,
      streamOpen: this.session !== undefined,
      slotFree: streamSlots.free(),
      pushArmed: this.push !== undefined,
      identified: this.reconciler !== undefined,
      fail: (retryAfterMs) => this.budget.fail(retryAfterMs),
    };
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
    const phase = this.state.phase;
    const now = this.context.scheduler.now();
    if (phase.name === 'done') {
      const r = this.reconciler as Reconciler;
      // The record outlives the task: its final state and outcome, until the retention ends.
      this.persist({ state: r.state, outcome: { kind: 'finished', state: r.state, at: now }, expiresAt: now + this.context.retentionMs });
      const task = finalResult(r, this.state.finalTask);
      this.afterWrites(() => this.sink.finished(task));
      this.tabs?.ended({ task });
    } else if (phase.name === 'failed') {
      const lastError = { code: phase.error.code, message: phase.error.message, at: now };
      // The agent no longer knows the task: lost, not left `working`. A lost lease writes nothing: the
      // record is the new holder's now.
      if (phase.error.code !== 'LEASE_LOST') this.persist(phase.error instanceof TaskNotFoundError ? { outcome: { kind: 'lost', at: now }, lastError } : { lastError });
      const error = phase.error;
      this.afterWrites(() => this.sink.failed(error));
      this.tabs?.ended({ error: phase.error });
    }
    this.tabs?.close();
    if (this.pending) {
      const { message } = this.pending;
      const error =
        phase.name === 'failed'
          ? phase.error
          : phase.name === 'done'
            ? new TetherError('ABORTED', `task ${this.taskId ?? ''} ended (${this.reconciler?.state ?? 'unknown'}) before message ${message.messageId} was acknowledged`, {
                taskId: this.taskId,
                messageId: message.messageId,
              })
            : new TetherError('ABORTED', 'stopped following the task', { taskId: this.taskId, messageId: message.messageId });
      this.pending.ack.reject(error);
      this.pending = undefined;
    }
  }

  /**
   * Runs `then` (the handle learns how the follow ended) once the record writes so far landed, so that
   * right after `done()` the store shows the outcome. A write that failed does not change how the task
   * ended: it was reported as a `store-error` event, and `flush()` rejects with it.
   */
  private afterWrites(then: () => void): void {
    void this.flush().then(then, then);
  }

  // ── applying what the agent said ──────────────────────────────────────────────────────────

  /** Tells the reducer what the reconciler applied (`live`: read from the open stream). */
  private deliver(events: TaskEvent[], live: boolean, lastEventId?: string, final?: { task: Task | undefined }): void {
    const r = this.reconciler as Reconciler;
    const conn = this.session;
    if (conn && events.length > 0) conn.progressed = true;
    this.dispatch({
      type: 'applied',
      events,
      state: r.state,
      live,
      ...(conn ? { open: { subscription: conn.subscription } } : {}),
      ...(lastEventId === undefined ? {} : { lastEventId }),
      ...(final ? { final } : {}),
    });
  }

  private absorbSnapshot(task: Task, recovered: boolean): void {
    const r = this.reconciler as Reconciler;
    const events = r.applySnapshot(task, { recovered });
    const final = this.state.finalTask === undefined && isTerminalState(task.status.state) && isTerminalState(r.state) ? { task } : undefined;
    this.deliver(events, false, undefined, final);
  }

  private applyBatch(conn: StreamSession, batch: StreamItem[]): void {
    const r = this.reconciler as Reconciler;
    const events: TaskEvent[] = [];
    let finalTask = this.state.finalTask;
    let lastEventId: string | undefined;
    for (const item of batch) {
      if (item.id !== undefined) lastEventId = item.id;
      const event = item.event;
      const ended = isTerminalState(r.state);
      // After the end, a snapshot that is not terminal is stale: it may not take content back.
      if (ended && event.kind === 'task' && !isTerminalState(event.status.state)) continue;
      const recovered = conn.subscription && event.kind === 'task';
      const applied = r.applyEvent(event, recovered || item.id !== undefined ? { recovered, eventId: item.id } : NO_OPTIONS);
      for (let i = 0; i < applied.length; i++) events.push(applied[i] as TaskEvent);
      // Content after a terminal snapshot: that snapshot is no longer the whole result.
      if (ended && applied.length > 0) finalTask = undefined;
      if (event.kind === 'task' && isTerminalState(event.status.state) && isTerminalState(r.state)) finalTask ??= event;
    }
    this.deliver(events, true, lastEventId, finalTask === this.state.finalTask ? undefined : { task: finalTask });
  }

  private persist(change: RecordChange): void {
    this.records?.persist(change);
  }

  /** The agent named the task: the handle can follow it, and its record is stored (G1). */
  private identify(taskId: string, contextId: string, mode: DeliveryMode): void {
    const now = this.context.scheduler.now();
    this.reconciler = new Reconciler(taskId, contextId);
    // Several processes share the store: the lease comes before the first write, so no other process can
    // find the task's record (and take the task) before this one holds it.
    const { store, client, principal, scheduler } = this.context;
    const record = { taskId, contextId, agentUrl: client.agent.url, delivery: mode, principal, now };
    const before = this.leaseFirst(taskId);
    this.records = RecordKeeper.create(store, record, { scheduler, onFailure: (error) => this.storeFailed(error), fence: () => this.fence, before });
    if (mode === 'push' && this.push) {
      this.push.listen(taskId);
      this.persist({ pushConfigId: this.push.config.id });
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

  // ── steps ─────────────────────────────────────────────────────────────────────────────────

  private async sendStep(signal: AbortSignal): Promise<Outcome> {
    const pending = this.pending;
    if (!pending) return { type: 'send-failed', error: new TetherError('INVALID_ARGUMENT', 'nothing to send') };
    const { message, purpose, options } = pending;
    if (purpose === 'reply') this.reconciler?.replied();
    const job = { message, purpose, options, taskKnown: this.reconciler !== undefined, stream: this.state.mode === 'stream' };
    const sent = await deliverMessage(this.context, this.limiter, job, (resend) => this.reportResend(resend), signal);
    switch (sent.type) {
      case 'stopped':
        return INTERRUPTED;
      case 'answered':
        return this.answered(pending, sent.error, signal);
      case 'failed':
        return this.sendFailed(pending, sent.error);
      case 'message':
        return this.acknowledged(pending, { kind: 'message', message: sent.message });
      default:
        break;
    }
    try {
      if (sent.type === 'stream') {
        const first = sent.first[0] as StreamItem;
        if (!this.reconciler) this.identify(taskIdOf(first.event) as string, first.event.contextId ?? '', 'stream');
        const session = StreamSession.ofSend(this.sessions, sent.feed);
        this.session = session;
        // The link is up before anything read from it: the app hears `live` first.
        this.dispatch({ type: 'opened', subscription: false });
        this.applyBatch(session, sent.first);
      } else if (sent.type === 'found') {
        if (!this.reconciler) this.identify(sent.task.id, sent.task.contextId, this.state.mode);
        this.deliver((this.reconciler as Reconciler).applySnapshot(sent.task, { recovered: true }), false);
      } else if (sent.result.kind === 'message') {
        if (!this.reconciler) return this.acknowledged(pending, { kind: 'message', message: sent.result });
        this.deliver(this.reconciler.applyEvent(sent.result), false);
      } else {
        if (!this.reconciler) this.identify(sent.result.id, sent.result.contextId, this.state.mode === 'push' ? 'push' : 'poll');
        this.absorbSnapshot(sent.result, false);
      }
    } catch (error) {
      // The answer arrived but cannot be applied (e.g. a snapshot of another task): answered, not lost.
      this.session?.close();
      this.session = undefined;
      return this.answered(pending, asTetherError(error, this.taskId), signal);
    }
    return this.acknowledged(pending, { kind: 'task' }, sent.type === 'found');
  }

  /** The agent acknowledged the message: the caller's promise resolves; a Message answer ends the exchange. */
  private acknowledged(pending: PendingSend, ack: StartAck, looked = false): Outcome {
    this.pending = undefined;
    pending.ack.resolve(ack);
    if (ack.kind === 'message') return { type: 'detach' };
    // A pause may have lasted hours: the quiet budget counts from the answer, not from before it.
    this.dispatch({ type: 'acknowledged', reply: pending.purpose === 'reply', looked });
    return { type: 'sent', streaming: this.session !== undefined };
  }

  /** The caller hears of every send of a message again, before it leaves (its own record: G6). */
  private reportResend(resend: Resend): void {
    try {
      this.options.onResend?.(resend);
    } catch {
      // The app's callback failing is not the send failing.
    }
  }

  /**
   * The agent answered the send, but not with a usable stream. For a reply, the task is known: an
   * unreadable or foreign first event means the reply arrived and its stream broke (follow on, with a
   * snapshot); a lost task ends the follow; a refusal (e.g. the task is no longer waiting) leaves the
   * task as GetTask shows it. A start has no task to fall back on: it fails with the error.
   */
  private async answered(pending: PendingSend, error: TetherError, signal: AbortSignal): Promise<Outcome> {
    if (pending.purpose !== 'reply') return this.sendFailed(pending, error);
    if (streamMendable(error)) {
      this.pending = undefined;
      pending.ack.resolve({ kind: 'task' });
      this.dispatch({ type: 'acknowledged', reply: true, looked: true });
      return { type: 'stream-failed', error };
    }
    const failed = this.sendFailed(pending, error);
    if (failed.type === 'fatal') return failed;
    try {
      const task = await askTaskRetrying(this.asker(), this.budget, this.context.scheduler, signal);
      if (task) this.absorbSnapshot(task, true);
    } catch (resyncError) {
      if (!signal.aborted) return { type: 'fatal', error: asTetherError(resyncError, this.taskId) };
    }
    return failed;
  }

  private sendFailed(pending: PendingSend, error: TetherError): Outcome {
    this.pending = undefined;
    if (pending.purpose === 'reply') this.reconciler?.forgetReply();
    pending.ack.reject(error);
    // A reply that found the task gone: the follow is over (the agent lost the task).
    if (pending.purpose === 'reply' && error instanceof TaskNotFoundError) return { type: 'fatal', error };
    return { type: 'send-failed', error };
  }

  private async liveStep(signal: AbortSignal): Promise<Outcome> {
    const session = this.session;
    if (!session) return { type: 'stream-ended' };
    try {
      for (;;) {
        const read = await session.next(signal);
        if (read.type !== 'batch') return this.endOf(read, signal);
        this.applyBatch(session, read.items);
      }
    } finally {
      session.close();
      if (this.session === session) this.session = undefined;
      this.ended = session;
    }
  }

  private async subscribeStep(signal: AbortSignal): Promise<Outcome> {
    const r = this.reconciler as Reconciler;
    if (!(await this.limiter.acquire(signal))) return INTERRUPTED;
    r.newConnection();
    const opened = await StreamSession.subscribe(this.sessions, r.taskId, this.state.lastEventId, signal);
    // The last slot went to another task meanwhile: poll until one frees.
    if (opened === undefined) return { type: 'waited' };
    if (!(opened instanceof StreamSession)) return this.endOf(opened, signal);
    this.session = opened;
    this.dispatch({ type: 'opened', subscription: true });
    return { type: 'subscribed' };
  }

  /** How a stream (or its opening) ended, as the step's outcome. */
  private endOf(end: StreamEnd, signal: AbortSignal): Outcome | Promise<Outcome> {
    switch (end.type) {
      case 'ended':
        return { type: 'stream-ended' };
      case 'failed':
        return { type: 'stream-failed', error: end.error };
      case 'behind':
        return { type: 'behind', task: end.task };
      case 'refused':
        return this.settleRefused(signal);
      case 'stopped':
        return INTERRUPTED;
      default:
        return { type: 'fatal', error: end.error };
    }
  }

  /** What a stream session needs of this follow. */
  private get sessions(): SessionHost {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the sessions' view of this follow
    const self = this;
    return (this.sessionHost ??= {
      client: this.context.client,
      scheduler: this.context.scheduler,
      resilience: this.context.resilience,
      streamSlots: this.context.streamSlots,
      budget: this.budget,
      asker: () => this.asker(),
      get view() {
        return self.reconciler as Reconciler;
      },
      healthy: (subscription) => this.dispatch({ type: 'healthy', subscription }),
      caughtUp: (task) => {
        this.absorbSnapshot(task, true);
        // Finished meanwhile: nothing the stream could add matters (and it may never end by itself).
        if (isTerminalState(task.status.state)) this.interrupt({ type: 'state-changed' });
      },
    });
  }

  /** Subscribing was refused: GetTask decides (finished → done; else poll, without trying to stream again). */
  private async settleRefused(signal: AbortSignal): Promise<Outcome> {
    this.dispatch({ type: 'refused' });
    let task: Task | undefined;
    try {
      task = await askTaskRetrying(this.asker(), this.budget, this.context.scheduler, signal);
    } catch (error) {
      return { type: 'fatal', error: asTetherError(error, this.taskId) };
    }
    if (!task) return INTERRUPTED;
    this.absorbSnapshot(task, true);
    return { type: 'refused' };
  }

  private async waitStep(ms: number, signal: AbortSignal): Promise<Outcome> {
    await pause(this.context, ms, signal);
    return { type: 'waited' };
  }

  /**
   * One GetTask whose snapshot is applied (`recovered`: content a gap may have hidden), as a step's
   * outcome: `then` when it answered; a transient failure is `request-failed` (or `then`, when `patient`);
   * a lost task is fatal (or `then`, when `lostIsEnd`).
   */
  private async look(signal: AbortSignal, then: Outcome, options: { recovered: boolean; patient?: boolean; lostIsEnd?: boolean }): Promise<Outcome> {
    const asked = await askTask(this.asker(), signal);
    switch (asked.kind) {
      case 'stopped':
        return INTERRUPTED;
      case 'task':
        this.absorbSnapshot(asked.task, options.recovered);
        return then;
      case 'transient':
        return options.patient ? then : { type: 'request-failed', error: asked.error };
      case 'lost':
        return options.lostIsEnd ? then : { type: 'fatal', error: asked.error };
      default:
        return { type: 'fatal', error: asked.error };
    }
  }

  private async pollStep(delayMs: number, signal: AbortSignal): Promise<Outcome> {
    const push = this.state.mode === 'push' ? this.push : undefined;
    if (push) {
      // Waiting for the agent's pushes: a push wakes the wait at once; the safety poll catches a lost one.
      if (!(await push.wait(delayMs, signal))) return INTERRUPTED;
    } else if ((delayMs > 0 || this.context.network?.online() === false) && !(await pause(this.context, delayMs, signal))) return INTERRUPTED;
    const before = this.state.moves;
    const outcome = await this.look(signal, { type: 'polled' }, { recovered: false });
    if (outcome.type === 'polled') this.dispatch({ type: 'polled', moved: this.state.moves !== before, pushDelayMs: push?.nextDelayMs() });
    return outcome;
  }

  private async inputStep(signal: AbortSignal): Promise<Outcome> {
    const r = this.reconciler as Reconciler;
    this.inputWait.update(r.state, false);
    const look = this.inputWait.lookAgainMs(r.state);
    if (look === undefined) {
      // Nothing to do until reply(), a timeout or detach interrupts the wait: no timer at all.
      if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      return INTERRUPTED;
    }
    if (!(await sleep(this.context.scheduler, look, signal))) return INTERRUPTED;
    return this.look(signal, { type: 'waited' }, { recovered: false, patient: true });
  }

  /** The agent forgot the finished task: what was delivered is all there is. */
  private finalCheckStep(signal: AbortSignal): Promise<Outcome> {
    return this.look(signal, { type: 'checked' }, { recovered: true, lostIsEnd: true });
  }
}
