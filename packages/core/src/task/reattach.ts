import { TetherError } from '../errors/tether-error.js';
import { isTerminalState } from '../model/task-state.js';
import type { ListTasksQuery } from '../transport/transport.js';
import { pagesOf } from './pages-of.js';
import type { FollowContext } from './follow-context.js';
import { resumeTask, type ResumeOptions } from './start-task.js';
import type { TaskHandle } from './task-handle.js';

/** Options of `client.reattach()`. */
export interface ReattachOptions extends ResumeOptions {
  /** The conversation whose unfinished tasks to follow again. */
  contextId: string;
  /** Only tasks whose status changed at or after this time (a `Date`, or ISO 8601). */
  since?: Date | string | undefined;
  /** The most pages of `ListTasks` to read (a budget: an agent that pages forever is not followed forever). Default 20. */
  maxPages?: number | undefined;
}

/**
 * Finds the agent's unfinished tasks of a conversation (`ListTasks` by `contextId`, every page) and follows
 * each again, as `resume()` does: for an app whose local store was lost. Tasks this client follows already,
 * and (with a store shared by several processes) tasks another process holds, are skipped.
 */
export async function reattach(context: FollowContext, options: ReattachOptions): Promise<TaskHandle[]> {
  const { contextId, since, maxPages = 20, ...resume } = options ?? ({} as ReattachOptions);
  if (typeof contextId !== 'string' || contextId === '') throw new TetherError('INVALID_ARGUMENT', 'reattach: a contextId is needed', { maybeDelivered: false });
  if (!context.client.agent.listTasks) {
    throw new TetherError('UNSUPPORTED_OPERATION', 'reattach: this agent speaks A2A v0.3, which has no ListTasks to find tasks by conversation', { operation: 'ListTasks', maybeDelivered: false });
  }
  const query: ListTasksQuery = { contextId, pageSize: 100 };
  if (since !== undefined) query.statusTimestampAfter = since instanceof Date ? since.toISOString() : since;
  const handles: TaskHandle[] = [];
  for await (const page of pagesOf((q) => context.client.listTasks(q, {}), query, maxPages)) for (const task of page.tasks) {
    if (isTerminalState(task.status.state) || context.following.has(task.id) || task.contextId !== contextId) continue;
    const handle = await resumeTask(context, task.id, resume, { skipLeased: true });
    if (handle) handles.push(handle);
  }
  return handles;
}
