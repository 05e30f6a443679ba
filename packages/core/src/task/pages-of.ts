import { TetherError } from '../errors/tether-error.js';
import type { TaskPage } from '../model/types.js';
import type { ListTasksQuery } from '../transport/transport.js';

/**
 * Every page of `list` for `query`, following `nextPageToken` until the agent gives none. A token seen
 * before (an agent paging in a circle) is `PROTOCOL_VIOLATION`; more than `maxPages` pages is
 * `INVALID_RESPONSE` (stopping quietly would make a partial list look whole).
 */
export async function* pagesOf(list: (query: ListTasksQuery) => Promise<TaskPage>, query: ListTasksQuery, maxPages = 1_000): AsyncGenerator<TaskPage> {
  const seen = new Set<string>();
  let token = query.pageToken;
  for (let page = 1; ; page++) {
    const result = await list(token === undefined ? query : { ...query, pageToken: token });
    yield result;
    token = result.nextPageToken || undefined;
    if (token === undefined) return;
    if (seen.has(token)) throw new TetherError('PROTOCOL_VIOLATION', `ListTasks: the agent gave page token ${JSON.stringify(token.slice(0, 80))} twice (its pages go in a circle)`, { operation: 'ListTasks' });
    seen.add(token);
    if (page >= maxPages) {
      throw new TetherError('INVALID_RESPONSE', `ListTasks: still more pages after ${maxPages}; raise maxPages or narrow the query (the list read so far is not all of it)`, { operation: 'ListTasks' });
    }
  }
}
