// The fake agent keeps its state in one version-neutral model; each wire dialect maps it on the way
// out and in. Names follow the v0.3 JSON-RPC spelling (kebab states, 'user'/'agent') because they read
// best in test assertions.

/** A task state, in the kebab-case spelling used throughout the testkit. */
export type TestTaskState =
  | 'submitted'
  | 'working'
  | 'input-required'
  | 'auth-required'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'rejected'
  | 'unknown';

/** One part of a message or artifact. `file` parts carry either `url` or `bytes` (base64). */
export type TestPart =
  | { kind: 'text'; text: string; metadata?: Record<string, unknown> | undefined }
  | {
      kind: 'file';
      url?: string | undefined;
      bytes?: string | undefined;
      mediaType?: string | undefined;
      filename?: string | undefined;
      metadata?: Record<string, unknown> | undefined;
    }
  | { kind: 'data'; data: unknown; metadata?: Record<string, unknown> | undefined };

/** A message, as the agent stored it. */
export interface TestMessage {
  messageId: string;
  role: 'user' | 'agent';
  parts: TestPart[];
  contextId?: string | undefined;
  taskId?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  extensions?: string[] | undefined;
  referenceTaskIds?: string[] | undefined;
}

/** An artifact. Appended chunks are kept as separate parts, as real servers do in snapshots. */
export interface TestArtifact {
  artifactId: string;
  name?: string | undefined;
  description?: string | undefined;
  parts: TestPart[];
  metadata?: Record<string, unknown> | undefined;
}

/** A task status: state, optional agent message, ISO 8601 UTC timestamp. */
export interface TestTaskStatus {
  state: TestTaskState;
  message?: TestMessage | undefined;
  timestamp: string;
}

/** A stored push notification config. `dialect` is the protocol version it was created with. */
export interface TestPushConfig {
  id: string;
  taskId: string;
  url: string;
  token?: string | undefined;
  authentication?: { schemes: string[]; credentials?: string | undefined } | undefined;
  dialect: '1.0' | '0.3';
}

/** A full task as the wire sees it. */
export interface TaskSnapshot {
  id: string;
  contextId: string;
  status: TestTaskStatus;
  artifacts: TestArtifact[];
  history: TestMessage[];
  /** With `behaviour.generations` (v1.1 draft): the task's generation. */
  generation?: number | undefined;
}

/** One event a task emitted, numbered from 1 in emission order (`seq` also feeds SSE `id:` lines). */
export type TaskEvent =
  | { seq: number; type: 'task'; task: TaskSnapshot }
  | { seq: number; type: 'status'; taskId: string; contextId: string; status: TestTaskStatus }
  | {
      seq: number;
      type: 'artifact';
      taskId: string;
      contextId: string;
      artifact: TestArtifact;
      append: boolean;
      lastChunk: boolean;
    };

/** Plain read-only record of a task, returned by `agent.tasks`. */
export interface TestTaskRecord {
  id: string;
  contextId: string;
  state: TestTaskState;
  statusMessage?: TestMessage | undefined;
  statusTimestamp: string;
  artifacts: TestArtifact[];
  history: TestMessage[];
  pushConfigs: TestPushConfig[];
  /** How many events the task emitted so far (the last SSE sequence number). */
  eventCount: number;
  /** The task's generation (v1.1 draft): 1 at creation, +1 per event — `eventCount` (sent only with `behaviour.generations`). */
  generation: number;
  /** Every state the task was in, in order: one entry per status it emitted, the creation included. */
  states: TestTaskState[];
  /** True once the `lose` misbehaviour made the agent forget the task (it answers -32001 about it). */
  lost?: true | undefined;
}

export const TERMINAL_STATES: ReadonlySet<TestTaskState> = new Set([
  'completed',
  'failed',
  'canceled',
  'rejected',
]);

export const INTERRUPTED_STATES: ReadonlySet<TestTaskState> = new Set(['input-required', 'auth-required']);

export function isTerminal(state: TestTaskState): boolean {
  return TERMINAL_STATES.has(state);
}

export function isInterrupted(state: TestTaskState): boolean {
  return INTERRUPTED_STATES.has(state);
}

/** Deep copy through JSON: state handed out must never alias the registry's. */
export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** The text of the first text part, or '' when there is none. */
export function firstText(message: TestMessage): string {
  for (const part of message.parts) {
    if (part.kind === 'text') return part.text;
  }
  return '';
}
