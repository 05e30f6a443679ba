import { TetherError } from '../errors/tether-error.js';
import { WORKFLOW_RECORD_VERSION, type NodeRecord, type WorkflowRecord } from './workflow-record.js';
import type { WorkflowStore } from './workflow-store.js';
import { invalid } from './workflow-errors.js';
import type { WorkflowOptions } from './workflow-types.js';

/**
 * The record a workflow starts from: the stored one when the store knows the id (checked against the
 * hops given), else a new one, saved before anything runs.
 */
export async function openRecord(options: WorkflowOptions, store: WorkflowStore, now: () => number, newId: () => string): Promise<WorkflowRecord> {
  let record = await store.load(options.id);
  if (record) {
    if (record.schemaVersion > WORKFLOW_RECORD_VERSION) {
      throw new TetherError('STORE_CORRUPT', `workflow ${options.id} was written by a newer version of Tether (schema ${record.schemaVersion})`, {
        maybeDelivered: false,
      });
    }
    const stored = Object.keys(record.nodes).sort().join(',');
    const given = options.hops.map((h) => h.id).sort().join(',');
    if (stored !== given) throw invalid(`workflow ${options.id} is stored with hops ${stored}, not ${given}`);
    for (const hop of options.hops) {
      const node = record.nodes[hop.id] as NodeRecord;
      if (node.parent !== hop.parent || [...node.dependsOn].sort().join(',') !== [...(hop.dependsOn ?? [])].sort().join(',')) {
        throw invalid(`workflow ${options.id}: hop ${hop.id} is stored with other edges (parent ${node.parent ?? 'none'}, depends on ${node.dependsOn.join(',') || 'nothing'})`);
      }
    }
    return record;
  }
  const at = new Date(now()).toISOString();
  record = {
    schemaVersion: WORKFLOW_RECORD_VERSION,
    id: options.id,
    contextId: newId(),
    state: 'running',
    createdAt: at,
    ...(options.deadlineMs === undefined ? {} : { deadlineAt: now() + options.deadlineMs }),
    revision: 1,
    revisions: [{ n: 1, text: options.goal, updateSeq: 0, at }],
    updates: [],
    nodes: Object.fromEntries(
      options.hops.map((h): [string, NodeRecord] => [
        h.id,
        { id: h.id, agent: h.agent, ...(h.parent === undefined ? {} : { parent: h.parent }), dependsOn: [...(h.dependsOn ?? [])], state: 'pending', attempts: [] },
      ]),
    ),
    ledger: [],
    checkpoints: [],
  };
  await store.save(record);
  return record;
}

/** Calls `cancel` with the abort reason (as text) once `signal` aborts — at once (in a microtask) when it already has. */
export function onAbort(signal: AbortSignal | undefined, cancel: (reason: string) => void): void {
  if (!signal) return;
  const abort = (): void => {
    const reason: unknown = signal.reason;
    cancel(reason instanceof Error ? reason.message : String(reason ?? 'aborted'));
  };
  if (signal.aborted) queueMicrotask(abort);
  else signal.addEventListener('abort', abort, { once: true });
}
