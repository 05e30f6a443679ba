import type { FetchLike } from '@a2a-tether/core';

// Request headers a page may send to another origin without a preflight (the Fetch standard's
// CORS-safelisted request headers; Content-Type only with a form or text type, never JSON).
const SAFELISTED = new Set(['accept', 'accept-language', 'content-language']);

function pageOrigin(): string | undefined {
  const location = (globalThis as { location?: { origin?: unknown } }).location;
  return typeof location?.origin === 'string' && location.origin !== 'null' ? location.origin : undefined;
}

/**
 * Wraps the page's fetch so that its bare failure (`TypeError: Failed to fetch`, which hides whether
 * CORS refused the request or the agent is unreachable) says what a cross-origin agent must allow:
 * this page's origin, the method and the non-safelisted request headers the call sent. The original
 * error stays the `cause`; the core turns the failure into a `NETWORK` TetherError as before.
 */
export function withCorsHint(fetch: FetchLike): FetchLike {
  return async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      const target = new URL(input);
      const page = pageOrigin();
      if (page === undefined || page === target.origin) throw error;
      const headers: string[] = [];
      new Headers(init?.headers).forEach((_value, name) => {
        if (!SAFELISTED.has(name)) headers.push(name);
      });
      const method = init?.method ?? 'GET';
      throw new TypeError(
        `the browser gives no reason; likely CORS: ${target.origin} must allow origin ${page}, method ${method}` +
          `${headers.length > 0 ? ` and request headers ${headers.join(', ')}` : ''} ` +
          `(see "CORS: what your agent must allow" in the @a2a-tether/browser docs), or the agent is unreachable`,
        { cause: error },
      );
    }
  };
}
