import type { FetchLike } from '@a2a-tether/node';

/** One request a run's client made. */
export interface LoggedRequest {
  /** Virtual ms since the run began, on the run's scheduler. */
  at: number;
  method: string;
  /** Path and query (the origin is the run's agent or proxy). */
  path: string;
  /** The A2A operation: `GetTask`, `SubscribeToTask`, `message/stream`, `GetAgentCard` … */
  operation: string;
  /** Set on the send `client.start()` or `handle.reply()` itself made (not on a retry of it). */
  byRunner?: 'start' | 'reply' | undefined;
  /** HTTP status, or `error` when the request failed without an answer; unset while pending. */
  status?: number | 'error' | undefined;
  contentType?: string | undefined;
}

const SEND_OPERATIONS: ReadonlySet<string> = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

/** The A2A operation of a request, from the JSON-RPC method or the HTTP+JSON path. */
export function operationOf(method: string, url: URL, body: unknown): string {
  const path = url.pathname;
  if (path.includes('/.well-known/')) return 'GetAgentCard';
  if (typeof body === 'string') {
    try {
      const call = JSON.parse(body) as unknown;
      if (typeof call === 'object' && call !== null && 'method' in call && typeof call.method === 'string') return call.method;
    } catch {
      // Not JSON-RPC: judge by the path.
    }
  }
  const verb = method.toUpperCase();
  if (path.endsWith('/message:send')) return 'SendMessage';
  if (path.endsWith('/message:stream')) return 'SendStreamingMessage';
  if (/\/tasks\/[^/]+:subscribe$/.test(path)) return 'SubscribeToTask';
  if (/\/tasks\/[^/]+:cancel$/.test(path)) return 'CancelTask';
  if (/\/pushNotificationConfigs/.test(path)) return 'PushNotificationConfig';
  if (verb === 'GET' && /\/tasks\/[^/:]+$/.test(path)) return 'GetTask';
  if (verb === 'GET' && path.endsWith('/tasks')) return 'ListTasks';
  return `${verb} ${path}`;
}

/** Whether an operation sends a message (the kind of request `start()` and `reply()` make). */
export function isSend(operation: string): boolean {
  return SEND_OPERATIONS.has(operation);
}

/** Marks the next send as the runner's own (`start()` or `reply()`), so the rate ceiling leaves it out. */
export interface RunnerSendMark {
  next: 'start' | 'reply' | undefined;
}

/**
 * Wraps `fetch` to log every request with the scheduler's time, method, URL and A2A operation, and its
 * answer's status. The first send after `mark.next` was set is tagged as the runner's own.
 */
export function loggingFetch(inner: FetchLike, now: () => number, log: LoggedRequest[], mark: RunnerSendMark): FetchLike {
  const origin = now();
  return async (input, init) => {
    const url = new URL(input instanceof URL ? input.href : input);
    const method = init?.method ?? 'GET';
    const operation = operationOf(method, url, init?.body);
    const entry: LoggedRequest = { at: now() - origin, method, path: url.pathname + url.search, operation };
    if (mark.next !== undefined && isSend(operation)) {
      entry.byRunner = mark.next;
      mark.next = undefined;
    }
    log.push(entry);
    try {
      const response = await inner(input, init);
      entry.status = response.status;
      entry.contentType = response.headers.get('content-type') ?? undefined;
      return response;
    } catch (error) {
      entry.status = 'error';
      throw error;
    }
  };
}

/**
 * The most requests that fall in any window of `windowMs` (half-open: `[t, t + windowMs)`), and where
 * the worst window starts. Counts the requests it is given; leave out what should not count.
 */
export function worstWindow(times: readonly number[], windowMs: number): { count: number; startsAt: number | undefined } {
  const sorted = [...times].sort((a, b) => a - b);
  let best = { count: 0, startsAt: undefined as number | undefined };
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    const from = sorted[start] as number;
    if (end < start) end = start;
    while (end < sorted.length && (sorted[end] as number) < from + windowMs) end++;
    if (end - start > best.count) best = { count: end - start, startsAt: from };
  }
  return best;
}

/** One line per request, for failure reports. */
export function describeRequest(request: LoggedRequest): string {
  const seconds = (request.at / 1000).toFixed(2).padStart(8);
  const by = request.byRunner === undefined ? '' : ` (${request.byRunner})`;
  const status = request.status === undefined ? 'pending' : String(request.status);
  const type = request.contentType === undefined ? '' : ` ${request.contentType.split(';')[0]}`;
  return `+${seconds}s ${request.method} ${request.path} ${request.operation}${by} → ${status}${type}`;
}
