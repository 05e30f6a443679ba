import { TetherError } from '../errors/tether-error.js';
import type { WorkflowRecord } from './workflow-record.js';

/**
 * Where workflows are persisted: one record per workflow, replaced whole.
 *
 * The orchestrator writes the record before every step that depends on it (a node's task id, a
 * revision, a ledger intent, a checkpoint) and waits for the write, so a store must make `save`
 * durable and all-or-nothing by the time it resolves: after a crash, `load` returns the previous
 * record or the new one, never a mix. One process drives a workflow at a time (the store is not a lock).
 *
 * Implementations: {@link MemoryWorkflowStore} (core), `createFileWorkflowStore(dir)` (`@a2a-tether/node/orchestrate`).
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
