import { Buffer } from 'node:buffer';
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

const REALM = 'a2a-testkit';

/** Credentials the agent accepts. Any configured scheme is enough (OR). */
export interface TestAgentAuth {
  /** Accepted bearer tokens (`Authorization: Bearer <token>`). */
  bearer?: string[] | undefined;
  /** API keys in a header (default `X-API-Key`) and/or a query parameter (when `query` is set). */
  apiKey?: { header?: string | undefined; query?: string | undefined; values: string[] } | undefined;
  /** HTTP Basic credentials. */
  basic?: { username: string; password: string } | undefined;
}

/** Card security declarations in the three dialects (v1 ProtoJSON, v0.3 JSON, v0.3 proto JSON). */
export interface SecurityDeclarations {
  v1Schemes: Record<string, unknown>;
  v1Requirements: unknown[];
  v03Schemes: Record<string, unknown>;
  v03Security: unknown[];
  v03ProtoSchemes: Record<string, unknown>;
  v03ProtoSecurity: unknown[];
}

function apiKeyLocations(auth: TestAgentAuth): { header?: string; query?: string } {
  const apiKey = auth.apiKey;
  if (apiKey === undefined) return {};
  const out: { header?: string; query?: string } = {};
  // Header is the default; it is only absent when the caller asked for the query parameter alone.
  if (apiKey.header !== undefined || apiKey.query === undefined) out.header = apiKey.header ?? 'X-API-Key';
  if (apiKey.query !== undefined) out.query = apiKey.query;
  return out;
}

/** Scheme names: `bearer`, `apiKey` (header), `apiKeyQuery`, `basic`. Each is an alternative (OR). */
export function securityDeclarations(auth: TestAgentAuth): SecurityDeclarations {
  const names: string[] = [];
  const v1Schemes: Record<string, unknown> = {};
  const v03Schemes: Record<string, unknown> = {};
  const v03ProtoSchemes: Record<string, unknown> = {};
  if (auth.bearer !== undefined) {
    names.push('bearer');
    v1Schemes['bearer'] = { httpAuthSecurityScheme: { scheme: 'Bearer' } };
    v03Schemes['bearer'] = { type: 'http', scheme: 'bearer' };
    v03ProtoSchemes['bearer'] = { httpAuthSecurityScheme: { scheme: 'Bearer' } };
  }
  const { header, query } = apiKeyLocations(auth);
  if (header !== undefined) {
    names.push('apiKey');
    v1Schemes['apiKey'] = { apiKeySecurityScheme: { location: 'header', name: header } };
    v03Schemes['apiKey'] = { type: 'apiKey', in: 'header', name: header };
    v03ProtoSchemes['apiKey'] = { apiKeySecurityScheme: { location: 'header', name: header } };
  }
  if (query !== undefined) {
    names.push('apiKeyQuery');
    v1Schemes['apiKeyQuery'] = { apiKeySecurityScheme: { location: 'query', name: query } };
    v03Schemes['apiKeyQuery'] = { type: 'apiKey', in: 'query', name: query };
    v03ProtoSchemes['apiKeyQuery'] = { apiKeySecurityScheme: { location: 'query', name: query } };
  }
  if (auth.basic !== undefined) {
    names.push('basic');
    v1Schemes['basic'] = { httpAuthSecurityScheme: { scheme: 'Basic' } };
    v03Schemes['basic'] = { type: 'http', scheme: 'basic' };
    v03ProtoSchemes['basic'] = { httpAuthSecurityScheme: { scheme: 'Basic' } };
  }
  return {
    v1Schemes,
    // ProtoJSON leaves the empty scope list out: `{"schemes":{"bearer":{}}}`.
    v1Requirements: names.map((name) => ({ schemes: { [name]: {} } })),
    v03Schemes,
    v03Security: names.map((name) => ({ [name]: [] })),
    v03ProtoSchemes,
    v03ProtoSecurity: names.map((name) => ({ schemes: { [name]: {} } })),
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The result of checking a request's credentials. */
export type AuthCheck = { ok: true } | { ok: false; challenges: string[]; message: string };

/** Check a request against the configured credentials; any accepted scheme passes. */
export function checkCredentials(auth: TestAgentAuth, headers: IncomingHttpHeaders, query: URLSearchParams): AuthCheck {
  const authorization = headerValue(headers, 'authorization') ?? '';
  const [scheme = '', ...rest] = authorization.split(' ');
  const credentials = rest.join(' ').trim();
  const challenges: string[] = [];
  let presentedBearer = false;

  if (auth.bearer !== undefined) {
    if (scheme.toLowerCase() === 'bearer') {
      presentedBearer = true;
      if (auth.bearer.some((token) => safeEqual(token, credentials))) return { ok: true };
    }
    challenges.push(
      presentedBearer ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`,
    );
  }
  const { header, query: queryName } = apiKeyLocations(auth);
  const keys = auth.apiKey?.values ?? [];
  if (header !== undefined) {
    const presented = headerValue(headers, header);
    if (presented !== undefined && keys.some((key) => safeEqual(key, presented))) return { ok: true };
    challenges.push(`ApiKey realm="${REALM}", in="header", name="${header}"`);
  }
  if (queryName !== undefined) {
    const presented = query.get(queryName);
    if (presented !== null && keys.some((key) => safeEqual(key, presented))) return { ok: true };
    challenges.push(`ApiKey realm="${REALM}", in="query", name="${queryName}"`);
  }
  if (auth.basic !== undefined) {
    if (scheme.toLowerCase() === 'basic') {
      const decoded = Buffer.from(credentials, 'base64').toString('utf8');
      if (safeEqual(decoded, `${auth.basic.username}:${auth.basic.password}`)) return { ok: true };
    }
    challenges.push(`Basic realm="${REALM}"`);
  }
  const message = authorization === '' ? 'Missing credentials' : 'Invalid credentials';
  return { ok: false, challenges, message };
}
