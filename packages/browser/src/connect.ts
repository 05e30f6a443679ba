import { connect as coreConnect, type A2AClient, type ConnectOptions } from '@a2a-tether/core';
import { withCorsHint } from './cors-hint.js';

/**
 * Connects to an A2A agent from a browser: `@a2a-tether/core`'s `connect()` with the page's
 * `fetch` (the agent must allow the page's origin with CORS, including the `A2A-Version` header). When
 * that fetch fails without a reason, the `NETWORK` error names what a cross-origin agent must allow.
 */
export function connect(url: string | URL, options: ConnectOptions = {}): Promise<A2AClient> {
  return coreConnect(url, { ...options, fetch: options.fetch ?? withCorsHint(globalThis.fetch.bind(globalThis)) });
}
