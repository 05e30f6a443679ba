import {
  DEFAULTS,
  isActiveRecord,
  parseTaskRecord,
  TetherError,
  type StoreWriteOptions,
  type TaskListFilter,
  type TaskRecord,
  type TaskStore,
} from '@a2a-tether/core';
import { ACQUIRE, COMPARE_AND_SET, FENCED, RELEASE, RENEW, WRITE } from './redis/lease-scripts.js';
import { openRedisClient, positiveInteger as positive, type RedisStoreClient } from './redis/open-client.js';
import { canRelay, createRedisPushRelay } from './redis/redis-push-relay.js';
import type { PushRelay } from './push/push-relay.js';
import { bounded, type CallSite } from './redis/redis-call.js';

/** The defaults of {@link createRedisTaskStore}, in one record. */
export const REDIS_STORE_DEFAULTS = {
  /** Key prefix: several stores can share one database. */
  prefix: 'tether:',
  /** Lease time to live (ms): {@link DEFAULTS}.leaseMs. */
  leaseMs: DEFAULTS.leaseMs,
  /** The longest one command may take (ms) before the call fails with `STORE_UNAVAILABLE`. */
  commandTimeoutMs: 2_000,
  /** The longest `createRedisTaskStore()` waits for the first connection (ms). */
  connectTimeoutMs: 5_000,
  /** How long a deleted task's fence count is kept (ms), so a former holder's late write cannot revive it. */
  keepFenceMs: 24 * 60 * 60_000,
} as const;

/** Options of {@link createRedisTaskStore}: `url` (Tether creates and closes the client) or `client` (yours). */
export type RedisTaskStoreOptions = (
  | {
      /** A Redis URL, e.g. `redis://127.0.0.1:6379/0` or `rediss://user:pass@host:6380`. */
      url: string;
      client?: undefined;
    }
  | {
      /**
       * A node-redis client you created; connected here if it is not open yet, never closed by the
       * store. Create it with `disableOfflineQueue: true`, so that while Redis is unreachable commands
       * fail at once instead of waiting for the command timeout (the store sets it on clients it creates).
       */
      client: RedisStoreClient;
      url?: undefined;
    }
) & {
  /**
   * Prefix of every key, so several stores share one database. Default `tether:`. Keys:
   * `{prefix}task:{id}` (the record's JSON), `{prefix}tasks` (the set of ids), `{prefix}lease:{id}`
   * (`<fence>:<owner>`), `{prefix}fence:{id}` (the count of the task's lease acquisitions).
   */
  prefix?: string | undefined;
  /**
   * The lease time to live (ms): the one knob of leases. A process that dies or is cut off gives its
   * tasks up to another after at most this long; the engine renews every quarter of it and stops
   * driving a task when no renewal was confirmed within two thirds of it. Default 30 000.
   */
  leaseMs?: number | undefined;
  /** The longest one command may take (ms); past it the call fails with `STORE_UNAVAILABLE`. Default 2 000. */
  commandTimeoutMs?: number | undefined;
  /** The longest `createRedisTaskStore()` waits to connect (ms); past it, it rejects with `STORE_UNAVAILABLE`. Default 5 000. */
  connectTimeoutMs?: number | undefined;
  /**
   * Called once per record `list()` skipped because it is not a task record (`STORE_CORRUPT`: not JSON,
   * not an object, another task's record, a newer `schemaVersion`), with the error naming its key.
   * Without it, skipped records are silent. `get()` and `update()` of such a task reject with it.
   */
  onCorrupt?: ((error: TetherError) => void) | undefined;
};

/**
 * A lease on one task: while held, no other owner can acquire it. It ends on {@link TaskLease.release},
 * or on its own when not renewed within its time to live — so a process that dies loses its
 * leases after at most one TTL, and another process takes its tasks over.
 */
export interface TaskLease {
  readonly taskId: string;
  readonly owner: string;
  /** The fencing token: larger than any earlier acquisition's. Pass it with writes ({@link StoreWriteOptions}). */
  readonly fence: number;
  /** The time to live (ms) each acquire and renewal grants, counted from when it was sent. */
  readonly ttlMs: number;
  /**
   * Extends the lease by its TTL from now. `false` when it had already expired, passed to another
   * owner, or was acquired again (a newer acquisition): stop driving the task then.
   */
  renew(): Promise<boolean>;
  /** Ends the lease if this acquisition still holds it (compare-and-delete); `false` when it did not. */
  release(): Promise<boolean>;
}

/** A {@link TaskStore} in Redis, shared by several processes, with per-task leases and fenced writes. */
export interface RedisTaskStore extends TaskStore {
  /**
   * Acquires the lease of `taskId` for `owner` (a name unique per process, e.g. host + pid + a random
   * suffix) for the store's `leaseMs`. Resolves `undefined` when another owner holds it; the same
   * owner acquiring again gets a new lease (a new fencing token; the older lease can no longer renew).
   * Renew well within the TTL for as long as the process drives the task.
   */
  lease(taskId: string, owner: string): Promise<TaskLease | undefined>;
  /** Who holds the task's lease now (the owner it was acquired with); `undefined` when nobody does. */
  leaseHolder(taskId: string): Promise<string | undefined>;
  /**
   * The push relay of this store's Redis (made once, with an inbox of its own): what lets the push receivers
   * of several replicas hand each other the pushes of the tasks they follow. `connect({ store, push })` of
   * `@a2a-tether/node` uses it by itself. `undefined` when the client cannot carry one (a client of your own
   * without `sendCommand` and `duplicate`).
   */
  pushRelay(): PushRelay | undefined;
  /** Closes the client if the store created it (from `url`), and the push relay's connection; a client you passed is left open. */
  close(): Promise<void>;
}

// Optimistic updates retried this many times against other processes' writes before giving up.
const MAX_UPDATE_ATTEMPTS = 100;
const MGET_CHUNK = 500;

export type { RedisStoreClient } from './redis/open-client.js';

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  return positive(value, fallback, name, 'createRedisTaskStore');
}

function checkId(taskId: unknown, operation: string): string {
  if (typeof taskId !== 'string' || taskId === '') {
    throw new TetherError('INVALID_ARGUMENT', `${operation}: the task id must be a non-empty string, got ${typeof taskId === 'string' ? '""' : typeof taskId}`, {
      operation,
      maybeDelivered: false,
    });
  }
  return taskId;
}

function serialize(record: TaskRecord, operation: string): string {
  try {
    const json = JSON.stringify(record);
    if (typeof json === 'string') return json;
  } catch (error) {
    throw new TetherError('INVALID_ARGUMENT', `${operation}: the record of task ${record.taskId} is not JSON-serializable`, { operation, taskId: record.taskId, cause: error });
  }
  throw new TetherError('INVALID_ARGUMENT', `${operation}: the record of task ${record.taskId} is not JSON-serializable`, { operation, taskId: record.taskId });
}

function fenced(site: CallSite, fence: number | undefined): TetherError {
  return new TetherError(
    'LEASE_LOST',
    `Redis task store: ${site.operation} of task ${site.taskId ?? ''} was refused: a newer lease than this writer's (fence ${fence ?? '?'}) holds the task; nothing was written`,
    { operation: site.operation, taskId: site.taskId, maybeDelivered: false },
  );
}

function fenceArg(options: StoreWriteOptions | undefined, operation: string): string {
  const fence = options?.fence;
  if (fence === undefined) return '';
  if (!Number.isSafeInteger(fence) || fence < 0) throw new TetherError('INVALID_ARGUMENT', `${operation}: fence must be a non-negative whole number, got ${String(fence)}`, { operation });
  return String(fence);
}

/**
 * Creates a {@link TaskStore} in Redis (node-redis v5): records as JSON strings (unknown fields kept),
 * `update` as an optimistic read-modify-write whose write is a Lua compare-and-set (retried when another
 * writer got there first), `list` from a set of ids (never `KEYS`), and per-task leases so that one
 * process at a time drives a task.
 *
 * Under faults:
 * - **Partitions and outages.** Every call is bounded by `commandTimeoutMs`: while Redis is down or cut
 *   off, calls fail with a retryable `STORE_UNAVAILABLE` instead of waiting out the outage. It rejects
 *   the same way when it cannot connect within `connectTimeoutMs`.
 * - **Fencing.** Each lease acquisition gets a larger fencing token; a write that carries an older token
 *   than the task's current lease is refused with `LEASE_LOST` (a Lua compare), so a process that was
 *   paused or cut off while its lease passed on never overwrites its successor's record.
 * - **Corrupt records.** A value that is not a task record is `STORE_CORRUPT` from `get` and `update`,
 *   skipped by `list` and reported to `onCorrupt`; `put` and `delete` replace or remove it.
 *
 * @example
 * ```ts
 * import { connect } from '@a2a-tether/node';
 * import { createRedisTaskStore } from '@a2a-tether/node/redis';
 *
 * const store = await createRedisTaskStore({ url: 'redis://127.0.0.1:6379', leaseMs: 30_000 });
 * const client = await connect('https://agent.example', { store });
 * ```
 *
 * @throws TetherError `STORE_UNAVAILABLE` when Redis cannot be reached within `connectTimeoutMs`;
 * `INVALID_ARGUMENT` for an option out of range.
 */
export async function createRedisTaskStore(options: RedisTaskStoreOptions): Promise<RedisTaskStore> {
  const prefix = options.prefix ?? REDIS_STORE_DEFAULTS.prefix;
  const leaseMs = positiveInteger(options.leaseMs, REDIS_STORE_DEFAULTS.leaseMs, 'leaseMs');
  const timeoutMs = positiveInteger(options.commandTimeoutMs, REDIS_STORE_DEFAULTS.commandTimeoutMs, 'commandTimeoutMs');
  const connectTimeoutMs = positiveInteger(options.connectTimeoutMs, REDIS_STORE_DEFAULTS.connectTimeoutMs, 'connectTimeoutMs');
  const keepFenceMs = String(REDIS_STORE_DEFAULTS.keepFenceMs);
  const onCorrupt = options.onCorrupt;
  const { client, owned } = await openRedisClient(options, connectTimeoutMs, 'createRedisTaskStore');

  const recordKey = (taskId: string): string => `${prefix}task:${taskId}`;
  const leaseKey = (taskId: string): string => `${prefix}lease:${taskId}`;
  const fenceKey = (taskId: string): string => `${prefix}fence:${taskId}`;
  const idsKey = `${prefix}tasks`;
  const origin = (taskId: string, operation: string): { where: string; operation: string } => ({ where: `Redis key ${recordKey(taskId)}`, operation });
  const evaluate = async (site: CallSite, script: string, keys: string[], args: string[]): Promise<number> =>
    Number(await bounded(site, timeoutMs, () => client.eval(script, { keys, arguments: args })));

  async function readRaw(site: CallSite, taskId: string): Promise<string | undefined> {
    const raw = await bounded(site, timeoutMs, () => client.get(recordKey(taskId)));
    return raw === null || raw === undefined ? undefined : String(raw);
  }

  async function updateNow(
    taskId: string,
    change: (current: TaskRecord | undefined) => TaskRecord | undefined,
    fence: string,
  ): Promise<TaskRecord | undefined> {
    const site: CallSite = { operation: 'RedisTaskStore.update', taskId, writes: true };
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const raw = await readRaw(site, taskId);
      // A corrupt record is not handed to `change`: STORE_CORRUPT, and nothing is written.
      const next = change(raw === undefined ? undefined : parseTaskRecord(raw, taskId, origin(taskId, site.operation)));
      if (next !== undefined && (next as Partial<TaskRecord> | null)?.taskId !== taskId) {
        throw new TetherError('INVALID_ARGUMENT', `RedisTaskStore.update('${taskId}') returned a record of another task; nothing was written`, {
          operation: site.operation,
          taskId,
        });
      }
      const written = next === undefined ? '' : serialize(next, site.operation);
      const keys = [recordKey(taskId), idsKey, fenceKey(taskId)];
      const result = await evaluate(site, COMPARE_AND_SET, keys, [raw === undefined ? '0' : '1', raw ?? '', written, taskId, fence, keepFenceMs]);
      if (result === FENCED) throw fenced(site, fence === '' ? undefined : Number(fence));
      if (result === 1) return next;
    }
    throw new TetherError('RETRY_EXHAUSTED', `Redis task store: the update of task ${taskId} lost ${MAX_UPDATE_ATTEMPTS} races in a row to other writers`, { taskId });
  }

  async function write(operation: string, taskId: string, json: string, options: StoreWriteOptions | undefined): Promise<void> {
    const site: CallSite = { operation, taskId, writes: true };
    const fence = fenceArg(options, operation);
    const result = await evaluate(site, WRITE, [recordKey(taskId), idsKey, fenceKey(taskId)], [json, taskId, fence, keepFenceMs]);
    if (result === FENCED) throw fenced(site, options?.fence);
  }

  const queued = new Map<string, Promise<TaskRecord | undefined>>();
  let relay: PushRelay | undefined;

  return {
    async get(taskId) {
      const operation = 'RedisTaskStore.get';
      checkId(taskId, operation);
      const raw = await readRaw({ operation, taskId, writes: false }, taskId);
      return raw === undefined ? undefined : parseTaskRecord(raw, taskId, origin(taskId, operation));
    },

    async put(record, writeOptions) {
      const operation = 'RedisTaskStore.put';
      const taskId = checkId((record as Partial<TaskRecord> | null)?.taskId, operation);
      await write(operation, taskId, serialize(record, operation), writeOptions);
    },

    update(taskId, change, writeOptions) {
      try {
        checkId(taskId, 'RedisTaskStore.update');
      } catch (error) {
        return Promise.reject(error);
      }
      let fence: string;
      try {
        fence = fenceArg(writeOptions, 'RedisTaskStore.update');
      } catch (error) {
        return Promise.reject(error);
      }
      // One update per task at a time from this store: a process then races only other processes,
      // not its own concurrent updates (which would all read the same value and all but one retry).
      const previous = queued.get(taskId) ?? Promise.resolve();
      const next = previous.then(
        () => updateNow(taskId, change, fence),
        () => updateNow(taskId, change, fence),
      );
      queued.set(taskId, next);
      const forget = (): void => {
        if (queued.get(taskId) === next) queued.delete(taskId);
      };
      next.then(forget, forget);
      return next;
    },

    async list(filter: TaskListFilter = {}) {
      const site: CallSite = { operation: 'RedisTaskStore.list', writes: false };
      const ids = ((await bounded(site, timeoutMs, () => client.sMembers(idsKey))) as unknown[]).map(String);
      const out: TaskRecord[] = [];
      for (let start = 0; start < ids.length; start += MGET_CHUNK) {
        const chunk = ids.slice(start, start + MGET_CHUNK);
        const values = (await bounded(site, timeoutMs, () => client.mGet(chunk.map(recordKey)))) as unknown[];
        values.forEach((raw, index) => {
          // Deleted between SMEMBERS and MGET: not listed.
          if (raw === null || raw === undefined) return;
          const taskId = chunk[index] as string;
          let record: TaskRecord;
          try {
            record = parseTaskRecord(String(raw), taskId, origin(taskId, site.operation));
          } catch (error) {
            // One bad record never hides the others: skipped, and reported.
            onCorrupt?.(error as TetherError);
            return;
          }
          if (filter.active && !isActiveRecord(record)) return;
          if (filter.agentUrl !== undefined && record.agentUrl !== filter.agentUrl) return;
          out.push(record);
        });
      }
      return out;
    },

    async delete(taskId, writeOptions) {
      const operation = 'RedisTaskStore.delete';
      checkId(taskId, operation);
      await write(operation, taskId, '', writeOptions);
    },

    async lease(taskId, owner) {
      const operation = 'RedisTaskStore.lease';
      checkId(taskId, operation);
      if (typeof owner !== 'string' || owner === '') throw new TetherError('INVALID_ARGUMENT', `${operation}: owner must be a non-empty string`, { operation, maybeDelivered: false });
      const site: CallSite = { operation, taskId, writes: true };
      const fence = await evaluate(site, ACQUIRE, [leaseKey(taskId), fenceKey(taskId)], [owner, String(leaseMs)]);
      if (!(fence > 0)) return undefined;
      const holder = `${fence}:${owner}`;
      return {
        taskId,
        owner,
        fence,
        ttlMs: leaseMs,
        renew: async () => (await evaluate({ operation: 'TaskLease.renew', taskId, writes: true }, RENEW, [leaseKey(taskId)], [holder, String(leaseMs)])) === 1,
        release: async () => (await evaluate({ operation: 'TaskLease.release', taskId, writes: true }, RELEASE, [leaseKey(taskId)], [holder])) === 1,
      };
    },

    async leaseHolder(taskId) {
      const operation = 'RedisTaskStore.leaseHolder';
      checkId(taskId, operation);
      const held = await bounded({ operation, taskId, writes: false }, timeoutMs, () => client.get(leaseKey(taskId)));
      // `<fence>:<owner>`: the owner may contain ':' itself.
      return held === null || held === undefined ? undefined : String(held).slice(String(held).indexOf(':') + 1);
    },

    pushRelay() {
      if (!relay && canRelay(client)) relay = createRedisPushRelay(client, { prefix, timeoutMs });
      return relay;
    },

    async close() {
      await relay?.close();
      if (!owned || !client.isOpen) return;
      // A quit waits for Redis; while it is unreachable, the connection is dropped instead.
      await bounded({ operation: 'RedisTaskStore.close', writes: false }, timeoutMs, () => client.close()).catch(() => client.destroy?.());
    },
  };
}
