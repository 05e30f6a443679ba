import type { NodeRecord, NodeState } from './workflow-record.js';
import type { WorkflowEvent } from './workflow-types.js';

const ACTIVE_NEXT: readonly NodeState[] = [
  'running',
  'input-required',
  'auth-required',
  'completed',
  'failed',
  'rejected',
  'canceled',
  'timed-out',
  'cancel-requested',
  'unresolved',
  // The gate closed before the send, the message never arrived, or an escalation handed the node on.
  'pending',
  'pending-reconciliation',
];

/** A stop the workflow asked for still ends as the task ended: confirmed, timed out, or completed first. */
const STOPPING_NEXT: readonly NodeState[] = ['canceled', 'cancel-requested', 'timed-out', 'completed', 'failed', 'rejected', 'unresolved', 'pending-reconciliation'];

/**
 * Where a node may go from each state (staying, with another reason, is always allowed). A node that
 * ended moves on only when an update supersedes it; a stop the workflow asked for may still end
 * otherwise (the task completed before the cancel took effect).
 */
const LEGAL: Readonly<Record<NodeState, readonly NodeState[]>> = {
  // failed: its input function threw; unresolved: a superseded send that nothing can find.
  pending: ['running', 'skipped', 'canceled', 'failed', 'unresolved'],
  running: ACTIVE_NEXT,
  'input-required': ACTIVE_NEXT,
  'auth-required': ACTIVE_NEXT,
  'pending-reconciliation': ['pending', 'canceled'],
  canceled: STOPPING_NEXT,
  'cancel-requested': STOPPING_NEXT,
  completed: ['pending-reconciliation'],
  failed: ['pending-reconciliation'],
  rejected: ['pending-reconciliation'],
  'timed-out': ['pending-reconciliation'],
  skipped: ['pending-reconciliation'],
  unresolved: ['pending-reconciliation'],
};

/** A node move the table does not allow: a bug in the orchestrator, never the agent's doing. */
export class IllegalNodeMove extends Error {
  override readonly name = 'IllegalNodeMove';
  constructor(
    readonly node: string,
    readonly from: NodeState,
    readonly to: NodeState,
  ) {
    super(`node ${node} cannot move from ${from} to ${to}`);
  }
}

export function isLegalMove(from: NodeState, to: NodeState): boolean {
  return from === to || LEGAL[from].includes(to);
}

/**
 * Moves a node to `to` (with `reason`, or none) when the table allows it, else throws
 * {@link IllegalNodeMove}. Returns the node's event when its state or reason changed.
 */
export function moveNode(node: NodeRecord, to: NodeState, reason?: string): Extract<WorkflowEvent, { type: 'node' }> | undefined {
  if (!isLegalMove(node.state, to)) throw new IllegalNodeMove(node.id, node.state, to);
  const changed = node.state !== to || node.reason !== reason;
  node.state = to;
  if (reason === undefined) delete node.reason;
  else node.reason = reason;
  if (!changed) return undefined;
  const last = node.attempts.at(-1);
  return { type: 'node', node: node.id, state: to, attempt: last?.n, taskId: last?.taskId };
}
