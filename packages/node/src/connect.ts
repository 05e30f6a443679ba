import { connect as coreConnect, type A2AClient, type ConnectOptions } from '@a2a-tether/core';
import { defaultNodeFetch, type NodeFetch } from './node-fetch.js';

/**
 * Connects to an A2A agent from Node.js: `@a2a-tether/core`'s `connect()` with undici's fetch
 * (keep-alive agent, no body timeout for long silent streams) unless `options.fetch` is given.
 */
export function connect(url: string | URL, options: ConnectOptions = {}): Promise<A2AClient> {
  const fetch = options.fetch ?? defaultNodeFetch();
  const stream = (fetch as Partial<NodeFetch>).stream;
  return coreConnect(url, { ...options, fetch, ...(stream && options.streamFetch === undefined ? { streamFetch: stream } : {}) });
}
