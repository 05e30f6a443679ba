import type { Binding, ProtocolVersion } from '../card/card-types.js';
import type { Metadata, PushNotificationConfig, SendResult, Task, TaskPage, TaskState } from '../model/types.js';
import type { SendParams } from '../protocol/encoder.js';
import type { EventFeed } from './event-feed.js';
import type { TraceContext } from '../observe/trace-context.js';

/** Per-call options every operation takes. */
export interface CallOptions {
  /** Abort the call (for streams: close the connection). */
  signal?: AbortSignal | undefined;
  /** Time limit for the whole call; for streams, until the response headers arrive. */
  timeoutMs?: number | undefined;
  /** Extra HTTP headers for this call. */
  headers?: Record<string, string> | undefined;
  /** Extension URIs to activate for this call, on top of the client's. */
  extensions?: string[] | undefined;
  /** Streams only: called once the response headers arrived and the stream is open. */
  onOpen?: (() => void) | undefined;
  /**
   * The trace to continue: the call's requests are sent with a `traceparent` of a new span under this
   * one (default: a new trace per request, or what a plugin such as `@a2a-tether/otel` sets).
   */
  traceContext?: TraceContext | undefined;
}

/**
 * Options of the calls the client retries on its own because repeating them is safe (reads and
 * deletes: `getTask`, `listTasks`, `getPushConfig`, `listPushConfigs`, `deletePushConfig`).
 */
export interface IdempotentCallOptions extends CallOptions {
  /**
   * Retries after a transient failure (network, timeout, 408/425/429/5xx), each attempt with its
   * own `timeoutMs`; `0` makes one attempt. Default: the client's (`connect({ maxRetries })`,
   * else `DEFAULTS.maxRetries`).
   */
  maxRetries?: number | undefined;
}

/** Options of `sendMessage` and `streamMessage`. */
export interface SendOptions extends CallOptions {
  /**
   * `false` (default): the agent answers once the task is terminal or interrupted.
   * `true`: it answers as soon as the task exists. (v1.0 `returnImmediately`; v0.3 `blocking: false`.)
   * Streaming ignores it.
   */
  returnImmediately?: boolean | undefined;
  /** Media types the caller accepts in the agent's output. */
  acceptedOutputModes?: string[] | undefined;
  /** How many history messages the answer should carry (omit for the agent's default). */
  historyLength?: number | undefined;
  /** A webhook to register with the send. */
  pushNotification?: Omit<PushNotificationConfig, 'taskId'> | undefined;
  /** Request metadata (not the message's). */
  metadata?: Metadata | undefined;
  /**
   * A2A v1.1 draft (optimistic concurrency, spec §3.2.7): the generation the task must still be at. A
   * v1.1 agent refuses a message to a task that changed meanwhile with an `A2AError` -32010 (read it
   * with `generationMismatch()`; nothing was done: re-read the task, then decide); it ignores the field when the message creates
   * a task. Sent as given on v1.0 interfaces (an agent without generations ignores it); not on v0.3.
   */
  ifGenerationMatch?: number | undefined;
}

/** Options of a transport's `getTask` (what a binding of your own may honour beyond {@link CallOptions}). */
export interface GetTaskCallOptions extends CallOptions {
  /**
   * A2A v1.1 draft (long poll, spec §3.2.7): a v1.1 agent holds the answer until the task's generation
   * is past this one (or its own time limit passes): the `currentGeneration` param, or query parameter.
   * An agent without generations answers at once, as usual. (The task engine sends it only to agents
   * that stamp generations, so never on v0.3.)
   */
  currentGeneration?: number | undefined;
}

/** Options of `getTask`. */
export interface GetTaskOptions extends IdempotentCallOptions, Pick<GetTaskCallOptions, 'currentGeneration'> {
  /** At most this many of the newest history messages (v1: 0 = none; omit for the agent's default). */
  historyLength?: number | undefined;
}

/** Options of `cancelTask`. */
export interface CancelTaskOptions extends CallOptions {
  metadata?: Metadata | undefined;
}

/** Filters and paging of `listTasks` (v1.0 only). */
export interface ListTasksQuery {
  contextId?: string | undefined;
  status?: TaskState | undefined;
  /** 1–100; the agent's default is 50. */
  pageSize?: number | undefined;
  pageToken?: string | undefined;
  historyLength?: number | undefined;
  /** Only tasks whose status changed at or after this time (ISO 8601). */
  statusTimestampAfter?: string | undefined;
  /** Include artifacts (agents omit them by default). */
  includeArtifacts?: boolean | undefined;
}

/** Options of `subscribe`. */
export interface SubscribeOptions extends CallOptions {
  /** Sent as `Last-Event-ID`, for agents that number their SSE events. */
  lastEventId?: string | undefined;
}

/**
 * A binding speaking one protocol version to one interface, in normalized terms: the built-in JSON-RPC and
 * HTTP+JSON, or one of your own (`CustomBinding`). Every method takes and returns the normalized model;
 * failures are `TetherError`s.
 */
export interface Transport {
  /** `JSONRPC`, `HTTP+JSON`, or your binding's name. */
  readonly binding: Binding | (string & {});
  readonly protocolVersion: ProtocolVersion;
  readonly url: string;
  sendMessage(params: SendParams, options?: CallOptions): Promise<SendResult>;
  /** Opens a streaming send (the feed is read by its owner). */
  openStream(params: SendParams, options: CallOptions | undefined, signal: AbortSignal): Promise<EventFeed>;
  getTask(taskId: string, historyLength: number | undefined, options?: GetTaskCallOptions): Promise<Task>;
  listTasks(query: ListTasksQuery, options?: CallOptions): Promise<TaskPage>;
  cancelTask(taskId: string, metadata: Metadata | undefined, options?: CallOptions): Promise<Task>;
  /** Opens a task subscription. */
  openSubscription(taskId: string, options: SubscribeOptions | undefined, signal: AbortSignal): Promise<EventFeed>;
  createPushConfig(config: PushNotificationConfig, options?: CallOptions): Promise<PushNotificationConfig>;
  getPushConfig(taskId: string, configId: string, options?: CallOptions): Promise<PushNotificationConfig>;
  listPushConfigs(taskId: string, options?: CallOptions): Promise<PushNotificationConfig[]>;
  deletePushConfig(taskId: string, configId: string, options?: CallOptions): Promise<void>;
  getExtendedCard(options?: CallOptions): Promise<unknown>;
}
