import { TetherError, type FetchLike } from '@a2a-tether/core';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { guardRefusal, NetworkPolicy, type NetworkOptions } from './ssrf-guard.js';
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
  /** Use your own undici dispatcher (proxy, mTLS client certificate …) instead (then `network` cannot apply). */
  dispatcher?: Dispatcher | undefined;
  /**
   * Turns the SSRF guard on for this fetch (see {@link NetworkOptions}): only http(s) URLs, and
   * only addresses the options allow, checked on every connection. Left out: no guard (what
   * `connect()` does when you pass it no fetch is guard on, see its `network` option).
   */
  network?: NetworkOptions | undefined;
}

// How long to wait for the response headers (ms): long enough for an agent that thinks before it
// answers a unary call; the caller's `timeoutMs` is usually shorter and wins.
const HEADERS_TIMEOUT_MS = 60_000;

/**
 * A fetch over undici with one keep-alive `Agent`. The body timeout is off, because A2A agents
 * send no heartbeats and a healthy task may be silent for minutes (Tether's task engine detects
 * dead connections itself); the headers timeout stays on. Passed to `connect()`, Tether reads its
 * event streams through `dispatcher.request()` on the same agent (no WHATWG streams: less memory
 * per open stream, less time per chunk); everything else, and any other use, is plain fetch.
 */
export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  if (options.dispatcher && options.network) {
    throw new TetherError('INVALID_ARGUMENT', 'createNodeFetch: `network` guards the agent Tether creates; it cannot apply to your `dispatcher`');
  }
  const policy = options.network ? new NetworkPolicy(options.network) : undefined;
  const connect = { timeout: options.connectTimeoutMs ?? 10_000 };
  const dispatcher =
    options.dispatcher ??
    new Agent({
      connect: policy ? policy.connector(connect) : connect,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
      connections: options.connections ?? 1024,
      headersTimeout: HEADERS_TIMEOUT_MS,
      bodyTimeout: 0,
    });
  const plain = ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1])) as unknown as FetchLike;
  const plainStream = ((input: string | URL, init?: RequestInit) =>
    wantsEventStream(init) ? streamRequest(dispatcher, input, init as RequestInit) : plain(input, init)) as FetchLike;
  const fetch = policy ? guarded(policy, plain) : plain;
  const stream = policy ? guarded(policy, plainStream) : plainStream;
  return Object.assign(fetch, { dispatcher, stream });
}

/**
 * Checks the URL before anything is sent (scheme, IP-literal host), and hands back the guard's own
 * refusal instead of undici's "fetch failed" wrapper when the connector refused an address.
 */
function guarded(policy: NetworkPolicy, fetch: FetchLike): FetchLike {
  return async (input, init) => {
    const refused = policy.checkUrl(input);
    if (refused) throw refused;
    try {
      return await fetch(input, init);
    } catch (error) {
      throw guardRefusal(error) ?? error;
    }
  };
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

/**
 * A process-wide fetch with Tether's Node settings and no SSRF guard (created on first use): for
 * wrapping in your own fetch. `connect()` without `fetch` uses guarded ones instead.
 */
export function defaultNodeFetch(): NodeFetch {
  shared ??= createNodeFetch();
  return shared;
}

const guardedShared = new Map<string, NodeFetch>();

/**
 * @internal The guarded fetch `connect()` uses for a `network` setting: one per distinct setting in
 * the process (typically two: public only, and public plus private), so keep-alive sockets are
 * shared by the clients of one setting and never reused by a stricter one. Settings with a custom
 * `classify` or `lookup` get a fresh fetch each time (functions cannot be compared).
 */
export function guardedNodeFetch(network: NetworkOptions): NodeFetch {
  if (network.classify || network.lookup) return createNodeFetch({ network });
  const key = JSON.stringify([[...(network.allow ?? [])].sort(), network.allowPrivate ?? false]);
  let fetch = guardedShared.get(key);
  if (!fetch) {
    fetch = createNodeFetch({ network });
    guardedShared.set(key, fetch);
  }
  return fetch;
}
