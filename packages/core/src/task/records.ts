import { isActiveRecord, type TaskRecord } from '../store/task-store.js';
import type { FollowContext } from './follow-context.js';

/** Which records `client.tasks()` returns. */
export interface TasksFilter {
  /** Only tasks still to follow (not terminal, not lost). */
  active?: boolean | undefined;
}

/**
 * The records of this client's agent and principal, oldest first. Records of finished tasks past
 * their retention (`expiresAt`) are deleted on the way, not returned.
 */
export async function listRecords(context: FollowContext, filter: TasksFilter = {}): Promise<TaskRecord[]> {
  const { store, client, principal, scheduler } = context;
  const now = scheduler.now();
  const records = await store.list({ agentUrl: client.agent.url, ...(filter.active ? { active: true } : {}) });
  const kept: TaskRecord[] = [];
  const expired: Promise<void>[] = [];
  for (const record of records) {
    if (record.principal !== principal) continue;
    if (record.expiresAt !== undefined && record.expiresAt <= now && !isActiveRecord(record)) {
      expired.push(store.delete(record.taskId));
      continue;
    }
    kept.push(record);
  }
  await Promise.all(expired);
  return kept.sort((a, b) => a.createdAt - b.createdAt);
}
