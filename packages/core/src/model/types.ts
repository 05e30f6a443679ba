/**
 * The normalized A2A model: one shape for the public API whatever the protocol
 * version (v1.0 ProtoJSON or v0.3) and binding (JSON-RPC or HTTP+JSON) on the wire.
 *
 * @packageDocumentation
 */

/** Free-form metadata, as the protocol carries it (a JSON object). */
export type Metadata = Record<string, unknown>;

/**
 * The life-cycle state of a task.
 *
 * - active: `submitted`, `working`
 * - interrupted (waiting for the client): `input-required`, `auth-required`
 * - terminal: `completed`, `failed`, `canceled`, `rejected`
 * - `unknown`: the agent sent a state this client does not know (or `TASK_STATE_UNSPECIFIED`).
 */
export type TaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'auth-required'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'rejected'
  | 'unknown';

/** Who wrote a message. */
export type Role = 'user' | 'agent';

/** Fields every part may carry. */
export interface PartBase {
  /** Extension or application metadata attached to this part. */
  metadata?: Metadata | undefined;
  /** The media type of the content, e.g. `text/plain` or `image/png`. */
  mediaType?: string | undefined;
  /** A file name for the content (v1 parts; v0.3 file parts). */
  filename?: string | undefined;
}

/** Plain text. */
export interface TextPart extends PartBase {
  kind: 'text';
  text: string;
}

/** A file, either by reference (`uri`) or inline (`bytes`, base64). Exactly one is set. */
export type FilePart = PartBase & { kind: 'file' } & (
    | { uri: string; bytes?: undefined }
    | { bytes: string; uri?: undefined }
  );

/** Structured data: any JSON value in v1.0 (v0.3 only allows objects). */
export interface DataPart extends PartBase {
  kind: 'data';
  data: unknown;
}

/** One piece of content in a message or artifact. */
export type Part = TextPart | FilePart | DataPart;

/** A message between the user and the agent. */
export interface Message {
  kind: 'message';
  messageId: string;
  role: Role;
  parts: Part[];
  contextId?: string | undefined;
  taskId?: string | undefined;
  metadata?: Metadata | undefined;
  /** URIs of the extensions this message uses. */
  extensions?: string[] | undefined;
  /** Other tasks this message refers to (follow-ups, refinements). */
  referenceTaskIds?: string[] | undefined;
}

/** The current status of a task. */
export interface TaskStatus {
  state: TaskState;
  /** The agent's explanation: progress, the question for `input-required`, the reason of a failure. */
  message?: Message | undefined;
  /** ISO 8601 time the status was set, as the agent sent it. */
  timestamp?: string | undefined;
}

/** An output of a task. */
export interface Artifact {
  artifactId: string;
  name?: string | undefined;
  description?: string | undefined;
  parts: Part[];
  metadata?: Metadata | undefined;
  extensions?: string[] | undefined;
}

/** A unit of work the agent runs, possibly for a long time. */
export interface Task {
  kind: 'task';
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts: Artifact[];
  history: Message[];
  metadata?: Metadata | undefined;
  /**
   * A2A v1.1 draft: the task's generation, a counter the agent starts at 1 and raises by one per change
   * (spec §3.2.7). Set only when a v1.0-dialect agent sends one ≥ 1; see `connect(url, { experimental })`.
   */
  generation?: number | undefined;
}

/** A change of a task's status, as streamed by the agent. */
export interface TaskStatusUpdateEvent {
  kind: 'status-update';
  taskId: string;
  contextId: string;
  status: TaskStatus;
  /**
   * v0.3 only: the agent says this is the last event of the stream. It is also set
   * on `input-required`, so it does not mean "done"; v1.0 agents never send it.
   */
  final?: boolean | undefined;
  metadata?: Metadata | undefined;
  /** A2A v1.1 draft: the task's generation after this change (see {@link Task.generation}). */
  generation?: number | undefined;
}

/** A new or changed artifact (or one chunk of it), as streamed by the agent. */
export interface TaskArtifactUpdateEvent {
  kind: 'artifact-update';
  taskId: string;
  contextId: string;
  artifact: Artifact;
  /** `true`: add these parts to the artifact with the same id; `false`: replace it. */
  append: boolean;
  /** `true`: this is the last chunk of the artifact. */
  lastChunk: boolean;
  metadata?: Metadata | undefined;
  /** A2A v1.1 draft: the task's generation after this change (see {@link Task.generation}). */
  generation?: number | undefined;
}

/** One event of a streaming response or a task subscription. */
export type StreamEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

/** What a send returns: a direct message reply, or the task that was created or continued. */
export type SendResult = Task | Message;

/** A page of tasks (v1.0 `ListTasks`). */
export interface TaskPage {
  tasks: Task[];
  /** Token of the next page; `""` on the last page. */
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** How the agent authenticates its webhook calls. */
export interface PushAuthentication {
  /** e.g. `Bearer`. v0.3 allowed several; the first is used on v1.0. */
  schemes: string[];
  credentials?: string | undefined;
}

/** A push-notification (webhook) registration for a task. */
export interface PushNotificationConfig {
  taskId: string;
  /** The config id (chosen by the client or assigned by the agent). */
  id?: string | undefined;
  url: string;
  /** A secret the agent sends back with each push so the receiver can tell it is genuine. */
  token?: string | undefined;
  authentication?: PushAuthentication | undefined;
}
