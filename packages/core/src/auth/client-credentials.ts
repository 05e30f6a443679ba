// OAuth 2.0 client credentials (RFC 6749 §4.4) for `connect(url, { auth: { oauth2 } })`: a token from the
// token endpoint, kept in memory only until shortly before it expires, fetched again after a 401. Loaded by
// `import()` on the first request that needs a token: an app without OAuth never loads it.
import { TetherError } from '../errors/tether-error.js';
import type { AgentCard } from '../card/card-types.js';
import type { FetchLike } from '../http/fetch-like.js';
import type { OAuth2ClientCredentials, TokenRequest } from './auth-options.js';

/** What `connect()` hands over for `auth.oauth2`: the options, the card, who may receive the secret. */
export interface ClientCredentialsSetup {
  options: OAuth2ClientCredentials;
  card: AgentCard;
  /** The agent's origin and `auth.origins`: a token URL from the card must be on one of them. */
  allowedOrigins: readonly string[];
  fetch: FetchLike;
  now: () => number;
  state?: TokenState | undefined;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

/**
 * The token endpoint: `options.tokenUrl`, else the card's client-credentials flow — then only on an origin the
 * caller allowed (the agent's, or `auth.origins`) and over https (http on loopback): a card must not be able
 * to send the client secret anywhere it likes.
 */
function tokenUrlOf(setup: ClientCredentialsSetup): string {
  if (setup.options.tokenUrl !== undefined) return setup.options.tokenUrl;
  const flows = Object.values(setup.card.securitySchemes).flatMap((s) => (s.type === 'oauth2' && s.flows.clientCredentials?.tokenUrl ? [s.flows.clientCredentials.tokenUrl] : []));
  const refuse = (why: string): TetherError => new TetherError('INVALID_ARGUMENT', `auth.oauth2: ${why}`, { operation: 'OAuth2 token', maybeDelivered: false });
  const found = flows[0];
  if (found === undefined) throw refuse(`the card of "${setup.card.name}" has no OAuth 2.0 client-credentials flow: pass tokenUrl`);
  let url: URL;
  try {
    url = new URL(found);
  } catch {
    throw refuse(`the card's token URL is not a URL: ${found.slice(0, 200)}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) throw refuse(`the card's token URL ${url.origin} is not https: pass tokenUrl to use it anyway`);
  if (!setup.allowedOrigins.includes(url.origin)) {
    throw refuse(`the card's token URL is on ${url.origin}, which is neither the agent's origin nor in auth.origins: the client secret is not sent there (add it to auth.origins, or pass tokenUrl)`);
  }
  return url.href;
}

/** The bearer token for a request, through the client-credentials grant (`connect(url, { auth: { oauth2 } })`). */
export function bearerFor(setup: ClientCredentialsSetup, request: TokenRequest): Promise<string> {
  try {
    setup.state ??= { options: setup.options, tokenUrl: tokenUrlOf(setup), fetch: setup.fetch, now: setup.now };
  } catch (error) {
    return Promise.reject(error);
  }
  return accessToken(setup.state, request);
}

/** What one client's token source keeps between requests (memory only: never written anywhere). */
export interface TokenState {
  options: OAuth2ClientCredentials;
  /** The token endpoint: the caller's, or the card's (already checked to be one the caller allowed). */
  tokenUrl: string;
  fetch: FetchLike;
  now: () => number;
  token?: { value: string; expiresAt: number } | undefined;
  pending?: Promise<string> | undefined;
}

/** A token is fetched again this long before it expires (clocks differ, requests take time). */
const EXPIRY_MARGIN_MS = 30_000;
/** When the endpoint says nothing of expiry, the token is used until the agent refuses it (then one refresh). */
const NO_EXPIRY = Number.POSITIVE_INFINITY;

function basic(id: string, secret: string): string {
  // RFC 6749 §2.3.1: the client id and secret form-encoded, then HTTP Basic.
  const bytes = new TextEncoder().encode(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}

async function fetchToken(state: TokenState, signal: AbortSignal | undefined): Promise<string> {
  const { options } = state;
  const secret = typeof options.clientSecret === 'string' ? options.clientSecret : await options.clientSecret({ forceRefresh: false, signal });
  const body = new URLSearchParams({ grant_type: 'client_credentials' });
  if (options.scopes && options.scopes.length > 0) body.set('scope', options.scopes.join(' '));
  if (options.audience !== undefined) body.set('audience', options.audience);
  const where = { operation: 'OAuth2 token', url: state.tokenUrl };
  let response: Response;
  try {
    response = (await state.fetch(state.tokenUrl, {
      method: 'POST',
      headers: { Authorization: basic(options.clientId, secret), 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: body.toString(),
      ...(signal ? { signal } : {}),
    })) as Response;
  } catch (error) {
    throw new TetherError('NETWORK', `the token endpoint could not be reached: ${error instanceof Error ? error.message : String(error)}`, { ...where, cause: error });
  }
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // described below
  }
  if (!response.ok) {
    // RFC 6749 §5.2: { error, error_description }; never the secret (it is not in the answer).
    const reason = typeof json['error'] === 'string' ? `${json['error']}${typeof json['error_description'] === 'string' ? `: ${json['error_description'].slice(0, 200)}` : ''}` : `HTTP ${response.status}`;
    const code = response.status === 400 || response.status === 401 || response.status === 403 ? 'UNAUTHENTICATED' : 'HTTP_STATUS';
    throw new TetherError(code, `the token endpoint refused the client credentials (${reason})`, { ...where, status: response.status });
  }
  const value = json['access_token'];
  if (typeof value !== 'string' || value === '') throw new TetherError('INVALID_RESPONSE', 'the token endpoint answered without an access_token', { ...where, status: response.status });
  const expiresIn = json['expires_in'];
  const lifetime = typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn * 1000 : NO_EXPIRY;
  state.token = { value, expiresAt: state.now() + Math.max(lifetime - EXPIRY_MARGIN_MS, lifetime / 2) };
  return value;
}

/**
 * The access token for a request: the one held while it is fresh; otherwise (or after a 401:
 * `forceRefresh`) one new token, shared by every request that asks meanwhile.
 */
export function accessToken(state: TokenState, request: TokenRequest): Promise<string> {
  if (request.forceRefresh) state.token = undefined;
  if (state.token && state.now() < state.token.expiresAt) return Promise.resolve(state.token.value);
  state.pending ??= fetchToken(state, request.signal).finally(() => (state.pending = undefined));
  return state.pending;
}
