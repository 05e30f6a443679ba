import type { TraceContext } from '../observe/trace-context.js';
import type { TetherError } from '../errors/tether-error.js';
import type { Message, Task, TaskState } from '../model/types.js';
import type { CallOptions, SendOptions } from '../transport/transport.js';
import type { Resend } from './delivery.js';
import type { TaskEvent } from './task-event.js';

export type { DeliveryMode } from './follow-state.js';

/** How a task is followed and how long to wait for a human. */
export interface FollowOptions {
  /**
   * `auto` (default): push when the client has a push receiver (`connect(url, { push })`) and the card
   * says the agent can push; else stream if the card says the agent can; else poll. `push` insists on
   * push (an error if either is missing). `poll` polls to the end: unlike a fall back to polling, it
   * never tries to stream again (a resumed task polls only when `resume()` is given `poll` again).
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
  /**
   * `false`: for apps that render from events only. The follow keeps no artifact parts — per part
   * only a 12-byte digest that tells a replayed part from a new one — so a long artifact costs no
   * memory here and the parts are not copied. Events carry every part as usual (deduplicated, in
   * order); `view` and a `done()` built from it list artifacts without parts (a final snapshot from
   * the agent keeps its parts); a replay that diverges mid-artifact arrives as an event with
   * `from` (replace the parts from that index on). While no one reads `events()`, artifact events are
   * merged per artifact instead of being dropped for a resync. Not with tabs (a browser coordinator):
   * a tab that joins late is sent the artifact, which must be kept. Default `true`.
   */
  keepArtifacts?: boolean | undefined;
  /**
   * The trace the follow continues: its first request (the creating send) becomes a child span of this
   * context, and every later request of the task (subscriptions, polls, replies, a cancel) a child of
   * that first request. Default: a new trace (or the active span, with `@a2a-tether/otel`).
   */
  traceContext?: TraceContext | undefined;
  /** The task that delegated this one (a workflow hop's parent): carried by the task's lifecycle events. */
  parentTaskId?: string | undefined;
  /**
   * The app's own labels for the task, kept in its record (`TaskRecord.tags`) and so in every tab's
   * `watchTasks()` list and after a reload: e.g. `{ prompt: 'Summarise the report' }` for a task list to
   * show, or the chat a turn belongs to. Strings only; at most 16 tags, each key at most 64 and each
   * value at most 1024 characters (else `INVALID_ARGUMENT`, and nothing is sent). They stay on this
   * side: the agent is never sent them.
   */
  tags?: Readonly<Record<string, string>> | undefined;
}


/** What `cancel()` found out. A request is not a confirmation: `confirmed` says which it was. */
export interface CancelOutcome {
  /**
   * `true`: the cancel request was sent (and answered, or its answer lost: see `answerLost`). `false`:
   * the task had already ended (`state` is its final state; `confirmed` is whether that was `canceled`),
   * so nothing was sent.
   */
  requested: boolean;
  /** The task was seen `canceled` afterwards (on its stream, or by GetTask). */
  confirmed: boolean;
  /** The state the task was seen in (e.g. `completed` if it finished first, `working` if it has not stopped yet). */
  state: TaskState;
  /**
   * The request went out but its answer was lost (a reset, a timeout, a 5xx): this error. The agent may
   * or may not have taken it; `confirmed` and `state` are what a GetTask and the follow saw afterwards.
   */
  answerLost?: TetherError | undefined;
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
  /** The task's lease was taken (a store several processes share); `fence`: its fencing token. */
  leased?(fence: number | undefined): void;
}

/**
 * A result settled once, whose promise is made only when someone asks for it: most follows are never
 * awaited (an app that reads events does not call `done()`), and a pending promise with its two
 * resolving functions is held for the whole life of a task. Later settles are ignored, as a promise's
 * are; a rejection nobody asked for is never reported as unhandled.
 */
export class LazyResult<T> {
  private made: Deferred<T> | undefined;
  /** How it settled: resolved (with the value) or rejected (with the error). */
  private settled: [resolved: boolean, value: unknown] | undefined;

  get promise(): Promise<T> {
    if (!this.made) {
      this.made = deferred<T>();
      this.pass();
    }
    return this.made.promise;
  }

  resolve(value: T): void {
    this.settled ??= [true, value];
    this.pass();
  }

  reject(error: unknown): void {
    this.settled ??= [false, error];
    this.pass();
  }

  /** Hands how it settled to the promise, if both exist (a promise settles once: repeats are no-ops). */
  private pass(): void {
    const { made, settled } = this;
    if (made && settled) (settled[0] ? made.resolve : made.reject)(settled[1] as T);
  }
}

/** What the first send of `start()` came back with. */
export type StartAck = { kind: 'task' } | { kind: 'message'; message: Message };

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** A message on its way (the creating send, or a reply). */
export interface PendingSend {
  message: Message;
  purpose: 'start' | 'reply';
  options: SendOptions;
  ack: Deferred<StartAck>;
}
