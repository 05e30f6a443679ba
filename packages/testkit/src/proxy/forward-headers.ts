import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

// RFC 9110 §7.6.1: these describe one connection, not the message, so a proxy must not pass them on.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Header names the `Connection` header declares hop-by-hop for this message. */
function connectionTokens(connection: string | undefined): Set<string> {
  const tokens = new Set<string>();
  for (const token of (connection ?? '').split(',')) {
    const name = token.trim().toLowerCase();
    if (name !== '') tokens.add(name);
  }
  return tokens;
}

/**
 * Request headers to send upstream: all but hop-by-hop ones, `host` (Node sets the target's) and the
 * names in `drop` (lower case).
 */
export function upstreamRequestHeaders(headers: IncomingHttpHeaders, drop: readonly string[] = []): OutgoingHttpHeaders {
  const declared = connectionTokens(headers.connection);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'host' || HOP_BY_HOP.has(name) || declared.has(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * Response headers to send the client, as a flat `[name, value, …]` list that keeps the agent's
 * spelling and repeated headers: all but hop-by-hop ones and the names in `drop` (lower case).
 */
export function clientResponseHeaders(rawHeaders: readonly string[], drop: readonly string[]): string[] {
  let connection: string | undefined;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]?.toLowerCase() === 'connection') connection = rawHeaders[i + 1];
  }
  const declared = connectionTokens(connection);
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || declared.has(lower) || drop.includes(lower)) continue;
    out.push(name, rawHeaders[i + 1] ?? '');
  }
  return out;
}
