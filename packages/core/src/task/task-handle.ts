import { toMessage, type MessageInput } from '../client/message-input.js';
import { TaskNotCancelableError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import { isInterruptedState } from '../model/task-state.js';
import type { Message, Task, TaskState } from '../model/types.js';
import type { TaskRecord } from '../store/task-store.js';
import type { CallOptions } from '../transport/transport.js';
import { DeliveryEngine, type Connection } from './delivery-engine.js';
import type { EngineContext } from './engine-context.js';
import { EventQueue } from './event-queue.js';
import { findDelivered, firstEvent, retrySend } from './lost-send.js';
import type { Reconciler } from './reconciler.js';
import type { TaskEvent, TaskView } from './task-event.js';

/** What `cancel()` found out. A request is not a confirmation: `confirmed` says which it was. */
export interface CancelOutcome {
  /** The cancel request was sent. */
  requested: true;
  /** The agent reported the task `canceled`. */
  confirmed: boolean;
  /** The task's state as the agent reported it (e.g. `completed` if it finished first). */
  state: TaskState;
}

/** Options of `cancel()`. */
export interface CancelOptions extends CallOptions {
  /** Why (kept in the store and sent as request metadata `a2a-tether/cancel-reason`). */
  reason?: string | undefined;
}

/** How a task is followed and how long to wait for a human. */
export interface FollowOptions {
  /** `auto` (default): stream if the card says the agent can, else poll. */
  delivery?: 'auto' | 'stream' | 'poll' | undefined;
  /** At input-required / auth-required, fail `done()` with INPUT_TIMEOUT after this long without `reply()`. */
  inputTimeoutMs?: number | undefined;
  /** With `inputTimeoutMs`: also ask the agent to cancel the task. */
  cancelOnInputTimeout?: boolean | undefined;
}

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
  // Nobody is obliged to call done(): never report an unhandled rejection for it.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/**
 * A task (or a direct message reply) being followed. Hold it to read events, wait for the
 * result, answer the agent, cancel, or stop watching.
 */
export class TaskHandle {
  /** `message` when the agent answered directly, without a task. */
  readonly kind: 'task' | 'message';
  /** The task id (`undefined` for a message reply). */
  readonly taskId: string | undefined;
  private readonly queue: EventQueue;
  private readonly result = deferred<Task | Message>();
  private readonly engine: DeliveryEngine | undefined;
  private readonly reconciler: Reconciler | undefined;
  private writes: Promise<unknown> = Promise.resolve();
  private settled = false;

  /** @internal Use `client.start()` / `client.resume()`. */
  constructor(
    private readonly context: EngineContext,
    init:
      | { kind: 'message'; message: Message }
      | { kind: 'task'; reconciler: Reconciler; mode: 'stream' | 'poll'; follow: FollowOptions; gap: boolean },
  ) {
    this.kind = init.kind;
    this.queue = new EventQueue(context.resilience.maxBufferedEvents, () => this.resyncEvents());
    if (init.kind === 'message') {
      this.taskId = undefined;
      this.queue.push([{ type: 'message', message: init.message }]);
      this.queue.close();
      this.settled = true;
      this.result.resolve(init.message);
      return;
    }
    this.taskId = init.reconciler.taskId;
    this.reconciler = init.reconciler;
    this.engine = new DeliveryEngine(
      context,
      init.reconciler,
      {
        emit: (events) => this.onEvents(events),
        finished: (task) => this.onFinished(task),
        failed: (error) => this.onFailed(error),
      },
      init.mode,
      { ms: init.follow.inputTimeoutMs, cancel: init.follow.cancelOnInputTimeout ?? false },
    );
    this.engine.gap = init.gap;
  }

  /** @internal Starts following (after the first events were applied). */
  begin(connection?: Connection): void {
    if (!this.engine) return;
    if (connection) this.engine.takeOver(connection);
    void this.engine.run();
  }

  /** @internal Continue after a stored SSE id. */
  resumeFrom(lastEventId: string | undefined): void {
    this.engine?.resumeFrom(lastEventId);
  }

  /** @internal Feeds events found before the engine ran (the first events of `start()`). */
  emitInitial(events: TaskEvent[]): void {
    this.onEvents(events);
  }

  /** The task as the app should show it now (a copy). */
  get view(): TaskView {
    const r = this.reconciler;
    if (!r) {
      return { taskId: '', contextId: '', state: 'completed', artifacts: [], history: [], connection: 'closed' };
    }
    const view: TaskView = {
      taskId: r.taskId,
      contextId: r.contextId,
      state: r.state,
      artifacts: r.assembledArtifacts(),
      history: r.historySnapshot(),
      connection: this.engine?.connection ?? 'closed',
    };
    if (r.statusMessage) view.statusMessage = r.statusMessage;
    if (r.timestamp) view.timestamp = r.timestamp;
    return view;
  }

  /**
   * The task's events: deduplicated, in order, with `connection` events when the link drops and
   * recovers. One reader at a time; `break` or the signal stop reading (the task keeps running and
   * the handle keeps following it).
   */
  events(options: { signal?: AbortSignal | undefined } = {}): AsyncIterable<TaskEvent> {
    return { [Symbol.asyncIterator]: () => this.queue.read(options.signal) };
  }

  /**
   * The final task once it is terminal (`completed`, `failed`, `canceled`, `rejected`), with
   * exactly the agent's artifacts; or the message, for a direct reply. Rejects with
   * `RETRY_EXHAUSTED` (the task stays in the store, resumable), `INPUT_TIMEOUT`, `ABORTED`
   * (detached) or a non-retryable error.
   */
  done(): Promise<Task | Message> {
    return this.result.promise;
  }

  /**
   * Answers the agent at `input-required` / `auth-required`: continues the same task (same task
   * and context ids, a new message id). Resolves once the agent acknowledged the message.
   */
  async reply(input: MessageInput, options: CallOptions = {}): Promise<void> {
    const engine = this.engine;
    const r = this.reconciler;
    if (!engine || !r) throw new TetherError('INVALID_ARGUMENT', 'a direct message reply has no task to continue');
    if (engine.isStopped) throw new TetherError('INVALID_ARGUMENT', `task ${r.taskId} is no longer followed (it ended or was detached)`);
    if (!isInterruptedState(r.state)) {
      throw new TetherError('INVALID_ARGUMENT', `task ${r.taskId} is ${r.state}, not waiting for input`, { taskId: r.taskId });
    }
    const base = typeof input === 'string' ? { text: input } : input;
    const message = toMessage({ ...base, taskId: r.taskId, contextId: r.contextId }, this.context.newId);
    const client = this.context.client;
    // Whether the answer to the reply already showed a new status (else the engine waits for one).
    let moved = false;
    const show = (events: TaskEvent[]): void => {
      moved ||= events.some((e) => e.type === 'status');
      this.onEvents(events);
    };
    await retrySend(this.context, message, async () => {
      if (engine.mode === 'stream') {
        const stream = client.streamMessage(message, options);
        const iterator = stream[Symbol.asyncIterator]();
        const first = await firstEvent(this.context, stream, iterator);
        if (!first.done) show(r.applyEvent(first.value, { eventId: stream.lastEventId }));
        engine.takeOver({ stream, iterator, reconnect: false, delivered: first.done ? 0 : 1 }, !moved);
      } else {
        const answer = await client.sendMessage(message, { ...options, returnImmediately: true });
        if (answer.kind === 'task') show(r.applySnapshot(answer, { recovered: false }));
        engine.takeOver(undefined, !moved);
      }
    }, async () => {
      const delivered = await findDelivered(this.context, message);
      if (!delivered) return false;
      show(r.applySnapshot(delivered, { recovered: true }));
      engine.gap = true;
      engine.takeOver(undefined, !moved);
      return true;
    });
  }

  /**
   * Asks the agent to cancel. The outcome says whether the agent confirmed (`canceled`) or only
   * received the request; cancelling a finished task reports `confirmed: false` with its final state.
   * (Stopping watching is `detach()`, which never cancels.)
   */
  async cancel(options: CancelOptions = {}): Promise<CancelOutcome> {
    const r = this.reconciler;
    if (!r) throw new TetherError('INVALID_ARGUMENT', 'a direct message reply has no task to cancel');
    const requestedAt = this.context.scheduler.now();
    this.persist((record) => ({ ...record, cancel: { requestedAt, reason: options.reason } }));
    const { reason, ...call } = options;
    let task: Task;
    try {
      task = await this.context.client.cancelTask(r.taskId, {
        ...call,
        ...(reason === undefined ? {} : { metadata: { 'a2a-tether/cancel-reason': reason } }),
      });
    } catch (error) {
      if (!(error instanceof TaskNotCancelableError)) throw error;
      task = await this.context.client.getTask(r.taskId, call);
    }
    this.onEvents(r.applySnapshot(task, { recovered: false }));
    this.engine?.stateChanged();
    return { requested: true, confirmed: task.status.state === 'canceled', state: task.status.state };
  }

  /**
   * Stops watching: closes connections and timers, ends `events()`; `done()` rejects with ABORTED.
   * The task keeps running on the agent and stays in the store: `client.resume(taskId)` follows it again.
   */
  detach(): void {
    if (this.settled) return;
    this.engine?.stop();
    this.settle();
    this.queue.push([{ type: 'connection', state: 'closed' }]);
    this.queue.close();
    this.result.reject(
      new TetherError('ABORTED', `stopped watching task ${this.taskId}; it keeps running (resume it with client.resume)`, {
        taskId: this.taskId,
      }),
    );
  }

  private settle(): void {
    this.settled = true;
  }

  private resyncEvents(): TaskEvent[] {
    const view = this.view;
    const events: TaskEvent[] = view.artifacts.map((a) => ({
      type: 'artifact',
      artifactId: a.artifactId,
      ...(a.name === undefined ? {} : { name: a.name }),
      parts: [...a.parts],
      append: false,
      lastChunk: false,
      recovered: true,
    }));
    events.push({
      type: 'status',
      state: view.state,
      ...(view.statusMessage ? { message: view.statusMessage } : {}),
      ...(view.timestamp ? { timestamp: view.timestamp } : {}),
      recovered: true,
    });
    return events;
  }

  private onEvents(events: TaskEvent[]): void {
    if (this.settled || events.length === 0) return;
    this.queue.push(events);
    const status = events.findLast((e) => e.type === 'status');
    if (status) {
      const lastEventId = this.engine?.sseId;
      this.persist((record) => ({ ...record, state: status.state, ...(lastEventId === undefined ? {} : { lastEventId }) }));
    }
  }

  /** Serialized store writes: a record never goes backwards because two writes raced. */
  private persist(change: (record: TaskRecord) => TaskRecord): void {
    const taskId = this.taskId;
    if (taskId === undefined) return;
    const now = this.context.scheduler.now();
    this.writes = this.writes
      .then(() => this.context.store.update(taskId, (r) => (r ? { ...change(r), updatedAt: now } : r)))
      .catch(() => undefined);
  }

  private onFinished(task: Task): void {
    if (this.settled) return;
    this.settle();
    const taskId = this.taskId as string;
    this.writes = this.writes.then(() => this.context.store.delete(taskId)).catch(() => undefined);
    this.queue.close();
    this.result.resolve(task);
  }

  private onFailed(error: TetherError): void {
    if (this.settled) return;
    this.settle();
    this.queue.close();
    this.result.reject(error);
  }

  /** @internal Resolves when pending store writes are done (tests, shutdown). */
  flush(): Promise<unknown> {
    return this.writes;
  }
}
