import type { SelectedInterface } from '../card/card-types.js';
import type { HttpClient } from '../http/http-client.js';
import type { Dialect } from '../protocol/dialect.js';
import type { CustomBinding } from './custom-binding.js';
import type { CallOptions } from './transport.js';

/** What a binding needs to talk to one interface. */
export interface TransportContext {
  http: HttpClient;
  iface: SelectedInterface;
  /** Extension URIs activated on every call. */
  extensions: string[];
  maxEventSize: number;
  /** The caller's own bindings (`connect(url, { bindings })`). */
  custom?: readonly CustomBinding[] | undefined;
}

/** The protocol headers of a call: version (v1.0 only), extensions (per version), then the caller's. */
export function protocolHeaders(
  context: TransportContext,
  options: CallOptions | undefined,
  accept: string,
): Record<string, string> {
  const headers: Record<string, string> = { Accept: accept };
  const v1 = context.iface.protocolVersion === '1.0';
  if (v1) headers['A2A-Version'] = '1.0';
  const extensions = [...new Set([...context.extensions, ...(options?.extensions ?? [])])];
  if (extensions.length > 0) headers[v1 ? 'A2A-Extensions' : 'X-A2A-Extensions'] = extensions.join(', ');
  return { ...headers, ...options?.headers };
}

/** The dialect of a binding × version. */
export function dialectOf(context: TransportContext): Dialect {
  if (context.iface.protocolVersion === '1.0') return 'v1';
  return context.iface.binding === 'JSONRPC' ? 'v03' : 'v03-proto';
}
