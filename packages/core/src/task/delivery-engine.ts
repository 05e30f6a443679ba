import { TaskNotFoundError, UnsupportedOperationError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import { isInterruptedState, isTerminalState } from '../model/task-state.js';
import type { StreamEvent, Task } from '../model/types.js';
import type { EventStream } from '../transport/event-stream.js';
import { Backoff } from '../util/backoff.js';
import { sleep, type TimerHandle } from '../util/scheduler.js';
import type { EngineContext } from './engine-context.js';
import type { Reconciler } from './reconciler.js';
import { reconnectable } from './recoverable.js';
import type { ConnectionEvent, ConnectionState, TaskEvent } from './task-event.js';

/** An open stream the engine should read (the one `start()` or `reply()` opened, or a subscription). */
export interface Connection {
  stream: EventStream;
  iterator: AsyncIterator<StreamEvent>;
  /** A re-subscription after a gap (its first Task is recovered content). */
  reconnect: boolean;
  /** Events already read from it before the engine took over (by `start()` or `reply()`). */
  delivered?: number | undefined;
  /** A GetTask snapshot asked for when it opened (agents that start subscriptions without one). */
  catchUp?: Promise<void> | undefined;
  /** The `Last-Event-ID` it was opened with. */
  resumeFrom?: string | undefined;
}

/** Where the engine reports to (the task handle). */
export interface EngineSink {
  emit(events: TaskEvent[]): void;
  finished(task: Task): void;
  failed(error: TetherError): void;
}


/**
 * Keeps one task followed until it ends: reads the stream; on a premature close or a dropped
 * connection resubscribes with full-jitter backoff (Retry-After honoured, attempt and time budgets
 * reset by progress); probes a silent stream with GetTask and reconnects only if the agent moved
 * on (a half-open connection); falls back to polling when subscriptions never deliver or the agent
 * cannot stream; waits at interrupted states; and checks the final result with GetTask after any gap.
 */
export class DeliveryEngine {
  private stopped = false;
  private readonly stopper = new AbortController();
  private current: EventStream | undefined;
  private pending: Connection | undefined;
  private wakeReason: 'probe' | 'state' | 'takeover' | undefined;
  private waiter: (() => void) | undefined;
  private idleTimer: TimerHandle | undefined;
  /** When the current stream last delivered something (the idle probe counts silence from here). */
  private lastActivity = 0;
  private inputTimer: TimerHandle | undefined;
  private readonly backoff: Backoff;
  private emptyConnections = 0;
  private pollDelay: number;
  private connectionState: ConnectionState = 'connecting';
  private lastEventId: string | undefined;
  /**
   * A reply was sent and no new status has shown since: keep following (a stream that ends at the
   * interrupted state answered is premature) until the agent reports any new status.
   */
  private kicked = false;
  /** Any resubscribe, probe recovery or poll happened: the final result is checked with GetTask. */
  gap = false;

  constructor(
    private readonly context: EngineContext,
    readonly reconciler: Reconciler,
    private readonly sink: EngineSink,
    public mode: 'stream' | 'poll',
    private readonly inputTimeout: { ms: number | undefined; cancel: boolean },
  ) {
    const r = context.resilience;
    this.backoff = new Backoff(r, context.scheduler, context.random);
    this.pollDelay = r.pollMinMs;
  }

  get taskId(): string {
    return this.reconciler.taskId;
  }

  get connection(): ConnectionState {
    return this.connectionState;
  }

  get sseId(): string | undefined {
    return this.lastEventId;
  }

  /**
   * Hands the engine a stream to read next (from `start()` or `reply()`), or just wakes it after
   * the state changed from outside (a reply sent without a stream). `replied`: a reply reached the
   * agent but no new status came back with its answer (e.g. a v1 reply stream that opens with the
   * task still at input-required).
   */
  takeOver(connection: Connection | undefined, replied = false): void {
    if (connection) {
      this.pending = connection;
      this.reconciler.newConnection();
    }
    if (replied) this.kicked = true;
    this.clearInputTimer();
    // What comes now supersedes the stream being read, which may never end by itself (held open at
    // input-required, or half-open) and would hide a state the reply's answer already applied.
    if (this.current) {
      this.wakeReason = 'takeover';
      this.current.abort();
    }
    this.wake();
  }

  /** Resume from a stored SSE id (agents that number their events). */
  resumeFrom(lastEventId: string | undefined): void {
    this.lastEventId = lastEventId;
  }

  /** Something changed the task's state from outside (a cancel answer): re-evaluate. */
  stateChanged(): void {
    if (isTerminalState(this.reconciler.state)) {
      this.wakeReason = 'state';
      this.current?.abort();
      this.wake();
    }
  }

  /** Stops everything: no request is made after this returns. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stopper.abort();
    this.current?.abort();
    this.pending?.stream.abort();
    this.disarmIdle();
    this.clearInputTimer();
    this.wake();
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private setConnection(state: ConnectionState, extra: Omit<ConnectionEvent, 'type' | 'state'> = {}): void {
    if (state === this.connectionState && extra.attempt === undefined) return;
    this.connectionState = state;
    this.sink.emit([{ type: 'connection', state, ...extra }]);
  }

  private emit(events: TaskEvent[]): void {
    if (this.stopped || events.length === 0) return;
    // Statuses are deduplicated: any status now is news, so the agent has taken the reply.
    if (events.some((e) => e.type === 'status')) this.kicked = false;
    this.sink.emit(events);
  }

  /** Runs until the task ends, the handle detaches, or it gives up. Never throws. */
  async run(): Promise<void> {
    try {
      while (!this.stopped) {
        const state = this.reconciler.state;
        if (isTerminalState(state)) {
          await this.finish();
          return;
        }
        if (!isInterruptedState(state)) this.kicked = false;
        if (this.pending) {
          const connection = this.pending;
          this.pending = undefined;
          await this.consume(connection);
        } else if (isInterruptedState(state) && !this.kicked) {
          await this.waitWhileInterrupted();
        } else if (this.mode === 'poll') {
          await this.pollOnce();
        } else {
          await this.consume(this.subscribe());
        }
      }
    } catch (error) {
      if (this.stopped) return;
      this.stop();
      this.connectionState = 'closed';
      this.sink.emit([{ type: 'connection', state: 'closed', ...(error instanceof TetherError ? { error } : {}) }]);
      this.sink.failed(
        error instanceof TetherError
          ? error
          : new TetherError('PROTOCOL_VIOLATION', `task engine failed: ${String(error)}`, { taskId: this.taskId, cause: error }),
      );
    }
  }

  private subscribe(): Connection {
    const resumeFrom = this.lastEventId;
    this.reconciler.newConnection();
    // onOpen runs once the stream is iterated, after `connection` below exists.
    const stream = this.context.client.subscribe(this.taskId, {
      lastEventId: resumeFrom,
      onOpen: () => {
        if (!this.stopped) this.setConnection('live');
        // v0.3 agents rarely start a subscription with a snapshot: ask for one right away (unless
        // the agent numbers its events and resumes after the last one we saw).
        if (this.context.client.interface.protocolVersion === '0.3' && resumeFrom === undefined) {
          connection.catchUp = this.catchUp();
        }
      },
    });
    const connection: Connection = { stream, iterator: stream[Symbol.asyncIterator](), reconnect: true, resumeFrom };
    return connection;
  }

  private async consume(connection: Connection): Promise<void> {
    const { stream, iterator } = connection;
    this.current = stream;
    // Events `start()` or `reply()` already read from it count for where to resume, too.
    if (stream.lastEventId !== undefined) this.lastEventId = stream.lastEventId;
    let count = connection.delivered ?? 0;
    let failure: unknown;
    if (count > 0) {
      this.backoff.progress();
      this.emptyConnections = 0;
      this.setConnection('live');
    }
    this.armIdle();
    try {
      for (;;) {
        const next = await iterator.next();
        if (next.done) break;
        const event = next.value;
        count++;
        this.backoff.progress();
        this.emptyConnections = 0;
        this.setConnection('live');
        if (stream.lastEventId !== undefined) this.lastEventId = stream.lastEventId;
        const resumedById = connection.resumeFrom !== undefined && stream.lastEventId !== undefined;
        if (connection.reconnect && count === 1 && event.kind !== 'task' && !resumedById) {
          // No snapshot opened this subscription: apply one from GetTask before the live events, so
          // the app never sees content after a hole (the reconciler drops what the two share).
          await (connection.catchUp ??= this.catchUp());
          if (this.stopped) break;
        }
        this.emit(this.reconciler.applyEvent(event, { recovered: connection.reconnect && event.kind === 'task', eventId: stream.lastEventId }));
        if (this.stopped || isTerminalState(this.reconciler.state)) break;
        this.armIdle();
      }
    } catch (error) {
      failure = error;
    } finally {
      this.disarmIdle();
      this.current = undefined;
      await iterator.return?.().catch(() => undefined);
    }
    if (this.stopped) return;
    const wake = this.wakeReason;
    this.wakeReason = undefined;
    const state = this.reconciler.state;
    if (isTerminalState(state) || wake === 'takeover') return;
    if (wake === 'probe') {
      this.gap = true;
      this.setConnection('reconnecting', { attempt: 1, delayMs: 0 });
      return;
    }
    if (failure === undefined) {
      if (isInterruptedState(state) && !this.kicked) return;
      failure = new TetherError('STREAM_INTERRUPTED', `the stream ended while the task was ${state}`, { taskId: this.taskId });
    }
    await this.afterFailure(failure, count);
  }

  private async afterFailure(error: unknown, delivered: number): Promise<void> {
    if (error instanceof UnsupportedOperationError || error instanceof TaskNotFoundError) {
      // Subscribing was refused: the task may be finished (or streaming unavailable). Ask.
      const task = await this.getTaskWithRetry();
      this.gap = true;
      this.emit(this.reconciler.applySnapshot(task, { recovered: true }));
      if (!isTerminalState(task.status.state) && !isInterruptedState(task.status.state)) {
        this.mode = 'poll';
        this.setConnection('polling');
      }
      return;
    }
    if (!reconnectable(error)) throw error;
    this.gap = true;
    if (delivered === 0 && ++this.emptyConnections >= this.context.resilience.emptyConnectionsBeforePolling) {
      this.mode = 'poll';
      this.setConnection('polling', { error });
      return;
    }
    await this.pause(error);
  }

  /** Backs off after a failure, or throws RETRY_EXHAUSTED when the budget is spent. */
  private async pause(error: TetherError): Promise<void> {
    const decision = this.backoff.next(error.retryAfterMs);
    if (!decision.retry) {
      throw new TetherError('RETRY_EXHAUSTED', `gave up following task ${this.taskId} after ${decision.reason}: ${error.message}`, {
        taskId: this.taskId,
        cause: error,
      });
    }
    this.setConnection(this.mode === 'poll' ? 'polling' : 'reconnecting', {
      attempt: decision.attempt,
      delayMs: decision.delayMs,
      error,
    });
    await sleep(this.context.scheduler, decision.delayMs, this.stopper.signal);
  }

  private async getTaskWithRetry(): Promise<Task> {
    for (;;) {
      try {
        const task = await this.context.client.getTask(this.taskId, { signal: this.stopper.signal });
        this.backoff.progress();
        return task;
      } catch (error) {
        if (this.stopped || !reconnectable(error)) throw error;
        await this.pause(error);
      }
    }
  }

  private async catchUp(): Promise<void> {
    try {
      // Retried through transient failures: the live events wait for it, and applying them without
      // it would show content after a hole.
      const task = await this.getTaskWithRetry();
      if (this.stopped) return;
      this.gap = true;
      this.emit(this.reconciler.applySnapshot(task, { recovered: true }));
      this.stateChanged();
    } catch {
      // The final check covers what this would have found.
    }
  }

  /**
   * Starts a silence window. Events only move `lastActivity` (no timer churn per event); a timer that
   * fires before the window is over re-arms for the rest of it.
   */
  private armIdle(): void {
    this.lastActivity = this.context.scheduler.now();
    if (this.idleTimer === undefined) this.scheduleIdle(this.context.resilience.idleProbeMs);
  }

  private scheduleIdle(ms: number): void {
    if (this.context.resilience.idleProbeMs > 0 && !this.stopped) {
      this.idleTimer = this.context.scheduler.setTimeout(() => this.idleElapsed(), ms);
    }
  }

  private idleElapsed(): void {
    this.idleTimer = undefined;
    const remaining = this.lastActivity + this.context.resilience.idleProbeMs - this.context.scheduler.now();
    if (remaining > 0) this.scheduleIdle(remaining);
    else void this.probe();
  }

  private disarmIdle(): void {
    if (this.idleTimer !== undefined) this.context.scheduler.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Silence is not death (agents send no heartbeats): ask whether the agent moved past the stream. */
  private async probe(): Promise<void> {
    const stream = this.current;
    if (!stream || this.stopped) return;
    try {
      const task = await this.context.client.getTask(this.taskId, { signal: this.stopper.signal });
      if (this.stopped || this.current !== stream) return;
      if (this.reconciler.isBehind(task)) {
        this.gap = true;
        this.emit(this.reconciler.applySnapshot(task, { recovered: true }));
        this.wakeReason = 'probe';
        stream.abort();
        return;
      }
    } catch {
      // A failed probe proves nothing; look again later.
    }
    if (this.current === stream) this.armIdle();
  }

  private async pollOnce(): Promise<void> {
    this.setConnection('polling');
    this.gap = true;
    try {
      const task = await this.context.client.getTask(this.taskId, { signal: this.stopper.signal });
      this.backoff.progress();
      const events = this.reconciler.applySnapshot(task, { recovered: false });
      this.emit(events);
      const r = this.context.resilience;
      this.pollDelay = events.length > 0 ? r.pollMinMs : Math.min(r.pollMaxMs, this.pollDelay * r.pollFactor);
    } catch (error) {
      if (this.stopped) return;
      if (!reconnectable(error)) throw error;
      await this.pause(error);
      return;
    }
    const state = this.reconciler.state;
    if (isTerminalState(state) || (isInterruptedState(state) && !this.kicked)) return;
    const jittered = this.pollDelay * (0.8 + 0.4 * this.context.random());
    await sleep(this.context.scheduler, jittered, this.stopper.signal);
  }

  private clearInputTimer(): void {
    if (this.inputTimer !== undefined) this.context.scheduler.clearTimeout(this.inputTimer);
    this.inputTimer = undefined;
  }

  /** Parked at input-required / auth-required until `reply()`, a state change, a timeout or detach. */
  private async waitWhileInterrupted(): Promise<void> {
    const state = this.reconciler.state;
    this.setConnection('closed');
    if (this.inputTimeout.ms !== undefined && this.inputTimer === undefined) {
      this.inputTimer = this.context.scheduler.setTimeout(() => void this.inputTimedOut(state), this.inputTimeout.ms);
    }
    const pollMs = this.context.resilience.authRequiredPollMs;
    if (state === 'auth-required' && pollMs > 0) {
      // The agent may resume on its own once the credentials arrive out of band.
      const woke = await Promise.race([sleep(this.context.scheduler, pollMs, this.stopper.signal), this.parked()]);
      if (this.stopped || this.pending || woke !== true) return;
      try {
        this.emit(this.reconciler.applySnapshot(await this.context.client.getTask(this.taskId, { signal: this.stopper.signal }), { recovered: false }));
      } catch (error) {
        if (!reconnectable(error)) throw error;
      }
      if (this.reconciler.state !== state) this.clearInputTimer();
      return;
    }
    await this.parked();
  }

  private parked(): Promise<'woken'> {
    return new Promise((resolve) => {
      this.waiter = () => resolve('woken');
    });
  }

  private async inputTimedOut(state: string): Promise<void> {
    this.inputTimer = undefined;
    if (this.stopped || this.reconciler.state !== state) return;
    const error = new TetherError('INPUT_TIMEOUT', `no reply within ${this.inputTimeout.ms} ms while the task was ${state}`, {
      taskId: this.taskId,
    });
    if (this.inputTimeout.cancel) {
      await this.context.client.cancelTask(this.taskId).catch(() => undefined);
    }
    this.stop();
    this.connectionState = 'closed';
    this.sink.failed(error);
  }

  private async finish(): Promise<void> {
    this.disarmIdle();
    this.clearInputTimer();
    let final: Task;
    if (this.gap || this.context.resilience.finalCheck === 'always') {
      final = await this.getTaskWithRetry();
      this.emit(this.reconciler.applySnapshot(final, { recovered: true }));
    } else {
      final = {
        kind: 'task',
        id: this.taskId,
        contextId: this.reconciler.contextId,
        status: {
          state: this.reconciler.state,
          ...(this.reconciler.statusMessage ? { message: this.reconciler.statusMessage } : {}),
          ...(this.reconciler.timestamp ? { timestamp: this.reconciler.timestamp } : {}),
        },
        artifacts: this.reconciler.assembledArtifacts(),
        history: this.reconciler.historySnapshot(),
      };
    }
    if (this.stopped) return;
    this.stop();
    this.connectionState = 'closed';
    this.sink.emit([{ type: 'connection', state: 'closed' }]);
    this.sink.finished(final);
  }
}
