import type { LookupAddress } from 'node:dns';
import { connect as coreConnect, TetherError, type A2AClient, type ConnectOptions } from '@a2a-tether/core';
import { parseAddress } from './address-kind.js';
import { guardedNodeFetch, type NodeFetch } from './node-fetch.js';
import { NetworkPolicy, type NetworkOptions } from './ssrf-guard.js';
import type { PushRelay } from './push/push-relay.js';

/** Options of node's {@link connect}: core's, plus the SSRF guard's settings. */
export interface NodeConnectOptions extends ConnectOptions {
  /**
   * Where Tether's own fetch may connect (the SSRF guard, on by default): URLs from the agent card
   * and redirects reach only public addresses over http(s), unless the URL you pass is itself local
   * (then loopback, private, link-local and unspecified addresses are allowed too) or `allow` lists
   * them. Cannot be combined with `fetch`: a fetch you pass is used as is (build a guarded one with
   * `createNodeFetch({ network })`). See docs/node.md, "Network settings and the SSRF guard".
   */
  network?: NetworkOptions | undefined;
}

const LOCAL_KINDS = new Set(['loopback', 'private', 'link-local', 'unspecified']);

/** Whether the URL the caller named is a local agent: its host is, or resolves to, a non-public address. */
async function isLocal(url: URL, policy: NetworkPolicy): Promise<boolean> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (parseAddress(host)) return LOCAL_KINDS.has(policy.kindOf(host));
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    policy.lookup(host, { all: true }, (error, found) => {
      // Unresolvable: the card request will say so (NETWORK); for the guard it is not local.
      resolve(error ? [] : Array.isArray(found) ? found : [{ address: found, family: 4 }]);
    });
  });
  return addresses.some((entry) => LOCAL_KINDS.has(policy.kindOf(entry.address)));
}

/**
 * Connects to an A2A agent from Node.js: `@a2a-tether/core`'s `connect()` over undici (keep-alive
 * agent, no body timeout for long silent streams) with the SSRF guard on, unless `options.fetch`
 * is given.
 *
 * @throws TetherError `ADDRESS_NOT_ALLOWED` when the card or a redirect leads where `network`
 *   does not allow (also from later calls of the client), besides everything core's `connect()` throws.
 */
/**
 * Several replicas on one Redis: a push receiver and a store that can relay (the Redis task store) are wired
 * together, so a push that reaches any replica gets to the one following its task (see `PushRelay`).
 */
function shareReceiver(options: ConnectOptions): void {
  const receiver = options.push?.receiver as { useRelay?: (relay: PushRelay) => void } | undefined;
  const store = options.store as { pushRelay?: () => PushRelay | undefined } | undefined;
  if (typeof receiver?.useRelay !== 'function' || typeof store?.pushRelay !== 'function') return;
  const relay = store.pushRelay();
  if (relay) receiver.useRelay(relay);
}

/** Streams a client with Tether's own undici pool (1,024 sockets per origin) holds open at once. */
export const NODE_MAX_STREAMS = 1_000;

export async function connect(url: string | URL, options: NodeConnectOptions = {}): Promise<A2AClient> {
  const { network, ...rest } = options;
  let fetch = options.fetch;
  // Tether's own pool has 1,024 sockets per origin: streams may take 1,000 of them, the rest stay for
  // GetTask, cancels and sends, so a follow never waits on a socket without end.
  const ownPool = fetch === undefined;
  if (fetch) {
    if (network) {
      throw new TetherError('INVALID_ARGUMENT', 'connect: `network` applies to Tether\'s own fetch; with `fetch`, pass createNodeFetch({ network }) as that fetch');
    }
  } else {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      // core's connect() reports the bad URL
    }
    let allowPrivate = network?.allowPrivate;
    if (allowPrivate === undefined && parsed) allowPrivate = await isLocal(parsed, new NetworkPolicy(network ?? {}));
    fetch = guardedNodeFetch({ ...network, allowPrivate: allowPrivate ?? false });
  }
  shareReceiver(rest);
  const stream = (fetch as Partial<NodeFetch>).stream;
  return coreConnect(url, {
    ...rest,
    fetch,
    ...(stream && options.streamFetch === undefined ? { streamFetch: stream } : {}),
    ...(ownPool && options.maxStreams === undefined ? { maxStreams: NODE_MAX_STREAMS } : {}),
  });
}
