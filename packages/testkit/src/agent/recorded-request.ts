import type { IncomingHttpHeaders } from 'node:http';

/** One request the fake agent received, in arrival order (including card fetches and preflights). */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/a2a/rest/tasks/abc`. */
  path: string;
  /** Query string including the `?`, or ''. */
  search: string;
  /** Lower-cased header names, as Node received them. */
  headers: IncomingHttpHeaders;
  /** Parsed JSON when the body was JSON, the raw text otherwise, undefined when empty. */
  body: unknown;
  /** `Date.now()` when the request body was fully read. */
  at: number;
}
