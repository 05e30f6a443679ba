import { describe, expect, it } from 'vitest';
import type { NodeRecord, NodeState } from './workflow-record.js';
import { IllegalNodeMove, isLegalMove, moveNode } from './node-moves.js';

function node(state: NodeState): NodeRecord {
  return { id: 'n', agent: 'a', dependsOn: [], state, attempts: [{ n: 1, agent: 'a', agentUrl: 'http://a', revision: 1, messageId: 'm', state: 'running', startedAt: 'then', taskId: 't1' }] };
}

describe('moveNode', () => {
  it.each<[NodeState, NodeState]>([
    ['pending', 'running'],
    ['pending', 'skipped'],
    ['pending', 'canceled'],
    ['running', 'input-required'],
    ['input-required', 'running'],
    ['running', 'completed'],
    ['running', 'pending-reconciliation'],
    ['completed', 'pending-reconciliation'],
    ['pending-reconciliation', 'pending'],
    ['cancel-requested', 'canceled'],
    ['canceled', 'completed'],
    ['timed-out', 'timed-out'],
  ])('allows %s → %s', (from, to) => {
    expect(isLegalMove(from, to)).toBe(true);
    const n = node(from);
    moveNode(n, to, 'why');
    expect(n.state).toBe(to);
    expect(n.reason).toBe('why');
  });

  it.each<[NodeState, NodeState]>([
    ['completed', 'running'],
    ['completed', 'pending'],
    ['failed', 'completed'],
    ['skipped', 'running'],
    ['pending', 'completed'],
    ['pending', 'input-required'],
    ['canceled', 'pending'],
    ['unresolved', 'running'],
    ['pending-reconciliation', 'running'],
  ])('refuses %s → %s with a typed error, and leaves the node as it was', (from, to) => {
    expect(isLegalMove(from, to)).toBe(false);
    const n = node(from);
    expect(() => moveNode(n, to)).toThrow(IllegalNodeMove);
    expect(n.state).toBe(from);
  });

  it('returns the node event when the state or the reason changed, nothing otherwise', () => {
    const n = node('running');
    expect(moveNode(n, 'completed')).toEqual({ type: 'node', node: 'n', state: 'completed', attempt: 1, taskId: 't1' });
    expect(moveNode(n, 'completed')).toBeUndefined();
    expect(moveNode(n, 'completed', 'again')).toEqual({ type: 'node', node: 'n', state: 'completed', attempt: 1, taskId: 't1' });
    moveNode(n, 'completed');
    expect(n.reason).toBeUndefined();
  });

  it('every state has a row: a final state moves on only when an update supersedes it', () => {
    const states: NodeState[] = ['pending', 'running', 'input-required', 'auth-required', 'completed', 'failed', 'rejected', 'canceled', 'timed-out', 'cancel-requested', 'skipped', 'pending-reconciliation', 'unresolved'];
    for (const from of ['completed', 'failed', 'rejected', 'skipped', 'unresolved', 'timed-out'] as const) {
      expect(states.filter((to) => to !== from && isLegalMove(from, to))).toEqual(['pending-reconciliation']);
    }
  });
});
