import { TetherError } from '../errors/tether-error.js';
import type { StoreLease, StoreWriteOptions } from '../store/task-store.js';
import type { WorkflowRecord } from './workflow-record.js';

/**
 * Where workflows are persisted: one record per workflow, replaced whole.
 *
 * The orchestrator writes the record before every step that depends on it (a node's task id, a
 * revision, a ledger intent, a checkpoint) and waits for the write, so a store must make `save`
 * durable and all-or-nothing by the time it resolves: after a crash, `load` returns the previous
 * record or the new one, never a mix. With a plain store, one process drives a workflow at a time (the
 * store is not a lock); a {@link LeasingWorkflowStore} makes that so across processes.
 *
 * Implementations: {@link MemoryWorkflowStore} (core), `createFileWorkflowStore(dir)` (`@a2a-tether/node/orchestrate`),
 * `createRedisWorkflowStore()` (`@a2a-tether/node/redis`, leasing).
 */
export interface WorkflowStore {
  /** The record, or `undefined` when no workflow has this id. Throws `STORE_CORRUPT` / `STORE_READ_FAILED`. */
  load(workflowId: string): Promise<WorkflowRecord | undefined>;
  /** Replaces the record (durably, atomically). Throws `STORE_WRITE_FAILED`; the previous record stays. */
  save(record: WorkflowRecord): Promise<void>;
  /** Ids of the stored workflows. */
  list(): Promise<string[]>;
}

/**
 * A {@link WorkflowStore} shared by several processes that leases each workflow to one of them: the
 * process holding the lease drives it, and every write carries the lease's fencing token, so a former
 * holder (dead, paused, or cut off while its lease passed on) can write nothing more.
 *
 * `startWorkflow()` with such a store acquires the lease first (`LEASE_HELD` when another process holds
 * it), renews it every quarter of its TTL, passes its fence with every save, and stops driving — `done()`
 * rejects with `LEASE_LOST`, and the hops' tasks are left to run — when a renewal is refused or none was
 * confirmed within two thirds of the TTL. It gives the lease back when the workflow ends or `stop()`s.
 * `resumeWorkflows()` takes over the workflows whose driver is gone.
 */
export interface LeasingWorkflowStore extends WorkflowStore {
  /**
   * Acquires the lease of `workflowId` for `owner`: `undefined` when another owner holds it. The same
   * owner acquiring again gets a new lease (a larger fence; the older one can no longer renew).
   */
  lease(workflowId: string, owner: string): Promise<StoreLease | undefined>;
  /** Who holds the workflow's lease now; `undefined` when nobody does. */
  leaseHolder(workflowId: string): Promise<string | undefined>;
  /** Replaces the record; with `options.fence`, only while no newer lease than that one was acquired (else `LEASE_LOST`). */
  save(record: WorkflowRecord, options?: StoreWriteOptions): Promise<void>;
}

/** Whether `store` leases workflows ({@link LeasingWorkflowStore}). */
export function leasesWorkflows(store: WorkflowStore): store is LeasingWorkflowStore {
  const s = store as Partial<LeasingWorkflowStore>;
  return typeof s.lease === 'function' && typeof s.leaseHolder === 'function';
}

/**
 * A {@link WorkflowStore} in this process's memory: nothing survives a restart. Records are copied
 * in and out (JSON), so a caller holding one cannot change the stored state by accident.
 */
export class MemoryWorkflowStore implements WorkflowStore {
  private readonly records = new Map<string, string>();

  load(workflowId: string): Promise<WorkflowRecord | undefined> {
    const text = this.records.get(workflowId);
    return Promise.resolve(text === undefined ? undefined : (JSON.parse(text) as WorkflowRecord));
  }

  save(record: WorkflowRecord): Promise<void> {
    if (typeof record?.id !== 'string' || record.id === '') {
      return Promise.reject(new TetherError('INVALID_ARGUMENT', 'a workflow record needs an id', { maybeDelivered: false }));
    }
    this.records.set(record.id, JSON.stringify(record));
    return Promise.resolve();
  }

  list(): Promise<string[]> {
    return Promise.resolve([...this.records.keys()]);
  }
}
