import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TestAgentAuth } from './auth.js';

/**
 * An explicit CORS policy: a preflight that asks for a method or request header not listed here is
 * refused (403, no CORS headers, so the browser fails the call), and the page sees only the listed
 * response headers besides the CORS-safelisted ones.
 */
export interface TestAgentCors {
  /** Request headers a preflight may ask for (compared case-insensitively). */
  allowHeaders: readonly string[];
  /** Response headers the page may read, beyond the safelisted ones (`Content-Type`, `Cache-Control` …). */
  exposeHeaders: readonly string[];
  /** Methods a preflight may ask for. Default `GET, POST, DELETE`. */
  allowMethods?: readonly string[] | undefined;
  /** Page origins allowed (echoed back, with `Vary: Origin`). Default: any origin (`*`). */
  origins?: readonly string[] | undefined;
}

/**
 * What Tether's browser client needs, and nothing more (see docs/browser.md, "CORS: what your agent
 * must allow"). Request headers: `Content-Type` (JSON bodies), `A2A-Version` (v1.0 calls and the card
 * request), `A2A-Extensions` / `X-A2A-Extensions` (extensions asked for), `Last-Event-ID` (resuming
 * agents that number their events), `If-None-Match`, `If-Modified-Since` and `Cache-Control`
 * (revalidating a cached card). Credentials headers are added from the agent's `auth` by `'strict'`.
 * Exposed: `Retry-After` (backoff), `WWW-Authenticate` (auth errors), `ETag` and `Age` (card cache).
 */
export const STRICT_CORS: Readonly<TestAgentCors> = Object.freeze({
  allowHeaders: Object.freeze([
    'Content-Type',
    'A2A-Version',
    'A2A-Extensions',
    'X-A2A-Extensions',
    'Last-Event-ID',
    'If-None-Match',
    'If-Modified-Since',
    'Cache-Control',
  ]),
  exposeHeaders: Object.freeze(['Retry-After', 'WWW-Authenticate', 'ETag', 'Age']),
  allowMethods: Object.freeze(['GET', 'POST', 'DELETE']),
});

/** The CORS mode of a running agent: permissive, an explicit policy, or none. */
export type CorsMode = { kind: 'off' } | { kind: 'permissive' } | { kind: 'policy'; policy: TestAgentCors };

/** `'strict'` is {@link STRICT_CORS} plus the header the agent's credentials travel in. */
export function resolveCors(cors: boolean | 'strict' | TestAgentCors | undefined, auth: TestAgentAuth | undefined): CorsMode {
  if (cors === false) return { kind: 'off' };
  if (cors === undefined || cors === true) return { kind: 'permissive' };
  if (cors !== 'strict') return { kind: 'policy', policy: cors };
  const credentials: string[] = [];
  if (auth?.bearer !== undefined || auth?.basic !== undefined) credentials.push('Authorization');
  if (auth?.apiKey !== undefined && (auth.apiKey.header !== undefined || auth.apiKey.query === undefined)) {
    credentials.push(auth.apiKey.header ?? 'X-API-Key');
  }
  return { kind: 'policy', policy: { ...STRICT_CORS, allowHeaders: [...STRICT_CORS.allowHeaders, ...credentials] } };
}

/** Why a preflight is refused under `policy`, or `undefined` when it is allowed. */
function refusal(req: IncomingMessage, policy: TestAgentCors): string | undefined {
  const origin = req.headers.origin;
  if (policy.origins !== undefined && (origin === undefined || !policy.origins.includes(origin))) {
    return `origin ${origin ?? '(none)'} is not allowed`;
  }
  const method = (req.headers['access-control-request-method'] ?? '').toUpperCase();
  const methods = policy.allowMethods ?? STRICT_CORS.allowMethods ?? [];
  if (method !== '' && !methods.includes(method)) return `method ${method} is not allowed`;
  const allowed = new Set(policy.allowHeaders.map((h) => h.toLowerCase()));
  const asked = (req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  const extra = asked.filter((h) => !allowed.has(h));
  return extra.length > 0 ? `request header(s) ${extra.join(', ')} not allowed` : undefined;
}

function allowOrigin(req: IncomingMessage, res: ServerResponse, policy: TestAgentCors): boolean {
  if (policy.origins === undefined) {
    res.setHeader('Access-Control-Allow-Origin', '*');
    return true;
  }
  res.setHeader('Vary', 'Origin');
  const origin = req.headers.origin;
  if (origin === undefined || !policy.origins.includes(origin)) return false;
  res.setHeader('Access-Control-Allow-Origin', origin);
  return true;
}

/**
 * Adds the CORS headers of `mode` to `res`; answers a preflight (`OPTIONS`) itself and then returns
 * `true` (the request is handled).
 */
export function applyCors(req: IncomingMessage, res: ServerResponse, mode: CorsMode): boolean {
  if (mode.kind === 'off') return false;
  if (mode.kind === 'permissive') {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', '*');
    if (req.method !== 'OPTIONS') return false;
    // `*` does not cover Authorization in the Fetch spec, so echo what the browser asks for.
    const asked = req.headers['access-control-request-headers'];
    res.writeHead(204, {
      'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
      'Access-Control-Allow-Headers': asked === undefined || asked === '' ? '*' : asked,
      'Access-Control-Max-Age': '600',
    });
    res.end();
    return true;
  }
  const policy = mode.policy;
  if (req.method !== 'OPTIONS') {
    if (allowOrigin(req, res, policy) && policy.exposeHeaders.length > 0) {
      res.setHeader('Access-Control-Expose-Headers', policy.exposeHeaders.join(', '));
    }
    return false;
  }
  const refused = refusal(req, policy);
  if (refused !== undefined) {
    // No CORS headers: the browser fails the call without showing the page why.
    res.removeHeader('Vary');
    res.writeHead(403, { 'Content-Type': 'text/plain', Vary: 'Origin' });
    res.end(`CORS preflight refused: ${refused}`);
    return true;
  }
  allowOrigin(req, res, policy);
  res.writeHead(204, {
    'Access-Control-Allow-Methods': (policy.allowMethods ?? STRICT_CORS.allowMethods ?? []).join(', '),
    'Access-Control-Allow-Headers': policy.allowHeaders.join(', '),
    // No caching of preflights: a test that changes the policy sees the change at once.
    'Access-Control-Max-Age': '0',
  });
  res.end();
  return true;
}
