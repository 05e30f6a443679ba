import { isTerminalState, type A2AClient, type TaskStore } from '@a2a-tether/node';
import type { FollowEnd } from '../render/renderer.js';

const TRIES = 40;
const WAIT_MS = 25;

/**
 * Waits (at most ~1 s) until the engine's own write of the follow's last state reached the local store,
 * so a process that exits right after leaves a record `task resume` and `task list --local` can trust.
 * The engine writes behind the events and offers no flush to a handle; if the write has not landed by
 * then, the state (and a terminal outcome) is written here.
 */
export async function settleRecord(store: TaskStore, client: A2AClient, end: FollowEnd): Promise<void> {
  if (end.kind !== 'task') return;
  const { task } = end;
  // The record of this agent's task: another agent's task of the same id is another record (G11).
  const key = client.taskKey(task.id);
  const terminal = isTerminalState(task.status.state);
  for (let i = 0; i < TRIES; i++) {
    const record = await store.get(key).catch(() => undefined);
    if (!record) return;
    if (record.state === task.status.state && (!terminal || record.outcome !== undefined)) return;
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
  }
  const now = Date.now();
  await store
    .update(key, (record) =>
      record
        ? {
            ...record,
            state: task.status.state,
            contextId: record.contextId || task.contextId,
            updatedAt: now,
            ...(terminal && record.outcome === undefined ? { outcome: { kind: 'finished' as const, state: task.status.state, at: now } } : {}),
          }
        : record,
    )
    .catch(() => undefined);
}
