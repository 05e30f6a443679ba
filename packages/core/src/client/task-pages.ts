import { TetherError } from '../errors/tether-error.js';
import type { TaskPage } from '../model/types.js';
import { pagesOf } from '../task/pages-of.js';
import type { IdempotentCallOptions, ListTasksQuery } from '../transport/transport.js';

/** What {@link taskPages} needs of a client: `A2AClient` is one. */
export interface ListsTasks {
  listTasks(query: ListTasksQuery, options?: IdempotentCallOptions): Promise<TaskPage>;
}

/**
 * Every page of `client.listTasks(query)`, following `nextPageToken` (v1.0 agents): `for await (const page of
 * taskPages(client, { contextId }))`. At most `options.maxPages` pages (default 1,000): more is
 * `INVALID_RESPONSE`, not a list that looks whole; a token the agent gives twice (pages in a circle) is
 * `PROTOCOL_VIOLATION`. Each page is one call with the client's retries.
 */
export function taskPages(client: ListsTasks, query: ListTasksQuery = {}, options: IdempotentCallOptions & { maxPages?: number | undefined } = {}): AsyncGenerator<TaskPage> {
  if (typeof client?.listTasks !== 'function') throw new TetherError('INVALID_ARGUMENT', 'taskPages: not a client (no listTasks)', { maybeDelivered: false });
  const { maxPages, ...call } = typeof options === 'object' && options !== null ? options : {};
  return pagesOf((q) => client.listTasks(q, call), typeof query === 'object' && query !== null ? query : {}, maxPages);
}
