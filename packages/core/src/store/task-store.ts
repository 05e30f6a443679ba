import type { CostRecord } from '../model/cost.js';
import type { TaskState } from '../model/types.js';
import { isTerminalState } from '../model/task-state.js';

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
  delivery?: 'stream' | 'poll' | 'push' | undefined;
  /** Push delivery: the id of the webhook config registered for the task (its token is never stored). */
  pushConfigId?: string | undefined;
  /** A cancel that was asked for (a request, not a confirmation), and what was seen afterwards. */
  cancel?: CancelRecord | undefined;
  /**
   * The app's reference to who started the task (an id it supplies with `connect(url, { principal })`,
   * never a token): only a client with the same principal resumes or lists it.
   */
  principal?: string | undefined;
  /** How the follow ended, once it did; absent while the task is live (or resumable). */
  outcome?: TaskOutcome | undefined;
  /** The last error that stopped the follow of a task that may still be resumed (e.g. `RETRY_EXHAUSTED`). */
  lastError?: { code: string; message: string; at: number } | undefined;
  /**
   * The W3C trace context of the task's first request: a follow resumed after a restart continues
   * this trace (its requests are children of that request's span).
   */
  trace?: { traceparent: string; tracestate?: string | undefined } | undefined;
  /** The task that delegated this one (`parentTaskId` of `start()`), kept for a resumed follow's events. */
  parentTaskId?: string | undefined;
  /** What the agent reported the task cost (`metadata.cost` of the final task or its status message), once it finished. */
  cost?: CostRecord | undefined;
  /** The app's labels for the task (`tags` of `start()`), e.g. the prompt a task list shows. */
  tags?: Readonly<Record<string, string>> | undefined;
  /** When the record of a finished task may be deleted (epoch ms; see `DEFAULTS.retentionMs`). */
  expiresAt?: number | undefined;
}

/** A cancel asked for: a request, not a confirmation (G5). */
export interface CancelRecord {
  requestedAt: number;
  reason?: string | undefined;
  /** The principal of the client that asked. */
  by?: string | undefined;
  /** Whether the task was then seen `canceled` (set once the cancel's watch ended). */
  confirmed?: boolean | undefined;
  /** The state the task was seen in when the watch ended. */
  seenState?: TaskState | undefined;
}

/**
 * How a follow ended: `finished` (the agent's terminal state), or `lost` (the agent no longer knows
 * the task). A task that gave up (`RETRY_EXHAUSTED`) or was detached has no outcome: it can be resumed.
 */
export type TaskOutcome = { kind: 'finished'; state: TaskState; at: number } | { kind: 'lost'; at: number };

/** Whether a record is of a task still to follow: not terminal, not lost. What `list({ active: true })` returns. */
export function isActiveRecord(record: TaskRecord): boolean {
  return record.outcome === undefined && !isTerminalState(record.state);
}

/** Which records `list` returns. */
export interface TaskListFilter {
  /** Only tasks still to follow ({@link isActiveRecord}: not terminal, not lost). */
  active?: boolean | undefined;
  agentUrl?: string | undefined;
}

/**
 * Options of a store write (`put`, `update`, `delete`).
 */
export interface StoreWriteOptions {
  /**
   * The writer's fencing token: {@link StoreLease.fence} of the lease it drives the task under. A store
   * that leases tasks refuses (`LEASE_LOST`, nothing written) a write whose token is older than the
   * task's current lease, so a former holder — paused, or cut off from the store while its lease
   * lapsed — never overwrites the record its successor writes. Stores without leases ignore it.
   */
  fence?: number | undefined;
}

/**
 * The durable record of every live task. Implementations: memory (core), file (node),
 * IndexedDB (browser), Redis (node). `update` is an atomic read-modify-write; returning `undefined` deletes.
 *
 * Records are keyed by their agent and their task id together: `key` is
 * `taskKey(agentUrl, taskId)`, and `put` files a record under `taskKey(record.agentUrl,
 * record.taskId)` — two agents' tasks "1" are two records (G11). A record `update` returns must be of the
 * key's task.
 *
 * A stored value that is not a task record (see {@link checkTaskRecord}) is `STORE_CORRUPT` from `get`
 * and `update`, skipped by `list` (and reported to the store's `onCorrupt` option where it has one),
 * and replaced by `put` or removed by `delete`: one bad record never hides the others.
 */
export interface TaskStore {
  get(key: string): Promise<TaskRecord | undefined>;
  put(record: TaskRecord, options?: StoreWriteOptions): Promise<void>;
  update(
    key: string,
    change: (current: TaskRecord | undefined) => TaskRecord | undefined,
    options?: StoreWriteOptions,
  ): Promise<TaskRecord | undefined>;
  list(filter?: TaskListFilter): Promise<TaskRecord[]>;
  delete(key: string, options?: StoreWriteOptions): Promise<void>;
}

/** A lease on one task (see {@link LeasingTaskStore}): while held, no other owner can acquire it. */
export interface StoreLease {
  /**
   * The fencing token: a number that grows each time the task's lease is acquired. The engine passes
   * it with every write ({@link StoreWriteOptions.fence}) so the store can refuse a former holder's.
   * Optional for stores of your own; without it writes are not fenced.
   */
  readonly fence?: number | undefined;
  /**
   * The lease's time to live (ms), counted from when the acquire or renewal was sent. The engine
   * renews every quarter of it and stops driving the task when no renewal was confirmed within two
   * thirds of it (a process cut off from the store stops before its lease can pass to another).
   * Default {@link DEFAULTS}.leaseMs when a store does not say.
   */
  readonly ttlMs?: number | undefined;
  /** Extends the lease by its TTL from now; `false` when it had expired or passed to another owner (stop driving the task). */
  renew(): Promise<boolean>;
  /** Ends the lease if this owner still holds it. */
  release(): Promise<unknown>;
}

/**
 * A store shared by several processes that can also lease tasks, so that one process at a time drives
 * each task (the Redis store of `@a2a-tether/node/redis` is one). When the client's store has `lease`,
 * the engine takes a task's lease before it writes or follows the task, renews it, stops following
 * (`LEASE_LOST`) when a renewal fails or none is confirmed in time, fences its writes with the lease's
 * token, and releases the lease at the end. The store decides the TTL (one knob: the store's option).
 */
export interface LeasingTaskStore extends TaskStore {
  /** Leases the task of `key` (`taskKey(agentUrl, taskId)`: two agents' tasks "1" are two leases). */
  lease(key: string, owner: string): Promise<StoreLease | undefined>;
  /**
   * Who holds the task's lease now (the owner name it was acquired with), `undefined` when nobody does.
   * Optional: when a store has it, `LEASE_HELD` names the holder, so an app can tell its own lease
   * (another client of the process, a lease it took by hand) from another process's.
   */
  leaseHolder?(key: string): Promise<string | undefined>;
}

/** Whether a store can lease tasks. */
export function canLease(store: TaskStore): store is LeasingTaskStore {
  return typeof (store as Partial<LeasingTaskStore>).lease === 'function';
}

/**
 * A store that says when its records change, so that `client.watchTasks()` needs no polling. The
 * memory store tells its own writes; the browser's IndexedDB store those of every tab of the origin
 * (BroadcastChannel); Node's file store those of every process on its directory.
 */
export interface WatchableTaskStore extends TaskStore {
  /**
   * Calls `onChange` (with no arguments, soon after: several writes may be told once) when a record
   * was written or deleted. Returns the function that stops it.
   */
  watch(onChange: () => void): () => void;
}

/** Whether a store says when its records change. */
export function canWatch(store: TaskStore): store is WatchableTaskStore {
  return typeof (store as Partial<WatchableTaskStore>).watch === 'function';
}
