import type { NetworkSignals } from '@a2a-tether/core';

/**
 * The page's network and lifecycle signals for the task engine: `navigator.onLine` (no attempt is made
 * while the browser says it is offline), and a wake — retry now rather than at the end of a backoff or
 * poll wait — on `online`, when the page becomes visible (`visibilitychange`), and when it comes back
 * from the back/forward cache (`pageshow` with `persisted`) or from being frozen (`resume`). The engine
 * adds a random delay of up to a second after a wake, so that many tabs and clients do not all call the
 * agent at once. One set of listeners per page, added while some task waits.
 *
 * Returns `undefined` outside a page (no `window`).
 */
export function pageNetworkSignals(): NetworkSignals | undefined {
  if (typeof window === 'undefined' || typeof document === 'undefined') return undefined;
  return sharedSignals;
}

const wakes = new Set<() => void>();
let listening = false;

function wakeAll(): void {
  for (const wake of [...wakes]) wake();
}

function onVisibility(): void {
  if (document.visibilityState === 'visible') wakeAll();
}

function onPageShow(event: Event): void {
  if ((event as PageTransitionEvent).persisted) wakeAll();
}

function listen(on: boolean): void {
  if (on === listening) return;
  listening = on;
  const method = on ? 'addEventListener' : 'removeEventListener';
  window[method]('online', wakeAll);
  window[method]('pageshow', onPageShow);
  document[method]('visibilitychange', onVisibility);
  document[method]('resume', wakeAll);
}

const sharedSignals: NetworkSignals = {
  online: () => navigator.onLine !== false,
  onWake(listener) {
    wakes.add(listener);
    listen(true);
    return () => {
      wakes.delete(listener);
      if (wakes.size === 0) listen(false);
    };
  },
};
