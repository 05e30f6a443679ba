import type { FetchLike, TetherError } from '@a2a-tether/core';

/** How long the probe that tells a CORS refusal from an unreachable agent may take. */
export const CORS_PROBE_MS = 1500;

// Request headers a browser sends cross-origin without asking first (CORS-safelisted), Content-Type aside.
const SAFELISTED = /^(accept|accept-language|content-language)$/;
const SIMPLE_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)(;|$)/i;

/**
 * What a cross-origin fetch that failed with a bare `TypeError` means. A `no-cors` HEAD of the same URL
 * (opaque: nothing of the answer is read, no preflight) that gets any answer shows the agent is up, so
 * the browser refused the call for CORS: a `CORS_REFUSED` TetherError naming what the agent must allow,
 * or the relay. A call that needed a preflight (Tether's always do: a JSON body, `A2A-Version`) was
 * refused before it was sent, so it is known not delivered. When the probe gets no answer (or none
 * within {@link CORS_PROBE_MS}), the agent may be down: a `TypeError` naming both causes, as before.
 */
export async function explainRefusal(
  fetch: FetchLike,
  input: string | URL,
  init: RequestInit | undefined,
  error: TypeError,
  page: string,
  Refusal: typeof TetherError,
): Promise<Error> {
  const agent = new URL(input).origin;
  const method = init?.method ?? 'GET';
  const headers = [...new Headers(init?.headers)].filter(([name, value]) => !SAFELISTED.test(name) && !(name === 'content-type' && SIMPLE_TYPE.test(value))).map(([name]) => name);
  const allow = `${agent} must allow origin ${page}, method ${method}${headers.length > 0 ? ` and request headers ${headers.join(', ')}` : ''}`;
  const signals = [AbortSignal.timeout(CORS_PROBE_MS), ...(init?.signal ? [init.signal] : [])];
  const answered = await fetch(input, { method: 'HEAD', mode: 'no-cors', credentials: 'omit', cache: 'no-store', signal: AbortSignal.any(signals) }).then(
    () => true,
    () => false,
  );
  if (!answered) return new TypeError(`the browser gives no reason; likely CORS: ${allow}, or the agent is unreachable`, { cause: error });
  const preflighted = headers.length > 0 || !/^(GET|HEAD|POST)$/.test(method);
  return new Refusal(
    'CORS_REFUSED',
    `CORS refused: the agent answers, but not to this page: ${allow} — or call it through a relay route on this page's own origin (@a2a-tether/node/relay).` +
      (preflighted ? ' The browser refused before sending (preflight): nothing was delivered.' : ''),
    { cause: error, isRetryable: false, maybeDelivered: !preflighted },
  );
}
