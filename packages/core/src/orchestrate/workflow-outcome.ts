import type { WorkflowRecord, WorkflowState } from './workflow-record.js';
import type { HopSpec } from './workflow-types.js';

/**
 * The state a workflow ends in once every node has: `canceled` when it was cancelled (or every node
 * was), `failed` when an escalation failed it, `completed` when every node completed, `partial` when
 * something completed or produced output, else `failed`.
 */
export function endState(record: WorkflowRecord, hops: readonly HopSpec[], failing: boolean): WorkflowState {
  const nodes = Object.values(record.nodes);
  const required = hops.filter((h) => h.required !== false).map((h) => record.nodes[h.id]);
  const cancelledOnly = nodes.every((n) => n.state === 'canceled' || n.state === 'cancel-requested');
  if (record.cancel || cancelledOnly) return 'canceled';
  if (failing) return 'failed';
  if (required.every((n) => n?.state === 'completed') && nodes.every((n) => n.state === 'completed')) return 'completed';
  return nodes.some((n) => n.state === 'completed' || n.attempts.some((a) => (a.artifacts?.length ?? 0) > 0)) ? 'partial' : 'failed';
}
