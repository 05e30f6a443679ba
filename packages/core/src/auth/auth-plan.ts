import type { SecurityRequirement, SecurityScheme } from '../card/card-types.js';
import type { AuthOptions, TokenProvider } from './auth-options.js';

/** One credential to attach: a header, a query parameter, or a cookie. */
export interface PlannedCredential {
  placement: 'header' | 'query' | 'cookie';
  name: string;
  /** Prefix before the secret, e.g. `Bearer `. */
  prefix: string;
  secret: TokenProvider;
  /** The card scheme it satisfies, if any (for diagnostics). */
  scheme?: string | undefined;
}

const DEFAULT_API_KEY_HEADER = 'X-API-Key';

function encodeBasic(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function forScheme(name: string, scheme: SecurityScheme, auth: AuthOptions): PlannedCredential | null | undefined {
  switch (scheme.type) {
    case 'http': {
      const kind = scheme.scheme.toLowerCase();
      if (kind === 'bearer' && auth.bearer !== undefined) {
        return { placement: 'header', name: 'Authorization', prefix: 'Bearer ', secret: auth.bearer, scheme: name };
      }
      if (kind === 'basic' && auth.basic) {
        const value = encodeBasic(auth.basic.username, auth.basic.password);
        return { placement: 'header', name: 'Authorization', prefix: 'Basic ', secret: value, scheme: name };
      }
      return undefined;
    }
    case 'apiKey':
      if (auth.apiKey === undefined) return undefined;
      return { placement: scheme.location, name: scheme.name, prefix: '', secret: auth.apiKey, scheme: name };
    case 'oauth2':
    case 'openIdConnect':
      if (auth.bearer === undefined) return undefined;
      return { placement: 'header', name: 'Authorization', prefix: 'Bearer ', secret: auth.bearer, scheme: name };
    case 'mutualTLS':
      // Satisfied below HTTP (the fetch's TLS client certificate), nothing to attach.
      return null;
  }
}

/**
 * Chooses the credentials to send: the first requirement of the card (an OR list of AND sets)
 * that the given credentials fully satisfy, preferring requirements that put API keys in
 * headers over query strings (query strings end up in logs). Without a satisfiable requirement,
 * falls back to what was given: bearer, else an API key header, else basic.
 */
export function planCredentials(
  auth: AuthOptions,
  schemes: Record<string, SecurityScheme>,
  requirements: SecurityRequirement[],
): PlannedCredential[] {
  let best: { creds: PlannedCredential[]; queryCount: number } | undefined;
  for (const requirement of requirements) {
    const creds: PlannedCredential[] = [];
    let ok = true;
    for (const schemeName of Object.keys(requirement)) {
      const scheme = schemes[schemeName];
      const cred = scheme ? forScheme(schemeName, scheme, auth) : undefined;
      if (cred === undefined) {
        ok = false;
        break;
      }
      if (cred) creds.push(cred);
    }
    if (!ok) continue;
    const queryCount = creds.filter((c) => c.placement === 'query').length;
    if (!best || queryCount < best.queryCount) best = { creds, queryCount };
  }
  if (best) return best.creds;

  if (auth.bearer !== undefined) return [{ placement: 'header', name: 'Authorization', prefix: 'Bearer ', secret: auth.bearer }];
  if (auth.apiKey !== undefined) {
    const declared = Object.entries(schemes)
      .filter((e): e is [string, Extract<SecurityScheme, { type: 'apiKey' }>] => e[1].type === 'apiKey')
      .sort((a, b) => Number(b[1].location === 'header') - Number(a[1].location === 'header'))[0];
    return [
      declared
        ? { placement: declared[1].location, name: declared[1].name, prefix: '', secret: auth.apiKey, scheme: declared[0] }
        : { placement: 'header', name: DEFAULT_API_KEY_HEADER, prefix: '', secret: auth.apiKey },
    ];
  }
  if (auth.basic) {
    const value = encodeBasic(auth.basic.username, auth.basic.password);
    return [{ placement: 'header', name: 'Authorization', prefix: 'Basic ', secret: value }];
  }
  return [];
}
