import { TetherError, type StoreLease, type StoreWriteOptions } from '@a2a-tether/core';
import { WORKFLOW_RECORD_VERSION, type LeasingWorkflowStore, type WorkflowRecord } from '@a2a-tether/core/orchestrate';
import { ACQUIRE, FENCED, RELEASE, RENEW, WRITE } from './redis/lease-scripts.js';
import { openRedisClient, positiveInteger, type RedisStoreClient } from './redis/open-client.js';
import { bounded, type CallSite } from './redis/redis-call.js';
import { REDIS_STORE_DEFAULTS } from './redis-task-store.js';

/** Options of {@link createRedisWorkflowStore}: `url` (Tether creates and closes the client) or `client` (yours). */
export type RedisWorkflowStoreOptions = ({ url: string; client?: undefined } | { client: RedisStoreClient; url?: undefined }) & {
  /**
   * Prefix of every key. Default `tether:` (a task store and a workflow store may share it). Keys:
   * `{prefix}workflow:{id}` (the record's JSON), `{prefix}workflows` (the set of ids),
   * `{prefix}workflow-lease:{id}` (`<fence>:<owner>`), `{prefix}workflow-fence:{id}` (the count of acquisitions).
   */
  prefix?: string | undefined;
  /**
   * The lease time to live (ms). A driving process that dies or is cut off gives its workflows up after at
   * most this long; it renews every quarter of it and stops driving when no renewal was confirmed within two
   * thirds of it. Default 30 000.
   */
  leaseMs?: number | undefined;
  /** The longest one command may take (ms); past it the call fails with `STORE_UNAVAILABLE`. Default 2 000. */
  commandTimeoutMs?: number | undefined;
  /** The longest `createRedisWorkflowStore()` waits to connect (ms). Default 5 000. */
  connectTimeoutMs?: number | undefined;
  /** Called once per record `list()` found that is not a workflow record (`STORE_CORRUPT`), with the error naming its key. */
  onCorrupt?: ((error: TetherError) => void) | undefined;
};

/** A {@link LeasingWorkflowStore} in Redis. */
export interface RedisWorkflowStore extends LeasingWorkflowStore {
  /** Closes the client if the store created it (from `url`); a client you passed is left open. */
  close(): Promise<void>;
}

const FACTORY = 'createRedisWorkflowStore';

function checkId(id: unknown, operation: string): string {
  if (typeof id !== 'string' || id === '') {
    throw new TetherError('INVALID_ARGUMENT', `${operation}: the workflow id must be a non-empty string, got ${typeof id === 'string' ? '""' : typeof id}`, { operation, maybeDelivered: false });
  }
  return id;
}

/**
 * Creates a workflow store in Redis (node-redis v5) that several orchestrator processes share, leasing each
 * workflow to one of them (`LeasingWorkflowStore`): `startWorkflow({ store })` drives a workflow only while
 * its process holds the lease, every save carries the lease's fencing token (a former holder's save is
 * refused with `LEASE_LOST`, nothing written), and `resumeWorkflows()` / `takeOverWorkflows()` in any process
 * pick up the workflows whose driver died, from their last saved state.
 *
 * Saves are one atomic Lua script (the record, the set of ids, the fence check together). Every call is
 * bounded by `commandTimeoutMs`: while Redis is down or cut off, calls fail with a retryable
 * `STORE_UNAVAILABLE`. A value that is not a workflow record is `STORE_CORRUPT` from `load`, skipped by `list`.
 *
 * @example
 * ```ts
 * import { createRedisWorkflowStore } from '@a2a-tether/node/redis';
 * import { takeOverWorkflows } from '@a2a-tether/node/orchestrate';
 *
 * const store = await createRedisWorkflowStore({ url: 'redis://127.0.0.1:6379', leaseMs: 15_000 });
 * takeOverWorkflows({ store, everyMs: 4_000, options: (record) => ({ goal: record.revisions[0]?.text ?? '', hops, agents }) });
 * ```
 */
export async function createRedisWorkflowStore(options: RedisWorkflowStoreOptions): Promise<RedisWorkflowStore> {
  const prefix = options.prefix ?? REDIS_STORE_DEFAULTS.prefix;
  const leaseMs = positiveInteger(options.leaseMs, REDIS_STORE_DEFAULTS.leaseMs, 'leaseMs', FACTORY);
  const timeoutMs = positiveInteger(options.commandTimeoutMs, REDIS_STORE_DEFAULTS.commandTimeoutMs, 'commandTimeoutMs', FACTORY);
  const connectTimeoutMs = positiveInteger(options.connectTimeoutMs, REDIS_STORE_DEFAULTS.connectTimeoutMs, 'connectTimeoutMs', FACTORY);
  const { client, owned } = await openRedisClient(options, connectTimeoutMs, FACTORY);
  const recordKey = (id: string): string => `${prefix}workflow:${id}`;
  const leaseKey = (id: string): string => `${prefix}workflow-lease:${id}`;
  const fenceKey = (id: string): string => `${prefix}workflow-fence:${id}`;
  const idsKey = `${prefix}workflows`;
  const evaluate = async (site: CallSite, script: string, keys: string[], args: string[]): Promise<number> =>
    Number(await bounded(site, timeoutMs, () => client.eval(script, { keys, arguments: args })));

  const parse = (raw: string, id: string, operation: string): WorkflowRecord => {
    const corrupt = (why: string, cause?: unknown): TetherError =>
      new TetherError('STORE_CORRUPT', `workflow record at Redis key ${recordKey(id)} ${why}; save() the workflow to replace it`, { operation, cause });
    let record: unknown;
    try {
      record = JSON.parse(raw);
    } catch (error) {
      throw corrupt('is not JSON', error);
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) throw corrupt('is not an object');
    const { id: storedId, schemaVersion } = record as Record<string, unknown>;
    if (storedId !== id) throw corrupt(typeof storedId === 'string' ? `belongs to workflow ${JSON.stringify(storedId)}` : 'has no id');
    if (typeof schemaVersion !== 'number' || !Number.isInteger(schemaVersion)) throw corrupt('has no schemaVersion');
    if (schemaVersion > WORKFLOW_RECORD_VERSION) throw corrupt(`has schemaVersion ${schemaVersion}, newer than the ${WORKFLOW_RECORD_VERSION} this version of Tether reads`);
    return record as WorkflowRecord;
  };

  return {
    async load(workflowId) {
      const operation = 'RedisWorkflowStore.load';
      checkId(workflowId, operation);
      const raw = await bounded({ operation, writes: false }, timeoutMs, () => client.get(recordKey(workflowId)));
      return raw === null || raw === undefined ? undefined : parse(String(raw), workflowId, operation);
    },

    async save(record, writeOptions?: StoreWriteOptions) {
      const operation = 'RedisWorkflowStore.save';
      const id = checkId((record as Partial<WorkflowRecord> | null)?.id, operation);
      let json: string;
      try {
        json = JSON.stringify(record);
      } catch (error) {
        throw new TetherError('INVALID_ARGUMENT', `${operation}: the record of workflow ${id} is not JSON-serializable`, { operation, cause: error, maybeDelivered: false });
      }
      const fence = writeOptions?.fence;
      if (fence !== undefined && (!Number.isSafeInteger(fence) || fence < 0)) throw new TetherError('INVALID_ARGUMENT', `${operation}: fence must be a non-negative whole number, got ${String(fence)}`, { operation, maybeDelivered: false });
      const result = await evaluate({ operation, writes: true }, WRITE, [recordKey(id), idsKey, fenceKey(id)], [json, id, fence === undefined ? '' : String(fence), String(REDIS_STORE_DEFAULTS.keepFenceMs)]);
      if (result === FENCED) {
        throw new TetherError('LEASE_LOST', `Redis workflow store: the save of workflow ${id} was refused: a newer lease than this writer's (fence ${fence ?? '?'}) holds the workflow; nothing was written`, {
          operation,
          maybeDelivered: false,
        });
      }
    },

    async list() {
      const site: CallSite = { operation: 'RedisWorkflowStore.list', writes: false };
      const ids = ((await bounded(site, timeoutMs, () => client.sMembers(idsKey))) as unknown[]).map(String);
      if (ids.length === 0) return [];
      const values = (await bounded(site, timeoutMs, () => client.mGet(ids.map(recordKey)))) as unknown[];
      const out: string[] = [];
      values.forEach((raw, index) => {
        const id = ids[index] as string;
        if (raw === null || raw === undefined) return;
        try {
          parse(String(raw), id, site.operation);
          out.push(id);
        } catch (error) {
          options.onCorrupt?.(error as TetherError);
        }
      });
      return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    },

    async lease(workflowId, owner): Promise<StoreLease | undefined> {
      const operation = 'RedisWorkflowStore.lease';
      checkId(workflowId, operation);
      if (typeof owner !== 'string' || owner === '') throw new TetherError('INVALID_ARGUMENT', `${operation}: owner must be a non-empty string`, { operation, maybeDelivered: false });
      const fence = await evaluate({ operation, writes: true }, ACQUIRE, [leaseKey(workflowId), fenceKey(workflowId)], [owner, String(leaseMs)]);
      if (!(fence > 0)) return undefined;
      const holder = `${fence}:${owner}`;
      return {
        fence,
        ttlMs: leaseMs,
        renew: async () => (await evaluate({ operation: 'WorkflowLease.renew', writes: true }, RENEW, [leaseKey(workflowId)], [holder, String(leaseMs)])) === 1,
        release: async () => (await evaluate({ operation: 'WorkflowLease.release', writes: true }, RELEASE, [leaseKey(workflowId)], [holder])) === 1,
      };
    },

    async leaseHolder(workflowId) {
      const operation = 'RedisWorkflowStore.leaseHolder';
      checkId(workflowId, operation);
      const held = await bounded({ operation, writes: false }, timeoutMs, () => client.get(leaseKey(workflowId)));
      return held === null || held === undefined ? undefined : String(held).slice(String(held).indexOf(':') + 1);
    },

    async close() {
      if (!owned || !client.isOpen) return;
      await bounded({ operation: 'RedisWorkflowStore.close', writes: false }, timeoutMs, () => client.close()).catch(() => client.destroy?.());
    },
  };
}
