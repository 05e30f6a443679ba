import { TetherError } from '../errors/tether-error.js';
import { toMessage, type MessageInput } from '../model/message-input.js';
import { isTerminalState } from '../model/task-state.js';
import type { Message, Task } from '../model/types.js';
import type { SendOptions } from '../transport/transport.js';
import { EventQueue, type Compaction } from './event-queue.js';
import type { FollowContext } from './follow-context.js';
import { LazyResult } from './follow-types.js';
import type { CancelOptions, CancelOutcome, TaskFollower } from './follower.js';
import type { TaskEvent, TaskView } from './task-event.js';
import type { TaskWatch } from '../observe/task-watch.js';
import type { DataOfOptions } from '../schema/data-of.js';
import type { SchemaOutput, StandardSchema } from '../schema/standard-schema.js';

/** Options of {@link TaskHandle.reply}. */
export interface ReplyOptions extends Omit<SendOptions, 'ifGenerationMatch'> {
  /**
   * A2A v1.1 draft: send the reply only if the task is still at this generation — a number, or `'last'`
   * for the generation of the last change this handle applied (with `connect(url, { experimental:
   * { generations: true } })` and an agent that keeps generations; when none is known, `'last'` sends 0,
   * which such an agent refuses: a reply asked to be guarded never goes unguarded). A task that changed
   * meanwhile makes the agent refuse the reply with an `A2AError` -32010, `maybeDelivered: false` (read
   * it with `generationMismatch()` of `@a2a-tether/core/protocol`); the follow goes on.
   */
  ifGenerationMatch?: number | 'last' | undefined;
}

/**
 * A task being followed. Hold it to read events, wait for the result, answer the agent, cancel,
 * or stop watching. The engine behind it owns every connection; the handle only reads from it
 * and passes your calls on.
 *
 * When the agent answered `start()` with a message instead of creating a task, `kind` is
 * `'message'`, `message` holds the answer, `events()` yields it once, and `done()` rejects with
 * `NO_TASK` (use `result()` to accept either).
 */
export class TaskHandle {
  /** `message` when the agent answered directly, without a task. */
  readonly kind: 'task' | 'message';
  /** The agent's direct answer, when it created no task. */
  readonly message: Message | undefined;
  private readonly queue: EventQueue;
  private readonly final = new LazyResult<Task>();
  private settled = false;

  /** @internal Use `client.start()` / `client.resume()`. */
  /** `compact`: how the events buffer shrinks while nobody reads (a follow that keeps no artifact parts). */
  constructor(
    private readonly context: FollowContext,
    private readonly follower: TaskFollower | undefined,
    message?: Message,
    compact?: Compaction,
    private readonly watch?: TaskWatch,
  ) {
    this.queue = new EventQueue(context.resilience.maxBufferedEvents, () => this.resyncEvents(), compact);
    this.message = message;
    if (message !== undefined || !follower) {
      this.kind = 'message';
      if (message) this.queue.push([{ type: 'message', message }]);
      this.queue.close();
      this.settled = true;
      this.final.reject(
        new TetherError('NO_TASK', 'the agent answered with a message and created no task (see handle.message, or use handle.result())', {
          maybeDelivered: true,
        }),
      );
      return;
    }
    this.kind = 'task';
  }

  /** The task id (`undefined` for a message answer). */
  get taskId(): string | undefined {
    return this.follower?.taskId;
  }

  /** The task as the app should show it now (a copy). */
  get view(): TaskView {
    const r = this.follower?.view;
    if (!r) return { taskId: '', contextId: '', state: 'unknown', artifacts: [], incompleteArtifacts: [], history: [], connection: 'closed' };
    const artifacts = r.assembledArtifacts();
    const view: TaskView = {
      taskId: r.taskId,
      contextId: r.contextId,
      state: r.state,
      artifacts,
      incompleteArtifacts: artifacts.filter((a) => !r.artifactComplete(a.artifactId)).map((a) => a.artifactId),
      history: r.historySnapshot(),
      connection: this.settled ? 'closed' : (this.follower?.state.connection ?? 'closed'),
    };
    if (r.statusMessage) view.statusMessage = r.statusMessage;
    if (r.timestamp) view.timestamp = r.timestamp;
    return view;
  }

  /**
   * The task's events: deduplicated, in order, with `connection` events when the link drops and
   * recovers. One reader at a time; `break` or the signal stop reading (the task keeps running and
   * the handle keeps following it); a later reader continues where the last one stopped.
   *
   * How the loop ends says how the follow ended: after the task's terminal status (and the last
   * `connection: closed`) it ends normally; when the follow failed — an agent error in the stream, a
   * lost task, `RETRY_EXHAUSTED`, `INPUT_TIMEOUT` — it throws that typed error (the one `done()`
   * rejects with) after the last event, so a loop without `done()` never mistakes a failure for the
   * end. `detach()` ends it quietly: stopping watching is not a failure.
   *
   * @throws {TetherError} the error that ended the follow, after the last event.
   */
  events(options: { signal?: AbortSignal | undefined } = {}): AsyncIterable<TaskEvent> {
    return { [Symbol.asyncIterator]: () => this.queue.read(options.signal) };
  }

  /**
   * The final task once it is terminal (`completed`, `failed`, `canceled`, `rejected`), with
   * exactly the agent's artifacts. Rejects with the agent's error (an `A2AError` that arrived in
   * the stream, a `TaskNotFoundError` for a task the agent lost), `RETRY_EXHAUSTED` (the task stays
   * in the store, resumable), `INPUT_TIMEOUT`, `ABORTED` (detached) or `NO_TASK` (a message answer).
   */
  done(): Promise<Task> {
    return this.final.promise;
  }

  /**
   * The value of the agent's data part in the final task, checked by `schema` (any Standard Schema
   * validator, e.g. a zod 4 schema) and typed by it: the first data part of artifact `options.artifactId`,
   * or of the first artifact with one (of the message, for a direct message answer). Rejects like
   * {@link done}, and with a `SchemaMismatchError` (`SCHEMA_MISMATCH`, the part kept whole) when there is no
   * data part or it does not match.
   */
  async data<S extends StandardSchema>(schema: S, options?: DataOfOptions): Promise<SchemaOutput<S>> {
    const result = await this.result();
    // Loaded on first use: a web app that never reads data through a schema does not load it up front.
    const { dataOf } = await import('../schema/data-of.js');
    return dataOf(result, schema, options);
  }

  /** Like {@link done}, but a direct message answer resolves with the message. */
  result(): Promise<Task | Message> {
    return this.message !== undefined ? Promise.resolve(this.message) : this.final.promise;
  }

  /**
   * Answers the agent at `input-required` / `auth-required`: continues the same task (same task
   * and context ids, a new message id). Resolves once the agent acknowledged the message.
   */
  async reply(input: MessageInput, options: ReplyOptions = {}): Promise<void> {
    const follower = this.follower;
    const r = follower?.view;
    if (!follower || !r) throw new TetherError('INVALID_ARGUMENT', 'a direct message answer has no task to continue', { maybeDelivered: false });
    // 'last' with no generation known: 0, which an agent that keeps generations refuses (never unguarded).
    const guard = options.ifGenerationMatch === 'last' ? (r.generations?.known ?? 0) : options.ifGenerationMatch;
    const base = typeof input === 'string' ? { text: input } : input;
    const message = toMessage({ ...base, taskId: r.taskId, contextId: r.contextId }, this.context.newId);
    await follower.reply(message, { ...options, ifGenerationMatch: guard });
    this.watch?.tell(r.taskId, r.contextId, { type: 'answered', messageId: message.messageId });
  }

  /**
   * Asks the agent to cancel. The outcome says whether the agent confirmed (`canceled`) or only
   * received the request. A task seen ending already is not asked: `{ requested: false, state }` with
   * its final state (`confirmed` when that was `canceled`).
   * (Stopping watching is `detach()`, which never cancels.)
   */
  async cancel(options: CancelOptions = {}): Promise<CancelOutcome> {
    if (!this.follower) throw new TetherError('INVALID_ARGUMENT', 'a direct message answer has no task to cancel', { maybeDelivered: false });
    const r = this.follower.view;
    const ended = r !== undefined && isTerminalState(r.state);
    if (r && !ended) this.watch?.tell(r.taskId, r.contextId, { type: 'cancel-requested' });
    const outcome = await this.follower.cancel(options);
    if (r && outcome.requested && outcome.confirmed) this.watch?.tell(r.taskId, r.contextId, { type: 'cancel-confirmed', state: outcome.state });
    return outcome;
  }

  /**
   * Stops watching: closes connections and timers, ends `events()`; `done()` rejects with ABORTED.
   * The task keeps running on the agent and stays in the store: `client.resume(taskId)` follows it again.
   */
  detach(): void {
    if (this.settled) return;
    this.follower?.detach();
    this.settled = true;
    this.queue.push([{ type: 'connection', state: 'closed' }]);
    this.queue.close();
    this.final.reject(
      new TetherError('ABORTED', `stopped watching task ${this.taskId}; it keeps running (resume it with client.resume)`, {
        taskId: this.taskId,
      }),
    );
  }

  /** @internal Resolves when pending store writes are done (tests, shutdown). */
  flush(): Promise<void> {
    return this.follower?.flush() ?? Promise.resolve();
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

  /** @internal */
  onEvents(events: TaskEvent[]): void {
    if (!this.settled) this.queue.push(events);
  }

  /** @internal */
  onFinished(task: Task): void {
    if (this.settled) return;
    this.settled = true;
    this.queue.close();
    this.final.resolve(task);
  }

  /** @internal */
  onFailed(error: TetherError): void {
    if (this.settled) return;
    this.settled = true;
    this.queue.close(error);
    this.final.reject(error);
  }
}
