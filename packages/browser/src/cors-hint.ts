import type { FetchLike } from '@a2a-tether/core';

/**
 * Wraps the page's fetch so that its bare failure (`TypeError: Failed to fetch`, which hides whether
 * CORS refused the request or the agent is unreachable) names what a cross-origin agent must allow:
 * this page's origin, the method and the request headers that need allowing (all but the safelisted
 * `Accept` & co.). The original error stays the `cause`; core still makes it a `NETWORK` TetherError.
 */
export function withCorsHint(fetch: FetchLike): FetchLike {
  return (input, init) =>
    fetch(input, init).catch((error: unknown) => {
      const page = globalThis.location?.origin;
      const agent = new URL(input).origin;
      // Offline, the browser's own error says enough.
      if (!(error instanceof TypeError) || !page || page === agent || globalThis.navigator?.onLine === false) throw error;
      const headers = [...new Headers(init?.headers).keys()].filter((name) => !/^(accept|accept-language|content-language)$/.test(name));
      throw new TypeError(
        `the browser gives no reason; likely CORS: ${agent} must allow origin ${page}, method ${init?.method ?? 'GET'}` +
          `${headers.length > 0 ? ` and request headers ${headers.join(', ')}` : ''}, or the agent is unreachable`,
        { cause: error },
      );
    });
}
