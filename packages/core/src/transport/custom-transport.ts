import { TetherError } from '../errors/tether-error.js';
import type { CustomBinding } from './custom-binding.js';
import type { Transport } from './transport.js';
import type { TransportContext } from './transport-context.js';

/** The headers a request to `url` would carry: the client's, then the credentials `auth` allows for that origin. */
async function headersFor(context: TransportContext, url: string, signal?: AbortSignal): Promise<Record<string, string>> {
  const { credentials, headers } = context.http.options;
  if (!URL.canParse(url)) throw new TetherError('INVALID_ARGUMENT', `headers(url): not a URL: ${url.slice(0, 200)} (pass the http(s) URL the connection goes to)`, { maybeDelivered: false });
  // A WebSocket's handshake is an HTTP request to the same host and port: ws(s) counts as http(s) here.
  const target = new URL(url);
  if (target.protocol === 'ws:' || target.protocol === 'wss:') target.protocol = target.protocol === 'ws:' ? 'http:' : 'https:';
  const applied = credentials ? await credentials.apply(target, 'GET', false, signal) : undefined;
  return { ...headers, ...applied?.headers };
}

/** The transport of a binding of the caller's own (`connect(url, { bindings })`); what it throws is a `TetherError`. */
export async function createCustom(own: CustomBinding, context: TransportContext): Promise<Transport> {
  const { iface } = context;
  try {
    return await own.create({
      iface: { binding: iface.binding, url: iface.url, protocolVersion: iface.protocolVersion, tenant: iface.tenant },
      extensions: context.extensions,
      maxEventSize: context.maxEventSize,
      headers: (url = iface.url, signal) => headersFor(context, url, signal),
    });
  } catch (error) {
    if (error instanceof TetherError) throw error;
    throw new TetherError('INVALID_ARGUMENT', `the binding ${own.name} could not be created for ${iface.url}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
      maybeDelivered: false,
    });
  }
}
