import type { TaskState } from '../model/types.js';

/** The schema version of {@link TaskRecord}; stores keep it so later versions can migrate. */
export const TASK_RECORD_VERSION = 1;

/** What Tether remembers durably about a task it follows. */
export interface TaskRecord {
  schemaVersion: number;
  taskId: string;
  contextId: string;
  /** The agent's card URL: a client only resumes the tasks of its own agent. */
  agentUrl: string;
  /** The last state seen. */
  state: TaskState;
  createdAt: number;
  updatedAt: number;
  /** The last SSE event id, for agents that number their events. */
  lastEventId?: string | undefined;
  /** How the task is followed. */
  delivery?: 'stream' | 'poll' | undefined;
  /** A cancel that was asked for (a request, not a confirmation). */
  cancel?: { requestedAt: number; reason?: string | undefined } | undefined;
}

/** Which records `list` returns. */
export interface TaskListFilter {
  /** Only tasks not yet in a terminal state. */
  active?: boolean | undefined;
  agentUrl?: string | undefined;
}

/**
 * The durable record of every live task. Implementations: memory (core), file (node),
 * IndexedDB (browser). `update` is an atomic read-modify-write; returning `undefined` deletes.
 */
export interface TaskStore {
  get(taskId: string): Promise<TaskRecord | undefined>;
  put(record: TaskRecord): Promise<void>;
  update(taskId: string, change: (current: TaskRecord | undefined) => TaskRecord | undefined): Promise<TaskRecord | undefined>;
  list(filter?: TaskListFilter): Promise<TaskRecord[]>;
  delete(taskId: string): Promise<void>;
}
