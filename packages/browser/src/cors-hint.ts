import { TetherError, type FetchLike } from '@a2a-tether/core';

/**
 * Wraps the page's fetch so that its bare failure (`TypeError: Failed to fetch`, which hides whether
 * CORS refused the request or the agent is unreachable) is told apart: a lazily loaded probe (nothing of
 * it in the first load) asks whether the agent answers at all, within 1.5 s. If it does, CORS refused the
 * call: a `CORS_REFUSED` TetherError says what to allow or to use the relay. If not, the `TypeError` names
 * what a cross-origin agent must allow, or that it is unreachable; core makes it a `NETWORK` TetherError.
 */
export function withCorsHint(fetch: FetchLike): FetchLike {
  return (input, init) =>
    fetch(input, init).catch(async (error: unknown) => {
      const page = globalThis.location?.origin;
      // Offline, or the page's own origin: the browser's own error says enough.
      if (!(error instanceof TypeError) || !page || page === new URL(input).origin || globalThis.navigator?.onLine === false) throw error;
      // The probe's module imports nothing: handed TetherError, it splits no shared code off the first load.
      throw await (await import('./cors-probe.js')).explainRefusal(fetch, input, init, error, page, TetherError);
    });
}
