import type { TetherError } from '../errors/tether-error.js';
import type { Artifact, Message, Metadata, Part, TaskState } from '../model/types.js';

/**
 * How a task handle is following its task right now (reported by `connection` events and `view.connection`):
 *
 * - `connecting`: sending the message, or opening the first subscription of a resumed task;
 * - `live`: a stream is open and its events are applied as they come;
 * - `reconnecting`: the link broke or ended early; waiting out a backoff before subscribing again
 *   (the event carries the attempt, the delay and the error);
 * - `polling`: no stream (the agent cannot stream, refused to subscribe, or streams kept dying);
 *   GetTask on an adaptive cadence, with tries to stream again when the card says it can;
 * - `waiting-push`: no stream; the agent pushes the task's updates to the client's webhook receiver
 *   (`connect(url, { push })`), each push answered by one GetTask, with a slow safety poll;
 * - `waiting`: the task is paused at `input-required` / `auth-required`; nothing is open until `reply()`
 *   (at `auth-required` the engine still looks every `authRequiredPollMs`);
 * - `closed`: the follow ended (terminal state, typed error, or `detach()`); nothing follows it.
 */
export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'polling' | 'waiting-push' | 'waiting' | 'closed';

/** The task's status changed. Never the same status twice; never anything after a terminal state. */
export interface StatusEvent {
  type: 'status';
  state: TaskState;
  message?: Message | undefined;
  timestamp?: string | undefined;
  /** Found in a snapshot after a gap (not received live). */
  recovered?: true | undefined;
}

/**
 * Artifact content that is new to the app. `append: false` replaces the artifact with `parts`;
 * `append: true` adds `parts` to it. Replaying these events in order rebuilds exactly the
 * artifact the agent holds.
 */
export interface ArtifactEvent {
  type: 'artifact';
  artifactId: string;
  name?: string | undefined;
  description?: string | undefined;
  metadata?: Metadata | undefined;
  parts: Part[];
  append: boolean;
  lastChunk: boolean;
  recovered?: true | undefined;
  /**
   * Only when the follow keeps no artifact parts (`keepArtifacts: false`) and a replay diverged from
   * what it had emitted: `parts` replace the artifact's parts from index `from` on; the parts before
   * `from` stay as the app has them. (`append` is then `false`.)
   */
  from?: number | undefined;
}

/** A message from the agent inside the task's stream. */
export interface MessageEvent {
  type: 'message';
  message: Message;
  recovered?: true | undefined;
}

/** The connection to the agent changed (dropped, resumed, switched to polling …). */
export interface ConnectionEvent {
  type: 'connection';
  state: ConnectionState;
  /** Reconnect attempt number (1 = first retry after a drop). */
  attempt?: number | undefined;
  /** Wait before the next attempt. */
  delayMs?: number | undefined;
  /** Why the connection dropped. */
  error?: TetherError | undefined;
}

/** What `TaskHandle.events()` yields: deduplicated, in order, safe to render directly. */
/**
 * The task store failed to write this task's record (`error.code` is `STORE_WRITE_FAILED`, `cause` the
 * store's error). The follow goes on; what is not stored would be missing after a restart.
 */
export interface StoreErrorEvent {
  type: 'store-error';
  error: TetherError;
}

export type TaskEvent = StatusEvent | ArtifactEvent | MessageEvent | ConnectionEvent | StoreErrorEvent;

/** The state of a task as the app should show it. */
export interface TaskView {
  taskId: string;
  contextId: string;
  state: TaskState;
  statusMessage?: Message | undefined;
  timestamp?: string | undefined;
  /** Artifacts assembled from every chunk, in the order they first appeared. */
  artifacts: Artifact[];
  /**
   * Ids of the artifacts in `artifacts` whose last chunk has not arrived: the agent is still sending
   * them, or it stopped midway (a task that failed after producing part of its output). An artifact a
   * terminal snapshot showed whole counts as complete.
   */
  incompleteArtifacts: string[];
  /** The history the agent last reported (v0.3 agents may report none). */
  history: Message[];
  connection: ConnectionState;
}
