import type { FetchLike } from '@a2a-tether/core';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { streamRequest, wantsEventStream } from './stream-request.js';

/** Options of {@link createNodeFetch}. */
export interface NodeFetchOptions {
  /** TCP+TLS connect timeout (ms). Default 10 000. */
  connectTimeoutMs?: number | undefined;
  /** How long an idle keep-alive socket is kept (ms). Default 10 000. */
  keepAliveTimeoutMs?: number | undefined;
  /**
   * Sockets per origin. Default 1024: every task followed over SSE holds one, so a low limit would
   * make the next `start()` wait for another task to end.
   */
  connections?: number | undefined;
  /** Use your own undici dispatcher (proxy, mTLS client certificate …) instead. */
  dispatcher?: Dispatcher | undefined;
}

/**
 * A fetch over undici with one keep-alive `Agent`. The body timeout is off, because A2A agents
 * send no heartbeats and a healthy task may be silent for minutes (Tether's task engine detects
 * dead connections itself); the headers timeout stays on. Passed to `connect()`, Tether reads its
 * event streams through `dispatcher.request()` on the same agent (no WHATWG streams: less memory
 * per open stream, less time per chunk); everything else, and any other use, is plain fetch.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  const dispatcher =
    options.dispatcher ??
    new Agent({
      connect: { timeout: options.connectTimeoutMs ?? 10_000 },
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
      connections: options.connections ?? 1024,
      headersTimeout: 60_000,
      bodyTimeout: 0,
    });
  const fetch = ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1])) as unknown as FetchLike;
  const stream = ((input: string | URL, init?: RequestInit) =>
    wantsEventStream(init) ? streamRequest(dispatcher, input, init as RequestInit) : fetch(input, init)) as FetchLike;
  return Object.assign(fetch, { dispatcher, stream });
}

/** A fetch from {@link createNodeFetch}: undici's fetch on one dispatcher. */
export type NodeFetch = FetchLike & {
  dispatcher: Dispatcher;
  /**
   * @internal What Tether uses for event streams on the same dispatcher: `dispatcher.request()`,
   * answering with only the parts of a `Response` Tether reads (not a full `Response`).
   */
  stream: FetchLike;
};

let shared: NodeFetch | undefined;

/** The process-wide fetch used by `connect()` when none is given (created on first use). */
export function defaultNodeFetch(): NodeFetch {
  shared ??= createNodeFetch();
  return shared;
}
