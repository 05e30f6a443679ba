import type { TetherError } from '../errors/tether-error.js';
import type { Message, StreamEvent, Task, TaskState } from '../model/types.js';
import type { ConnectionState, TaskEvent } from '../task/task-event.js';
import type { TraceContext } from './trace-context.js';

/** The agent a request or an event is about: its card's name and the card's URL (credential-like query values redacted). */
export interface AgentRef {
  name: string;
  url: string;
  /** The card's `description` and `version`, when it has them. */
  description?: string | undefined;
  version?: string | undefined;
}

/**
 * One HTTP request of an A2A call, as plugins see it. Never carries credentials: the URL is redacted,
 * and the headers a plugin is handed hold no credential (they are added after every plugin ran).
 */
export interface RequestInfo {
  /** Unique in this process, in the order requests were made. */
  readonly id: number;
  /** The A2A operation, by its v1.0 name whichever version is spoken (`SendStreamingMessage`, `GetTask` …), or `GetAgentCard`. */
  readonly operation: string;
  readonly method: string;
  /** Where the request goes, credential-like query values redacted. */
  readonly url: string;
  /** The task it is about, when known before the answer. */
  readonly taskId: string | undefined;
  /** The message it sends (`SendMessage`, `SendStreamingMessage`). */
  readonly messageId: string | undefined;
  /** The interface's tenant, when the card names one. */
  readonly tenant: string | undefined;
  /** An SSE stream (its request ends when the stream's reading ends). */
  readonly stream: boolean;
  /** The A2A protocol version of the interface (`undefined` for the card request). */
  readonly protocolVersion: string | undefined;
  /** The agent, once its card is read. */
  readonly agent: AgentRef | undefined;
  /** The trace context the request continues: the caller's, or the span of the task's first request. */
  readonly parent: TraceContext | undefined;
  /**
   * Which retry it is (1 for the first): of a call the client repeats after a transient failure
   * (`getTask` …), or a follow's reconnect after a cut (the `attempt` of its `connection-changed`
   * event). `undefined` for a first request (and for a follow's requests when nobody watches its task).
   */
  readonly attempt: number | undefined;
  /**
   * The `traceparent` the request was sent with (after every plugin's `onRequest`); `undefined` when
   * none was (`traceHeaders: false`, or a browser's cross-origin request under `'same-origin'`).
   */
  readonly traceparent: string | undefined;
  /** When the request started (ms since the epoch). */
  readonly startedAt: number;
}

/** How a request ended: its answer's status, its duration, the typed error it failed with. */
export interface RequestOutcome {
  /** The HTTP status, when an answer arrived. */
  status: number | undefined;
  /** From the request's start to its end (for a stream: the end of its reading). */
  durationMs: number;
  /** Why it failed (an A2A error of the agent, a network failure, a stream that broke …). */
  error: TetherError | undefined;
  /** Streams: the events read from it. */
  events: number | undefined;
  /**
   * A unary call's answer, as decoded, when it is a task or a message (`GetTask`, `SendMessage`,
   * `CancelTask` …): what a stream's events say, for a call without a stream. Given to `onResponse`
   * only; `request` lifecycle events never carry it (they carry no content).
   */
  result?: Task | Message | undefined;
}

/** What a plugin's `onRequest` may do: add headers (never credentials' — those are set after it), or refuse. */
export interface RequestHeaders {
  /** Sets a header of this request (names are case-insensitive; `traceparent` replaces Tether's). */
  set(name: string, value: string): void;
  /** A header as it stands (never a credential). */
  get(name: string): string | undefined;
}

/** Fields every lifecycle event carries. */
export interface LifecycleBase {
  /** When it happened (ms since the epoch). */
  at: number;
  agent: AgentRef | undefined;
  taskId?: string | undefined;
  contextId?: string | undefined;
  /** The trace and span of the task's first request (or of the request, for `request`). */
  traceId?: string | undefined;
  spanId?: string | undefined;
  /** The task that delegated this one (a workflow hop's parent), where known. */
  parentTaskId?: string | undefined;
}

/**
 * What happens to the tasks and requests of a client, as it happens. Carries ids, states, sizes and
 * times, never content: no message or artifact text, no credential.
 */
export type LifecycleEvent = LifecycleBase &
  (
    | ({ type: 'request'; operation: string; method: string; url: string; stream: boolean; attempt: number | undefined } & Omit<RequestOutcome, 'result'>)
    | { type: 'task-created'; messageId: string }
    | { type: 'state-changed'; from: TaskState; to: TaskState; source: 'stream' | 'snapshot' | 'poll' | 'push' | 'tab' }
    | { type: 'connection-changed'; state: ConnectionState; attempt?: number | undefined; delayMs?: number | undefined; error?: TetherError | undefined }
    | {
        type: 'artifact';
        change: 'created' | 'updated' | 'completed';
        artifactId: string;
        /** This chunk's parts and bytes (text in UTF-8, data as JSON, a file's base64 or URI). */
        parts: number;
        bytes: number;
        /**
         * SHA-256 (hex) of the artifact's content so far — every chunk's text in UTF-8, data as JSON, a
         * file's decoded bytes or its URI, in order — to compare with the agent's without the content.
         * Absent once a replay replaced it from a part index on (`keepArtifacts: false`).
         */
        sha256?: string | undefined;
      }
    | { type: 'paused'; state: 'input-required' | 'auth-required' }
    /** The follow found the task's state in a snapshot (after a cut, or events the agent never sent) rather than in events. */
    | { type: 'gap'; state: TaskState }
    /** The agent reported what the task cost (`metadata.cost` of the final task or its status message). */
    | { type: 'cost'; amount: number; unit: string }
    | { type: 'answered'; messageId: string }
    | { type: 'cancel-requested' }
    /** A store several processes share: this process took the task's lease (`fence`: its fencing token), or lost it (another may drive the task now). */
    | { type: 'lease'; change: 'taken' | 'lost'; fence?: number | undefined; reason?: string | undefined }
    | { type: 'cancel-confirmed'; state: TaskState }
    | { type: 'plugin-failed'; plugin: string; hook: string; error: TetherError }
  );

/**
 * A span of the framework around A2A calls: an orchestrator's workflow (`kind: 'workflow'`) or one
 * attempt of one of its hops on an agent (`kind: 'hop'`). A tracer plugin opens its own span for it
 * ({@link TetherPlugin.onSpanStart}); the calls of a hop are children of its hop span, and hop spans
 * children of their workflow's.
 */
export interface FrameworkSpan {
  readonly kind: 'workflow' | 'hop';
  /** The context the span continues: the workflow's (for a hop), or the caller's / the stored one (for a workflow). */
  readonly parent: TraceContext | undefined;
  readonly workflowId: string;
  /** The workflow's low-cardinality name (`WorkflowOptions.name`), when given. */
  readonly workflowName: string | undefined;
  /** The A2A context every task of the workflow shares. */
  readonly contextId: string;
  /** Hops: the node and its attempt number. */
  readonly node: string | undefined;
  readonly attempt: number | undefined;
  /** Hops: the agent the attempt's task runs on. */
  readonly agent: AgentRef | undefined;
  /** Hops: the task of the node's parent node (the one that delegated it), when it has one. */
  readonly parentTaskId: string | undefined;
  /** A workflow picked up again from its store (after a restart), or a hop whose task is followed again. */
  readonly resumed: boolean;
  /** When it started (ms since the epoch). */
  readonly startedAt: number;
}

/** How a framework span ended. */
export interface FrameworkSpanEnd {
  /** The workflow's or the attempt's state (`completed`, `failed`, `timed-out` …). */
  readonly state: string | undefined;
  /** Hops: the attempt's task. */
  readonly taskId: string | undefined;
  /** Why it failed, when it did: a Tether error code (`TIMEOUT`, `NETWORK` …) and its message. */
  readonly error: { readonly code: string; readonly message: string } | undefined;
  /** When it ended (ms since the epoch). */
  readonly endedAt: number;
}

/** A task a handle's event belongs to. */
export interface TaskRef {
  taskId: string;
  contextId: string;
}

/**
 * An interceptor and observer of a client's requests, streams and tasks: `connect(url, { plugins })`.
 * Every hook is optional and synchronous. Plugins run in the order given. A hook that throws never
 * breaks a call or a follow: the throw is reported as a `plugin-failed` lifecycle event (and once on
 * the console), and the request goes on without that plugin's changes.
 */
export interface TetherPlugin {
  /** Names the plugin in errors and in `plugin-failed` events. */
  readonly name: string;
  /**
   * Before each HTTP request (the card's included). May set headers, or refuse the request by
   * returning `{ refuse: reason }`: the call then fails with `PLUGIN_REFUSED`, nothing sent.
   */
  onRequest?(request: RequestInfo, headers: RequestHeaders): void | { refuse: string };
  /** Once per request, when it is over: a unary call once its answer is decoded, a stream once its reading ended. */
  onResponse?(request: RequestInfo, outcome: RequestOutcome): void;
  /** Each event decoded from a stream, in order (it may not be changed). */
  onStreamEvent?(event: StreamEvent, request: RequestInfo): void;
  /** Each event a task handle hands the app (`handle.events()`), in order. */
  onTaskEvent?(event: TaskEvent, task: TaskRef): void;
  /**
   * A workflow or one of its hops starts (`@a2a-tether/core/orchestrate`). Return the trace context its
   * children continue (the span this plugin opened), or nothing to leave it to the next plugin; when no
   * plugin returns one, Tether makes a child of `span.parent` itself, so the trace id carries on.
   */
  onSpanStart?(span: FrameworkSpan): TraceContext | void;
  /** The workflow or hop of an earlier `onSpanStart` ended. */
  onSpanEnd?(span: FrameworkSpan, end: FrameworkSpanEnd): void;
  /** Each lifecycle event of the client (the same as `client.observe()` listeners get). */
  onLifecycle?(event: LifecycleEvent): void;
  /**
   * The lifecycle event types `onLifecycle` is called with (default: every type). Saying which spares
   * the follow building the others: an `artifact` event per chunk costs a pass over the chunk's text.
   */
  readonly lifecycle?: readonly LifecycleEvent['type'][] | undefined;
}
