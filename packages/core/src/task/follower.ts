import { A2AError, TaskNotCancelableError, TaskNotFoundError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import { isInterruptedState, isTerminalState } from '../model/task-state.js';
import type { Message, Task, TaskState } from '../model/types.js';
import { DEFAULTS } from '../defaults.js';
import { canLease, TASK_RECORD_VERSION, type CancelRecord, type StoreLease } from '../store/task-store.js';
import type { EventFeed, StreamItem } from '../transport/event-feed.js';
import type { CallOptions, SendOptions } from '../transport/transport.js';
import { sleep } from '../util/scheduler.js';
import { findDelivered, sendVerdict, type Resend } from './delivery.js';
import { finalResult } from './final-check.js';
import type { FollowContext } from './follow-context.js';
import { IdleTimer } from './idle-probe.js';
import { InputWait } from './input-wait.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { initialState, isOver, reduce, type DeliveryMode, type FollowEnv, type FollowInput, type FollowState } from './follow-state.js';
import type { Outcome, Phase } from './phase.js';
import { asTetherError, refusesSubscription, streamMendable, taskIdOf } from './classify.js';
import { pause } from './pause.js';
import type { PushWaiter } from './push-waiter.js';
import { Reconciler } from './reconciler.js';
import { RequestLimiter } from './request-limiter.js';
import { RetryBudget } from './retry-budget.js';
import { StoreWriter, type RecordChange } from './store-writer.js';
import { openInSlot } from './stream-slots.js';
import { askTask, askTaskRetrying, type TaskAsker } from './task-requests.js';
import type { ConnectionState, TaskEvent } from './task-event.js';
import type { TaskClaim } from './coordinator.js';
import { TabLink } from './tab-link.js';

/** How a task is followed and how long to wait for a human. */
export interface FollowOptions {
  /**
   * `auto` (default): push when the client has a push receiver (`connect(url, { push })`) and the card
   * says the agent can push; else stream if the card says the agent can; else poll. `push` insists on
   * push (an error if either is missing).
   */
  delivery?: 'auto' | 'stream' | 'poll' | 'push' | undefined;
  /** At input-required / auth-required, fail `done()` with INPUT_TIMEOUT after this long without `reply()`. */
  inputTimeoutMs?: number | undefined;
  /** With `inputTimeoutMs`: also ask the agent to cancel the task. */
  cancelOnInputTimeout?: boolean | undefined;
  /**
   * Told of every send of a message again with the same `messageId` — the creating send's, and each
   * `reply()`'s — before it leaves, with why (see {@link Resend}): a send that surely never reached the
   * agent, or (only with `resendUnknownDeliveries`) one whose fate stayed unknown. Sends are never
   * repeated silently: keep this record where you keep what you sent (a workflow writes it into its
   * ledger). Called synchronously; what it throws is ignored.
   */
  onResend?: ((resend: Resend) => void) | undefined;
}

/** What `cancel()` found out. A request is not a confirmation: `confirmed` says which it was. */
export interface CancelOutcome {
  /** The cancel request was sent and answered. */
  requested: true;
  /** The task was seen `canceled` afterwards (on its stream, or by GetTask). */
  confirmed: boolean;
  /** The state the task was seen in (e.g. `completed` if it finished first, `working` if it has not stopped yet). */
  state: TaskState;
}

/** Options of `cancel()`. */
export interface CancelOptions extends CallOptions {
  /** Why (kept in the store and sent as request metadata `a2a-tether/cancel-reason`). */
  reason?: string | undefined;
  /** How long to watch for the task to end after the request (ms, default 5,000). */
  waitMs?: number | undefined;
}

/** Where a follower reports to (its task handle). */
export interface FollowerSink {
  emit(events: TaskEvent[]): void;
  finished(task: Task): void;
  failed(error: TetherError): void;
}

export type { DeliveryMode } from './follow-state.js';

/** What the first send of `start()` came back with. */
export type StartAck = { kind: 'task' } | { kind: 'message'; message: Message };

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** One open stream the engine reads: the send's, or a subscription's. */
interface Connection {
  feed: EventFeed;
  /** Aborted when the connection is done with (stops its probe). */
  controller: AbortController;
  /** A subscription: its first Task is recovered content. */
  subscription: boolean;
  /** Resumed after the agent's own event id: the stream itself fills the gap. */
  resumedById: boolean;
  /** The snapshot fetched because this subscription does not start with one (applied before its first live event). */
  catchUp: Promise<void> | undefined;
  /** No batch read yet. */
  fresh: boolean;
  /** The task moved while this connection was open. */
  progressed: boolean;
  /** A probe found the connection in step with the agent. */
  healthy: boolean;
  /** Events read (a probe answer is stale if this moved while it was asked). */
  seen: number;
  /**
   * A subscription whose agent promised a Task snapshot first (v1.0): when nothing having arrived by
   * then makes it suspect (probed once, see `firstEventProbeMs`). Unset once probed.
   */
  firstEventDue: number | undefined;
}

/** A message on its way (the creating send, or a reply). */
interface PendingSend {
  message: Message;
  purpose: 'start' | 'reply';
  options: SendOptions;
  ack: Deferred<StartAck>;
}

const NO_OPTIONS = {};

/** The placeholder outcome of a step that was interrupted; the interruption replaces it. */
const INTERRUPTED: Outcome = { type: 'waited' };

/**
 * Follows one task until it ends: the single owner of every stream and request of that task —
 * the creating send's stream, a reply's stream, each resubscription and each poll. It runs one
 * phase at a time (`phase.ts`); what a phase's step ends with goes through {@link next} to the next
 * phase. Progress (the task moved) resets the retry budget; nothing else does, except a healthy
 * answer (a poll, a probe in step). Every request it makes on its own passes the request-rate ceiling.
 */
export class TaskFollower {
  /** The follow's state: the only place it lives, and only {@link dispatch} replaces it. */
  private state: FollowState;
  private reconciler: Reconciler | undefined;
  private writer: StoreWriter | undefined;
  private conn: Connection | undefined;
  private pending: PendingSend | undefined;
  private stepAbort: AbortController | undefined;
  private interruption: Outcome | undefined;
  private readonly limiter: RequestLimiter;
  private readonly budget: RetryBudget;
  private readonly inputWait: InputWait;
  private readonly stopper = new AbortController();
  /** Resolves when the follow ended. */
  private readonly over = deferred<void>();
  private behind: Task | undefined;
  /** A probe found the task gone. */
  private lost: TetherError | undefined;
  /** The connection that just ended (its progress decides whether it was futile). */
  private ended: Connection | undefined;
  private persisted: RecordChange = {};
  private running = false;
  /** Push mode: the task's webhook config and the wait for its pushes. */
  private push: PushWaiter | undefined;
  private readonly oldPushConfigId: string | undefined;
  /** Keeps the task's lease, when the store leases tasks (several processes share it). */
  private leaseKeeper: LeaseKeeper | undefined;
  /** The fencing token of the lease taken for this task: every write carries it, also after the lease was lost. */
  private fence: number | undefined;
  /** Tabs (a coordinator): this follow's link to the other tabs of the task (it drives, or mirrors a driver). */
  private tabs: TabLink | undefined;
  /** Resolves once the task's record is stored (G1). */
  stored: Promise<void> = Promise.resolve();

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
      this.writer = new StoreWriter(context.store, resume.taskId, { scheduler, onFailure: (error) => this.storeFailed(error), fence: () => this.fence });
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
      this.push = parts.waiter(push, this.context.scheduler, this.context.newId);
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
    this.push = await parts.push?.rearm(client, push, scheduler, newId, taskId, this.oldPushConfigId, this.stopper.signal);
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
    if (!this.finished && (this.conn === undefined || !isTerminalState(answer.status.state))) {
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
    this.conn?.feed.close();
    this.inputWait.stop();
    if (!this.running) {
      this.dispatch({ type: 'detached' });
      this.forgetWhenWritten();
      this.tabs?.close();
    }
  }

  /** Resolves when pending store writes are done. */
  flush(): Promise<void> {
    return this.writer?.flush() ?? Promise.resolve();
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
      if (outcome.type === 'behind' && this.behind) this.absorbSnapshot(this.behind, true);
      this.behind = undefined;
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
      streamOpen: this.conn !== undefined,
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
    const conn = this.conn;
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

  private applyBatch(conn: Connection, batch: StreamItem[]): void {
    const r = this.reconciler as Reconciler;
    const events: TaskEvent[] = [];
    let finalTask = this.state.finalTask;
    let lastEventId: string | undefined;
    for (const item of batch) {
      conn.seen++;
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
    const writer = this.writer;
    if (!writer) return;
    let changed = false;
    for (const [key, value] of Object.entries(change) as [keyof RecordChange, unknown][]) {
      if (this.persisted[key] !== value) changed = true;
    }
    if (!changed) return;
    Object.assign(this.persisted, change);
    writer.update(change);
  }

  /** The agent named the task: the handle can follow it, and its record is stored (G1). */
  private identify(taskId: string, contextId: string, mode: DeliveryMode): void {
    const now = this.context.scheduler.now();
    this.reconciler = new Reconciler(taskId, contextId);
    // Several processes share the store: the lease comes before the first write, so no other process can
    // find the task's record (and take the task) before this one holds it.
    this.writer = new StoreWriter(this.context.store, taskId, {
      scheduler: this.context.scheduler,
      onFailure: (error) => this.storeFailed(error),
      fence: () => this.fence,
      before: this.leaseFirst(taskId),
    });
    this.persisted = { state: 'submitted', contextId, delivery: mode };
    const principal = this.context.principal;
    this.stored = this.writer.put({
      schemaVersion: TASK_RECORD_VERSION,
      taskId,
      contextId,
      agentUrl: this.context.client.agent.url,
      state: 'submitted',
      createdAt: now,
      updatedAt: now,
      delivery: mode,
      ...(principal === undefined ? {} : { principal }),
    });
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
    const { message, purpose } = pending;
    const { resilience, scheduler, random } = this.context;
    const budget = new RetryBudget(resilience, scheduler, random);
    if (purpose === 'reply') this.reconciler?.replied();
    // Whether any attempt may have reached the agent (only a resent `unknown` can have, and give up after).
    let mayHaveArrived = false;
    for (let attempt = 1; ; attempt++) {
      try {
        const streaming = this.state.mode === 'stream' && this.context.streamSlots.free();
        const ack = streaming ? await this.sendStreaming(pending, signal) : await this.sendUnary(pending, signal);
        this.pending = undefined;
        pending.ack.resolve(ack);
        if (ack.kind === 'message') return { type: 'detach' };
        // A pause may have lasted hours: the quiet budget counts from the answer, not from before it.
        this.dispatch({ type: 'acknowledged', reply: purpose === 'reply', looked: false });
        return { type: 'sent', streaming: this.conn !== undefined };
      } catch (error) {
        if (signal.aborted) return INTERRUPTED;
        const verdict = sendVerdict(error);
        if (verdict === 'answered') return this.answered(pending, asTetherError(error, this.taskId), signal);
        const failure = asTetherError(error, this.taskId);
        if (verdict === 'unknown') {
          let found: Task | undefined;
          try {
            found = await findDelivered(this.context, message, this.limiter, signal);
          } catch (lookError) {
            if (signal.aborted) return INTERRUPTED;
            return this.sendFailed(pending, asTetherError(lookError, this.taskId));
          }
          if (found) {
            if (!this.reconciler) this.identify(found.id, found.contextId, this.state.mode);
            // A lookup's answer (ListTasks may omit what it was not asked for) is not the final word: the final check is.
            this.deliver((this.reconciler as Reconciler).applySnapshot(found, { recovered: true }), false);
            this.pending = undefined;
            pending.ack.resolve({ kind: 'task' });
            this.dispatch({ type: 'acknowledged', reply: purpose === 'reply', looked: true });
            return { type: 'sent', streaming: false };
          }
        }
        if (verdict === 'unknown') mayHaveArrived = true;
        const decision = budget.fail(failure.retryAfterMs);
        if (attempt >= resilience.maxSendAttempts || !decision.retry) {
          const why = attempt >= resilience.maxSendAttempts ? `${attempt} attempts` : decision.retry ? '' : decision.reason;
          return this.sendFailed(
            pending,
            new TetherError('RETRY_EXHAUSTED', `gave up sending message ${message.messageId} after ${why}: ${failure.message}`, {
              taskId: message.taskId,
              messageId: message.messageId,
              cause: failure,
              // Every attempt surely failed to arrive: the caller may send it again (a workflow does).
              maybeDelivered: mayHaveArrived,
            }),
          );
        }
        if (!(await sleep(scheduler, decision.delayMs, signal))) return INTERRUPTED;
        if (!(await this.limiter.acquire(signal))) return INTERRUPTED;
        // `unknown` here: the lookup found nothing and the caller said the agent deduplicates.
        this.reportResend({ messageId: message.messageId, purpose, attempt: attempt + 1, reason: verdict, error: failure });
      }
    }
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

  private async sendStreaming(pending: PendingSend, signal: AbortSignal): Promise<StartAck> {
    const { feed, batch } = await this.firstBatch(pending, signal);
    const first = batch?.[0];
    if (!batch || !first) {
      feed.close();
      throw new TetherError('STREAM_INTERRUPTED', 'the stream ended before its first event', {
        taskId: this.taskId,
        messageId: pending.message.messageId,
      });
    }
    if (!this.reconciler) {
      const taskId = taskIdOf(first.event);
      if (first.event.kind === 'message' || taskId === undefined) {
        feed.close();
        if (first.event.kind === 'message') return { kind: 'message', message: first.event };
        throw new TetherError('PROTOCOL_VIOLATION', 'the first event names no task', { messageId: pending.message.messageId });
      }
      this.identify(taskId, first.event.contextId ?? '', 'stream');
    }
    const conn = this.open(feed, false, false);
    // The link is up before anything read from it: the app hears `live` first.
    this.dispatch({ type: 'opened', subscription: false });
    // The link is up before anything read from it: the app hears `live` first.
    this.applyBatch(conn, batch);
    return { kind: 'task' };
  }

  private async sendUnary(pending: PendingSend, signal: AbortSignal): Promise<StartAck> {
    const answer = await this.context.client.sendMessage(pending.message, { ...pending.options, returnImmediately: true, signal });
    if (answer.kind === 'message') {
      if (!this.reconciler) return { kind: 'message', message: answer };
      this.deliver(this.reconciler.applyEvent(answer), false);
      return { kind: 'task' };
    }
    if (!this.reconciler) this.identify(answer.id, answer.contextId, this.state.mode === 'push' ? 'push' : 'poll');
    this.absorbSnapshot(answer, false);
    return { kind: 'task' };
  }

  /**
   * Opens a send's stream and reads its first events. Silence — no response headers, or no event —
   * for `idleProbeMs` is a TIMEOUT: the answer may be lost (the message is then looked for).
   */
  private async firstBatch(pending: PendingSend, signal: AbortSignal): Promise<{ feed: EventFeed; batch: StreamItem[] | null }> {
    const ms = this.context.resilience.idleProbeMs;
    const { scheduler } = this.context;
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
      feed = await openInSlot(this.context.streamSlots, () => this.context.client.openStream(pending.message, pending.options, attempt.signal));
      if (feed === undefined) {
        throw new TetherError('NETWORK', 'no free stream slot (maxStreams); the message was not sent', { maybeDelivered: false, isRetryable: true });
      }
      if (attempt.signal.aborted) throw new TetherError('ABORTED', 'stopped');
      return { feed, batch: await feed.read() };
    } catch (error) {
      feed?.close();
      if (!silent) throw error;
      throw new TetherError('TIMEOUT', `no event within ${ms} ms of sending message ${pending.message.messageId}`, {
        messageId: pending.message.messageId,
        cause: error,
      });
    } finally {
      if (timer !== undefined) scheduler.clearTimeout(timer);
      signal.removeEventListener('abort', stop);
    }
  }

  private open(feed: EventFeed, subscription: boolean, resumedById: boolean): Connection {
    const conn: Connection = {
      feed,
      controller: new AbortController(),
      subscription,
      resumedById,
      catchUp: undefined,
      fresh: true,
      progressed: false,
      healthy: false,
      seen: 0,
      firstEventDue: undefined,
    };
    this.conn = conn;
    return conn;
  }

  private async liveStep(signal: AbortSignal): Promise<Outcome> {
    const conn = this.conn;
    if (!conn) return { type: 'stream-ended' };
    const r = this.reconciler as Reconciler;
    const idle: IdleTimer = new IdleTimer(this.context.scheduler, this.context.resilience.idleProbeMs, () =>
      void this.probe(idle, conn.controller.signal, () => conn.feed.close(), conn),
    );
    const onAbort = (): void => {
      conn.controller.abort();
      conn.feed.close();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    idle.start();
    // A subscription that promised a snapshot first and is still silent: ask early, not after idleProbeMs.
    const due = conn.fresh ? conn.firstEventDue : undefined;
    const { scheduler } = this.context;
    const early =
      due === undefined
        ? undefined
        : scheduler.setTimeout(() => {
            conn.firstEventDue = undefined;
            if (conn.fresh) void this.probe(idle, conn.controller.signal, () => conn.feed.close(), conn);
          }, Math.max(0, due - scheduler.now()));
    try {
      for (;;) {
        if (isTerminalState(r.state)) {
          idle.stop();
          return await this.drain(conn, signal);
        }
        const batch = await conn.feed.read();
        if (batch === null) return { type: 'stream-ended' };
        idle.touch();
        if (conn.fresh) {
          conn.fresh = false;
          const first = batch[0]?.event;
          // No snapshot opened this subscription: apply one before the live events (no holes).
          if (conn.subscription && !conn.resumedById && first?.kind !== 'task') {
            await (conn.catchUp ??= this.catchUp(conn.controller.signal));
            if (signal.aborted) return INTERRUPTED;
          }
        }
        this.applyBatch(conn, batch);
      }
    } catch (error) {
      if (this.behind) return { type: 'behind' };
      if (this.lost) return { type: 'fatal', error: this.lost };
      if (signal.aborted) return INTERRUPTED;
      if (conn.subscription && conn.seen === 0 && error instanceof A2AError && refusesSubscription(error)) {
        return this.settleRefused(signal);
      }
      // A broken stream may have hidden events: the reducer marks the gap.
      if (streamMendable(error)) return { type: 'stream-failed', error };
      return { type: 'fatal', error: asTetherError(error, this.taskId) };
    } finally {
      idle.stop();
      if (early !== undefined) scheduler.clearTimeout(early);
      signal.removeEventListener('abort', onAbort);
      conn.controller.abort();
      conn.feed.close();
      if (this.conn === conn) this.conn = undefined;
      this.ended = conn;
    }
  }

  /**
   * The stream brought the terminal status: it is read on until its body ends (at most
   * `terminalDrainMs`), so content an agent sends after the status — an artifact after `final: true` —
   * is applied (G3). A status after it is dropped (G2), and the terminal status itself is held until the
   * follow ends (see `deliver`), so the app sees that content before it. A break now is no failure: the
   * task's end is known.
   */
  private async drain(conn: Connection, signal: AbortSignal): Promise<Outcome> {
    const ms = this.context.resilience.terminalDrainMs;
    if (ms <= 0) return { type: 'stream-ended' };
    const { scheduler } = this.context;
    const timer = scheduler.setTimeout(() => conn.feed.close(), ms);
    try {
      for (let batch = await conn.feed.read(); batch !== null; batch = await conn.feed.read()) this.applyBatch(conn, batch);
    } catch {
      // Closed at the deadline, or broken after the end: what arrived is applied.
    } finally {
      scheduler.clearTimeout(timer);
    }
    return signal.aborted ? INTERRUPTED : { type: 'stream-ended' };
  }

  /**
   * The silence outlasted `idleProbeMs` — on a live stream, or while a subscription waits for its
   * response headers: is the agent past us (a half-open connection), or just quiet? `cut` ends the
   * connection when the agent moved on; `conn` (when open) tells whether events arrived meanwhile.
   */
  private async probe(idle: IdleTimer, signal: AbortSignal, cut: () => void, conn?: Connection): Promise<void> {
    const seen = conn?.seen;
    const r = this.reconciler as Reconciler;
    const asked = await askTask(this.asker(), signal);
    if (asked.kind === 'stopped' || signal.aborted) return;
    if (asked.kind === 'lost') {
      // The agent no longer knows the task: nothing on this connection will ever end it.
      this.lost = asked.error;
      cut();
      return;
    }
    if (asked.kind !== 'task') {
      // Any other failed probe proves nothing; look again after the next silence.
      idle.start();
      return;
    }
    const task = asked.task;
    if (conn && conn.seen !== seen) {
      // The stream moved while we asked: the answer may be older than what it delivered.
      idle.start();
      return;
    }
    if (r.isBehind(task)) {
      this.behind = task;
      cut();
      return;
    }
    if (conn) {
      conn.healthy = true;
      this.dispatch({ type: 'healthy', subscription: conn.subscription });
    }
    idle.start();
  }

  /** GetTask for a subscription that starts without a snapshot; retried through transient failures. */
  private async catchUp(signal: AbortSignal): Promise<void> {
    const task = await askTaskRetrying(this.asker(), this.budget, this.context.scheduler, signal);
    if (!task || signal.aborted) return;
    this.absorbSnapshot(task, true);
    // Finished meanwhile: nothing the stream could add matters (and it may never end by itself).
    if (isTerminalState(task.status.state)) this.interrupt({ type: 'state-changed' });
  }

  private async subscribeStep(signal: AbortSignal): Promise<Outcome> {
    const r = this.reconciler as Reconciler;
    if (!(await this.limiter.acquire(signal))) return INTERRUPTED;
    r.newConnection();
    const resumeFrom = this.state.lastEventId;
    const { scheduler, resilience } = this.context;
    // A subscription whose headers do not come is silence too: probe it like a live stream.
    const opening = new AbortController();
    const stop = (): void => opening.abort();
    signal.addEventListener('abort', stop, { once: true });
    const idle: IdleTimer = new IdleTimer(scheduler, resilience.idleProbeMs, () => void this.probe(idle, opening.signal, stop));
    idle.start();
    // v1.0 promises a Task snapshot as a subscription's first event: silence soon after asking is suspect.
    const promised = this.context.client.agent.subscribeSnapshot && resumeFrom === undefined && resilience.firstEventProbeMs > 0;
    let due = promised ? scheduler.now() + resilience.firstEventProbeMs : undefined;
    const early =
      due === undefined
        ? undefined
        : scheduler.setTimeout(() => {
            due = undefined;
            void this.probe(idle, opening.signal, stop);
          }, resilience.firstEventProbeMs);
    let feed: EventFeed;
    try {
      const opened = await openInSlot(this.context.streamSlots, () => this.context.client.openSubscription(r.taskId, resumeFrom, opening.signal));
      // The last slot went to another task meanwhile: poll until one frees.
      if (opened === undefined) return { type: 'waited' };
      feed = opened;
    } catch (error) {
      if (this.behind) return { type: 'behind' };
      if (this.lost) return { type: 'fatal', error: this.lost };
      if (signal.aborted) return INTERRUPTED;
      if (refusesSubscription(error)) return this.settleRefused(signal);
      if (streamMendable(error)) return { type: 'stream-failed', error: error as TetherError };
      return { type: 'fatal', error: asTetherError(error, r.taskId) };
    } finally {
      idle.stop();
      if (early !== undefined) scheduler.clearTimeout(early);
      signal.removeEventListener('abort', stop);
    }
    if (this.behind) {
      feed.close();
      return { type: 'behind' };
    }
    const conn = this.open(feed, true, resumeFrom !== undefined);
    this.dispatch({ type: 'opened', subscription: true });
    conn.firstEventDue = due;
    // Agents whose subscriptions start without a snapshot: ask for one now, in parallel. It belongs to
    // this connection (not to this step): when the connection ends, so does the catch-up, and a late
    // answer can never interrupt whatever the engine does next (e.g. a reply's send).
    if (!this.context.client.agent.subscribeSnapshot && resumeFrom === undefined) conn.catchUp = this.catchUp(conn.controller.signal);
    conn.catchUp?.catch(() => undefined);
    return { type: 'subscribed' };
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

  private async pollStep(delayMs: number, signal: AbortSignal): Promise<Outcome> {
    const push = this.state.mode === 'push' ? this.push : undefined;
    if (push) {
      // Waiting for the agent's pushes: a push wakes the wait at once; the safety poll catches a lost one.
      if (!(await push.wait(delayMs, signal))) return INTERRUPTED;
    } else if ((delayMs > 0 || this.context.network?.online() === false) && !(await pause(this.context, delayMs, signal))) return INTERRUPTED;
    const asked = await askTask(this.asker(), signal);
    if (asked.kind === 'stopped') return INTERRUPTED;
    if (asked.kind === 'transient') return { type: 'request-failed', error: asked.error };
    if (asked.kind !== 'task') return { type: 'fatal', error: asked.error };
    const task = asked.task;
    const before = this.state.moves;
    this.absorbSnapshot(task, false);
    this.dispatch({ type: 'polled', moved: this.state.moves !== before, pushDelayMs: push?.nextDelayMs() });
    return { type: 'polled' };
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
    const asked = await askTask(this.asker(), signal);
    if (asked.kind === 'stopped') return INTERRUPTED;
    if (asked.kind === 'task') this.absorbSnapshot(asked.task, false);
    else if (asked.kind !== 'transient') return { type: 'fatal', error: asked.error };
    return { type: 'waited' };
  }

  private async finalCheckStep(signal: AbortSignal): Promise<Outcome> {
    const asked = await askTask(this.asker(), signal);
    switch (asked.kind) {
      case 'stopped':
        return INTERRUPTED;
      case 'lost':
        // The agent forgot the finished task: what was delivered is all there is.
        return { type: 'checked' };
      case 'transient':
        return { type: 'request-failed', error: asked.error };
      case 'failed':
        return { type: 'fatal', error: asked.error };
      default:
        this.absorbSnapshot(asked.task, true);
        return { type: 'checked' };
    }
  }
}
