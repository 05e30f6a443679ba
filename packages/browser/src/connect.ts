import { connectWithParts, TetherError, type A2AClient, type ConnectOptions } from '@a2a-tether/core';
import { pageNetworkSignals } from './lifecycle.js';
import { createTabCoordinator } from './tabs.js';
import { withCorsHint } from './cors-hint.js';

/** Options of the browser's {@link connect}: core's, plus tabs and page lifecycle. */
export interface BrowserConnectOptions extends ConnectOptions {
  /**
   * Many tabs, one connection per task: a Web Lock elects the tab that streams each task; the other tabs'
   * handles mirror it over a BroadcastChannel (same events, nothing opened) and one takes over when it
   * goes. Needs a store the tabs share (`createIndexedDbTaskStore()`). `scope` names the group of tabs
   * (default: the URL passed to `connect`). Where Web Locks or BroadcastChannel are missing, every tab
   * streams its own tasks. Default `false`.
   */
  tabs?: boolean | { scope?: string | undefined } | undefined;
  /**
   * Follow the page's network and lifecycle (default `true`): no attempt while offline; retry at once
   * (with a little jitter) on `online`, when the page is shown again, and after the back/forward cache.
   */
  lifecycle?: boolean | undefined;
}

/**
 * Connects to an A2A agent from a browser: `@a2a-tether/core`'s `connect()` with the page's `fetch`, the
 * page's network signals, and — with `tabs` — one streaming tab per task. The agent must allow the page's
 * origin with CORS (docs/browser.md lists the headers); when the page's fetch fails without a reason, the
 * `NETWORK` error names what a cross-origin agent must allow.
 *
 * Push delivery and stores that lease tasks (several processes sharing them) are for servers: their
 * code is not in this package, and `push` or a leasing store is refused.
 *
 * @throws TetherError `INVALID_ARGUMENT` for `tabs` without a `store` (memory is not shared between tabs),
 *   for `push` or a store that leases tasks, and whatever core's `connect()` throws.
 */
export function connect(url: string | URL, options: BrowserConnectOptions = {}): Promise<A2AClient> {
  const { tabs, lifecycle, ...core } = options;
  let coordinator = core.coordinator;
  if (tabs && !coordinator) {
    if (!core.store) {
      return Promise.reject(
        new TetherError('INVALID_ARGUMENT', 'connect: `tabs` needs a store the tabs share, e.g. `store: createIndexedDbTaskStore()`', { maybeDelivered: false }),
      );
    }
    coordinator = createTabCoordinator((typeof tabs === 'object' ? tabs.scope : undefined) ?? String(url));
  }
  // Neither push delivery nor leases: a web app's bundle holds neither's code (connect refuses both).
  return connectWithParts({}, url, {
    ...core,
    // Trace headers cross origins only where the app says the agent's CORS allows them.
    traceHeaders: core.traceHeaders ?? 'same-origin',
    fetch: core.fetch ?? withCorsHint(globalThis.fetch.bind(globalThis)),
    coordinator,
    networkSignals: core.networkSignals ?? (lifecycle === false ? undefined : pageNetworkSignals()),
  });
}
