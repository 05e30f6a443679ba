import {
  DEFAULTS,
  isActiveRecord,
  parseTaskRecord,
  taskKey,
  TetherError,
  type StoreWriteOptions,
  type TaskListFilter,
  type TaskRecord,
  type TaskStore,
} from '@a2a-tether/core';
import { ACQUIRE, COMPARE_AND_SET, FENCED, MIGRATE, RELEASE, RENEW, WRITE } from './redis/lease-scripts.js';
import { keyTaskId } from './task-key-parts.js';
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
   * Prefix of every key, so several stores share one database. Default `tether:`. Keys, by the task's key
   * (`taskKey(agentUrl, taskId)`: two agents' tasks "1" are two records and two leases):
   * `{prefix}task-record:{key}` (the record's JSON), `{prefix}task-keys` (the set of keys),
   * `{prefix}task-lease:{key}` (`<fence>:<owner>`), `{prefix}task-fence:{key}` (the count of the task's
   * lease acquisitions). Records of the layout before (`{prefix}task:{id}`, in `{prefix}tasks`) move
   * under their keys when the store is created and on each `list()`.
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
  /** The task's key (`taskKey(agentUrl, taskId)`). */
  readonly key: string;
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
   * Acquires the lease of the task of `key` (`taskKey(agentUrl, taskId)`) for `owner` (a name unique per process, e.g. host + pid + a random
   * suffix) for the store's `leaseMs`. Resolves `undefined` when another owner holds it; the same
   * owner acquiring again gets a new lease (a new fencing token; the older lease can no longer renew).
   * Renew well within the TTL for as long as the process drives the task.
   */
  lease(key: string, owner: string): Promise<TaskLease | undefined>;
  /** Who holds the lease of the task of `key` now (the owner it was acquired with); `undefined` when nobody does. */
  leaseHolder(key: string): Promise<string | undefined>;
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

function checkKey(key: unknown, operation: string): string {
  if (typeof key !== 'string' || key === '') {
    throw new TetherError('INVALID_ARGUMENT', `${operation}: the task key must be a non-empty string (taskKey(agentUrl, taskId)), got ${typeof key === 'string' ? '""' : typeof key}`, {
      operation,
      maybeDelivered: false,
    });
  }
  return key;
}

/** The key a record is filed under: `INVALID_ARGUMENT` for a record without a task id or agent URL. */
function keyOfRecord(record: unknown, operation: string): string {
  const { taskId, agentUrl } = (record ?? {}) as Partial<TaskRecord>;
  if (typeof taskId !== 'string' || taskId === '' || typeof agentUrl !== 'string') {
    throw new TetherError('INVALID_ARGUMENT', `${operation}: a record needs a non-empty taskId and an agentUrl (its key is taskKey(agentUrl, taskId))`, { operation, maybeDelivered: false });
  }
  return taskKey(agentUrl, taskId);
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

  const recordKey = (key: string): string => `${prefix}task-record:${key}`;
  const leaseKey = (key: string): string => `${prefix}task-lease:${key}`;
  const fenceKey = (key: string): string => `${prefix}task-fence:${key}`;
  const keysKey = `${prefix}task-keys`;
  // The layout before: records, fences and the set by task id alone (moved by `migrate()`).
  const before = { record: (id: string): string => `${prefix}task:${id}`, fence: (id: string): string => `${prefix}fence:${id}`, ids: `${prefix}tasks` };
  const origin = (key: string, operation: string): { where: string; operation: string } => ({ where: `Redis key ${recordKey(key)}`, operation });
  const site = (operation: string, key: string | undefined, writes: boolean): CallSite => ({ operation, taskId: keyTaskId(key), writes });
  const evaluate = async (site: CallSite, script: string, keys: string[], args: string[]): Promise<number> =>
    Number(await bounded(site, timeoutMs, () => client.eval(script, { keys, arguments: args })));

  async function readRaw(site: CallSite, key: string): Promise<string | undefined> {
    const raw = await bounded(site, timeoutMs, () => client.get(recordKey(key)));
    return raw === null || raw === undefined ? undefined : String(raw);
  }

  async function updateNow(
    key: string,
    change: (current: TaskRecord | undefined) => TaskRecord | undefined,
    fence: string,
  ): Promise<TaskRecord | undefined> {
    const at = site('RedisTaskStore.update', key, true);
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const raw = await readRaw(at, key);
      // A corrupt record is not handed to `change`: STORE_CORRUPT, and nothing is written.
      const next = change(raw === undefined ? undefined : parseTaskRecord(raw, key, origin(key, at.operation)));
      if (next !== undefined && keyOfRecord(next, at.operation) !== key) {
        throw new TetherError('INVALID_ARGUMENT', `RedisTaskStore.update(${key}) returned a record of another task; nothing was written`, {
          operation: at.operation,
          taskId: at.taskId,
        });
      }
      const written = next === undefined ? '' : serialize(next, at.operation);
      const keys = [recordKey(key), keysKey, fenceKey(key)];
      const result = await evaluate(at, COMPARE_AND_SET, keys, [raw === undefined ? '0' : '1', raw ?? '', written, key, fence, keepFenceMs]);
      if (result === FENCED) throw fenced(at, fence === '' ? undefined : Number(fence));
      if (result === 1) return next;
    }
    throw new TetherError('RETRY_EXHAUSTED', `Redis task store: the update of task ${at.taskId ?? key} lost ${MAX_UPDATE_ATTEMPTS} races in a row to other writers`, { taskId: at.taskId });
  }

  async function write(operation: string, key: string, json: string, options: StoreWriteOptions | undefined): Promise<void> {
    const at = site(operation, key, true);
    const fence = fenceArg(options, operation);
    const result = await evaluate(at, WRITE, [recordKey(key), keysKey, fenceKey(key)], [json, key, fence, keepFenceMs]);
    if (result === FENCED) throw fenced(at, options?.fence);
  }

  /**
   * Moves the records of the layout before (filed by task id alone) under their keys, with their fence
   * counts. A value that is not a task record stays where it is, reported to `onCorrupt`.
   */
  async function migrate(operation: string): Promise<void> {
    const at = site(operation, undefined, true);
    const ids = ((await bounded(at, timeoutMs, () => client.sMembers(before.ids))) as unknown[]).map(String);
    for (const id of ids) {
      // Bounded: a record another process rewrites each time it is read is left for the next list().
      for (let attempt = 0; attempt < 3; attempt++) {
        const raw = await bounded(at, timeoutMs, () => client.get(before.record(id)));
        let key = '';
        if (raw !== null && raw !== undefined) {
          try {
            const parsed = JSON.parse(String(raw)) as Partial<TaskRecord> | null;
            key = taskKey(typeof parsed?.agentUrl === 'string' ? parsed.agentUrl : '', id);
            parseTaskRecord(String(raw), key, { where: `Redis key ${before.record(id)}`, operation });
          } catch (error) {
            onCorrupt?.(error instanceof TetherError ? error : new TetherError('STORE_CORRUPT', `Redis key ${before.record(id)} is not valid JSON; put() or delete() the task to replace it`, { operation, taskId: id, cause: error }));
            break;
          }
        }
        const moved = await evaluate(at, MIGRATE, [before.record(id), before.ids, recordKey(key), keysKey, before.fence(id), fenceKey(key)], [raw === null || raw === undefined ? '' : String(raw), id, key]);
        if (moved === 1) break;
      }
    }
  }

  const queued = new Map<string, Promise<TaskRecord | undefined>>();
  let relay: PushRelay | undefined;
  try {
    await migrate('createRedisTaskStore');
  } catch (error) {
    if (owned) await client.close().catch(() => client.destroy?.());
    throw error;
  }

  return {
    async get(key) {
      const operation = 'RedisTaskStore.get';
      checkKey(key, operation);
      const raw = await readRaw(site(operation, key, false), key);
      return raw === undefined ? undefined : parseTaskRecord(raw, key, origin(key, operation));
    },

    async put(record, writeOptions) {
      const operation = 'RedisTaskStore.put';
      const key = keyOfRecord(record, operation);
      await write(operation, key, serialize(record, operation), writeOptions);
    },

    update(key, change, writeOptions) {
      try {
        checkKey(key, 'RedisTaskStore.update');
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
      const previous = queued.get(key) ?? Promise.resolve();
      const next = previous.then(
        () => updateNow(key, change, fence),
        () => updateNow(key, change, fence),
      );
      queued.set(key, next);
      const forget = (): void => {
        if (queued.get(key) === next) queued.delete(key);
      };
      next.then(forget, forget);
      return next;
    },

    async list(filter: TaskListFilter = {}) {
      const at = site('RedisTaskStore.list', undefined, false);
      await migrate(at.operation);
      const keys = ((await bounded(at, timeoutMs, () => client.sMembers(keysKey))) as unknown[]).map(String);
      const out: TaskRecord[] = [];
      for (let start = 0; start < keys.length; start += MGET_CHUNK) {
        const chunk = keys.slice(start, start + MGET_CHUNK);
        const values = (await bounded(at, timeoutMs, () => client.mGet(chunk.map(recordKey)))) as unknown[];
        values.forEach((raw, index) => {
          // Deleted between SMEMBERS and MGET: not listed.
          if (raw === null || raw === undefined) return;
          const key = chunk[index] as string;
          let record: TaskRecord;
          try {
            record = parseTaskRecord(String(raw), key, origin(key, at.operation));
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

    async delete(key, writeOptions) {
      const operation = 'RedisTaskStore.delete';
      checkKey(key, operation);
      await write(operation, key, '', writeOptions);
    },

    async lease(key, owner) {
      const operation = 'RedisTaskStore.lease';
      checkKey(key, operation);
      if (typeof owner !== 'string' || owner === '') throw new TetherError('INVALID_ARGUMENT', `${operation}: owner must be a non-empty string`, { operation, maybeDelivered: false });
      const fence = await evaluate(site(operation, key, true), ACQUIRE, [leaseKey(key), fenceKey(key)], [owner, String(leaseMs)]);
      if (!(fence > 0)) return undefined;
      const holder = `${fence}:${owner}`;
      return {
        key,
        taskId: keyTaskId(key) ?? key,
        owner,
        fence,
        ttlMs: leaseMs,
        renew: async () => (await evaluate(site('TaskLease.renew', key, true), RENEW, [leaseKey(key)], [holder, String(leaseMs)])) === 1,
        release: async () => (await evaluate(site('TaskLease.release', key, true), RELEASE, [leaseKey(key)], [holder])) === 1,
      };
    },

    async leaseHolder(key) {
      const operation = 'RedisTaskStore.leaseHolder';
      checkKey(key, operation);
      const held = await bounded(site(operation, key, false), timeoutMs, () => client.get(leaseKey(key)));
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
