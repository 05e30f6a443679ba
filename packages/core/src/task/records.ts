import { TetherError } from '../errors/tether-error.js';
import { canWatch, isActiveRecord, type TaskRecord } from '../store/task-store.js';
import { taskKey } from '../store/task-key.js';
import type { TimerHandle } from '../util/scheduler.js';
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
      expired.push(store.delete(taskKey(record.agentUrl, record.taskId)));
      continue;
    }
    kept.push(record);
  }
  await Promise.all(expired);
  return kept.sort((a, b) => a.createdAt - b.createdAt);
}

/** Options of `client.watchTasks()`. */
export interface WatchTasksOptions extends TasksFilter {
  /**
   * How often a store that cannot say when it changes (one without `watch`, such as the Redis store) is
   * read again (ms, default 1,000). Stores that can say are read only when they do.
   */
  intervalMs?: number | undefined;
  /** A read of the store failed (typed: `STORE_READ_FAILED`, `STORE_UNAVAILABLE` …); the next change or interval reads again. */
  onError?: ((error: TetherError) => void) | undefined;
}

/** Writes that come close together are read once, this long after the first (ms). */
const COALESCE_MS = 50;

/** What a listener of `watchTasks()` is told about: the tasks, their states and outcomes, their cancels. */
function signature(records: readonly TaskRecord[]): string {
  return records.map((r) => `${r.taskId}\u0000${r.state}\u0000${r.outcome?.kind ?? ''}\u0000${r.cancel?.confirmed ?? r.cancel?.requestedAt ?? ''}`).join('\u0001');
}

/**
 * Calls `listener` with the records {@link listRecords} returns — now, and again whenever a task is
 * started, changes state or outcome, has a cancel asked or confirmed, or is removed — until the
 * returned function is called. The store says when it changed (`WatchableTaskStore.watch`: every tab or
 * process on it), or is read every `intervalMs`; what did not change is not told again.
 */
export function watchRecords(context: FollowContext, listener: (records: TaskRecord[]) => void, options: WatchTasksOptions = {}): () => void {
  const { store, scheduler } = context;
  const filter: TasksFilter = options.active ? { active: true } : {};
  let stopped = false;
  let last: string | undefined;
  let timer: TimerHandle | undefined;
  let reading: Promise<void> | undefined;
  let again = false;
  const read = async (): Promise<void> => {
    do {
      again = false;
      let records: TaskRecord[];
      try {
        records = await listRecords(context, filter);
      } catch (error) {
        if (!stopped) options.onError?.(storeReadFailed(error));
        return;
      }
      if (stopped) return;
      const seen = signature(records);
      if (seen === last) continue;
      last = seen;
      try {
        listener(records);
      } catch (error) {
        console.warn(`[tether] a watchTasks listener threw: ${error instanceof Error ? error.message : String(error)}`);
      }
    } while (again && !stopped);
  };
  const readSoon = (): void => {
    if (stopped) return;
    if (reading) {
      again = true;
      return;
    }
    if (timer !== undefined) return;
    timer = scheduler.setTimeout(() => {
      timer = undefined;
      reading = read().finally(() => (reading = undefined));
    }, COALESCE_MS);
  };
  reading = read().finally(() => (reading = undefined));
  let poll: TimerHandle | undefined;
  const interval = options.intervalMs ?? 1_000;
  const every = (): void => {
    poll = scheduler.setTimeout(() => {
      readSoon();
      every();
    }, interval);
  };
  const unwatch = canWatch(store) ? store.watch(readSoon) : (every(), undefined);
  return () => {
    stopped = true;
    if (timer !== undefined) scheduler.clearTimeout(timer);
    if (poll !== undefined) scheduler.clearTimeout(poll);
    unwatch?.();
  };
}

function storeReadFailed(error: unknown): TetherError {
  if (error instanceof TetherError) return error;
  return new TetherError('STORE_READ_FAILED', `the task store failed to list tasks: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
