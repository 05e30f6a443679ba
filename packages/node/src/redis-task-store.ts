import { isActiveRecord, TetherError, type TaskListFilter, type TaskRecord, type TaskStore } from '@a2a-tether/core';
import { createClient } from 'redis';

/**
 * The commands the store sends, as node-redis (`redis` v5) clients offer them: any client from
 * `createClient()` fits, whatever modules, scripts or functions it was created with.
 */
export interface RedisStoreClient {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  get(key: string): Promise<unknown>;
  mGet(keys: string[]): Promise<unknown>;
  sMembers(key: string): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** Options of {@link createRedisTaskStore}: `url` (Tether creates and closes the client) or `client` (yours). */
export type RedisTaskStoreOptions = (
  | {
      /** A Redis URL, e.g. `redis://127.0.0.1:6379/0` or `rediss://user:pass@host:6380`. */
      url: string;
      client?: undefined;
    }
  | {
      /** A node-redis client you created; connected here if it is not open yet, never closed by the store. */
      client: RedisStoreClient;
      url?: undefined;
    }
) & {
  /**
   * Prefix of every key, so several stores share one database. Default `tether:`. Keys:
   * `{prefix}task:{id}` (the record's JSON), `{prefix}tasks` (the set of ids), `{prefix}lease:{id}`.
   */
  prefix?: string | undefined;
  /** Default time to live of a lease (ms) when {@link RedisTaskStore.lease} is given none. Default 30 000. */
  leaseMs?: number | undefined;
};

/**
 * A lease on one task: while held, no other owner can acquire it. It ends on {@link TaskLease.release},
 * or on its own when not renewed within its time to live — so a process that dies loses its
 * leases after at most one TTL, and another process takes its tasks over.
 */
export interface TaskLease {
  readonly taskId: string;
  readonly owner: string;
  /**
   * Extends the lease to `ttlMs` (default: the TTL it was acquired with) from now. `false` when it
   * had already expired or passed to another owner: stop driving the task then.
   */
  renew(ttlMs?: number): Promise<boolean>;
  /** Ends the lease if this owner still holds it (compare-and-delete); `false` when it did not. */
  release(): Promise<boolean>;
}

/** A {@link TaskStore} in Redis, shared by several processes, with per-task leases. */
export interface RedisTaskStore extends TaskStore {
  /**
   * Acquires the lease of `taskId` for `owner` (a name unique per process, e.g. host + pid + a
   * random suffix) for `ttlMs` (default: the store's `leaseMs`). Resolves `undefined` when another
   * owner holds it; the same owner acquiring again gets it renewed. Renew well within the TTL (e.g.
   * every third of it) for as long as the process drives the task.
   */
  lease(taskId: string, owner: string, ttlMs?: number): Promise<TaskLease | undefined>;
  /** Closes the client if the store created it (from `url`); a client you passed is left open. */
  close(): Promise<void>;
}

const DEFAULT_PREFIX = 'tether:';
const DEFAULT_LEASE_MS = 30_000;
// Optimistic updates retried this many times against other processes' writes before giving up.
const MAX_UPDATE_ATTEMPTS = 100;
const MGET_CHUNK = 500;

// KEYS: record, id set. ARGV: expected present ('1'/'0'), expected JSON, new JSON ('' deletes), id.
// Writes only if the record is still what the caller read: a compare-and-set across both keys.
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if ARGV[3] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[4])
else
  redis.call('SET', KEYS[1], ARGV[3])
  redis.call('SADD', KEYS[2], ARGV[4])
end
return 1`;

// KEYS: record, id set. ARGV: new JSON ('' deletes), id.
const WRITE = `
if ARGV[1] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SADD', KEYS[2], ARGV[2])
end
return 1`;

// KEYS: lease. ARGV: owner, ttl ms. SET NX PX, or a renewal when this owner already holds it.
const ACQUIRE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

// KEYS: lease. ARGV: owner, ttl ms.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0`;

// KEYS: lease. ARGV: owner. Compare-and-delete: a stale owner never deletes its successor's lease.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0`;

function checkTtl(ttlMs: number, where: string): void {
  if (!Number.isInteger(ttlMs) || ttlMs < 1) {
    throw new TetherError('INVALID_ARGUMENT', `${where}: the lease TTL must be a positive whole number of ms, got ${ttlMs}`);
  }
}

function parse(key: string, raw: unknown): TaskRecord {
  try {
    return JSON.parse(String(raw)) as TaskRecord;
  } catch (error) {
    throw new TetherError('INVALID_RESPONSE', `Redis task store: ${key} holds no valid JSON`, { cause: error });
  }
}

/**
 * Creates a {@link TaskStore} in Redis (node-redis v5): records as JSON strings (unknown fields
 * kept), `update` as an optimistic read-modify-write whose write is a Lua compare-and-set (retried
 * when another writer got there first), `list` from a set of ids (never `KEYS`), and per-task
 * leases so that one process at a time drives a task.
 *
 * @example
 * ```ts
 * import { connect } from '@a2a-tether/node';
 * import { createRedisTaskStore } from '@a2a-tether/node/redis';
 *
 * const store = await createRedisTaskStore({ url: 'redis://127.0.0.1:6379' });
 * const client = await connect('https://agent.example', { store });
 * ```
 */
export async function createRedisTaskStore(options: RedisTaskStoreOptions): Promise<RedisTaskStore> {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  checkTtl(leaseMs, 'createRedisTaskStore');
  let client: RedisStoreClient;
  const owned = options.client === undefined;
  if (options.client !== undefined) {
    client = options.client;
  } else {
    const created = createClient({ url: options.url });
    // Failed commands reject on their own and the client reconnects by itself; without a listener
    // a connection error would crash the process.
    created.on('error', () => undefined);
    client = created;
  }
  if (!client.isOpen) await client.connect();

  const recordKey = (taskId: string): string => `${prefix}task:${taskId}`;
  const leaseKey = (taskId: string): string => `${prefix}lease:${taskId}`;
  const idsKey = `${prefix}tasks`;
  const run = async (script: string, keys: string[], args: string[]): Promise<boolean> =>
    Number(await client.eval(script, { keys, arguments: args })) === 1;

  async function read(taskId: string): Promise<string | undefined> {
    const raw = await client.get(recordKey(taskId));
    return raw === null || raw === undefined ? undefined : String(raw);
  }

  const queued = new Map<string, Promise<TaskRecord | undefined>>();

  async function updateNow(
    taskId: string,
    change: (current: TaskRecord | undefined) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined> {
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const raw = await read(taskId);
      const next = change(raw === undefined ? undefined : parse(recordKey(taskId), raw));
      const written = next === undefined ? '' : JSON.stringify(next);
      if (await run(COMPARE_AND_SET, [recordKey(taskId), idsKey], [raw === undefined ? '0' : '1', raw ?? '', written, taskId])) {
        return next;
      }
    }
    throw new TetherError(
      'RETRY_EXHAUSTED',
      `Redis task store: the update of task ${taskId} lost ${MAX_UPDATE_ATTEMPTS} races in a row to other writers`,
      { taskId },
    );
  }

  function makeLease(taskId: string, owner: string, acquiredTtl: number): TaskLease {
    return {
      taskId,
      owner,
      renew: async (ttlMs = acquiredTtl) => {
        checkTtl(ttlMs, 'TaskLease.renew');
        return run(RENEW, [leaseKey(taskId)], [owner, String(ttlMs)]);
      },
      release: () => run(RELEASE, [leaseKey(taskId)], [owner]),
    };
  }

  return {
    async get(taskId) {
      const raw = await read(taskId);
      return raw === undefined ? undefined : parse(recordKey(taskId), raw);
    },

    async put(record) {
      await run(WRITE, [recordKey(record.taskId), idsKey], [JSON.stringify(record), record.taskId]);
    },

    update(taskId, change) {
      // One update per task at a time from this store: a process then races only other processes,
      // not its own concurrent updates (which would all read the same value and all but one retry).
      const previous = queued.get(taskId) ?? Promise.resolve();
      const next = previous.then(
        () => updateNow(taskId, change),
        () => updateNow(taskId, change),
      );
      queued.set(taskId, next);
      const forget = (): void => {
        if (queued.get(taskId) === next) queued.delete(taskId);
      };
      next.then(forget, forget);
      return next;
    },

    async list(filter: TaskListFilter = {}) {
      const ids = ((await client.sMembers(idsKey)) as unknown[]).map(String);
      const out: TaskRecord[] = [];
      for (let start = 0; start < ids.length; start += MGET_CHUNK) {
        const chunk = ids.slice(start, start + MGET_CHUNK);
        const values = (await client.mGet(chunk.map(recordKey))) as unknown[];
        values.forEach((raw, index) => {
          // Deleted between SMEMBERS and MGET: not listed.
          if (raw === null || raw === undefined) return;
          const record = parse(recordKey(chunk[index] as string), raw);
          if (filter.active && !isActiveRecord(record)) return;
          if (filter.agentUrl !== undefined && record.agentUrl !== filter.agentUrl) return;
          out.push(record);
        });
      }
      return out;
    },

    async delete(taskId) {
      await run(WRITE, [recordKey(taskId), idsKey], ['', taskId]);
    },

    async lease(taskId, owner, ttlMs = leaseMs) {
      checkTtl(ttlMs, 'RedisTaskStore.lease');
      if (!owner) throw new TetherError('INVALID_ARGUMENT', 'RedisTaskStore.lease: owner must be a non-empty string');
      const acquired = await run(ACQUIRE, [leaseKey(taskId)], [owner, String(ttlMs)]);
      return acquired ? makeLease(taskId, owner, ttlMs) : undefined;
    },

    async close() {
      if (owned && client.isOpen) await client.close();
    },
  };
}
