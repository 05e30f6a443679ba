import type { FetchLike } from '@a2a-tether/core';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';

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
 * dead connections itself); the headers timeout stays on.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): FetchLike & { dispatcher: Dispatcher } {
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
  return Object.assign(fetch, { dispatcher });
}

let shared: (FetchLike & { dispatcher: Dispatcher }) | undefined;

/** The process-wide fetch used by `connect()` when none is given (created on first use). */
export function defaultNodeFetch(): FetchLike {
  shared ??= createNodeFetch();
  return shared;
}
