import type { redact as Redact } from '../errors/redact.js';
import { TetherError } from '../errors/tether-error.js';
import type { CustomBinding } from './custom-binding.js';
import type { Transport } from './transport.js';
import type { TransportContext } from './transport-context.js';

/**
 * The headers a request to `url` would carry: the client's, then the credentials `auth` allows for that origin.
 * The credential values go into `secrets` (what the binding's errors must not quote).
 */
async function headersFor(context: TransportContext, secrets: Set<string>, url: string, signal?: AbortSignal): Promise<Record<string, string>> {
  const { credentials, headers } = context.http.options;
  if (!URL.canParse(url)) throw new TetherError('INVALID_ARGUMENT', `headers(url): not a URL: ${url.slice(0, 200)} (pass the http(s) URL the connection goes to)`, { maybeDelivered: false });
  // A WebSocket's handshake is an HTTP request to the same host and port: ws(s) counts as http(s) here.
  const target = new URL(url);
  if (target.protocol === 'ws:' || target.protocol === 'wss:') target.protocol = target.protocol === 'ws:' ? 'http:' : 'https:';
  const applied = credentials ? await credentials.apply(target, 'GET', false, signal) : undefined;
  // Values this short cannot be told from ordinary text (as over HTTP).
  for (const secret of applied?.secrets ?? []) if (secret.length > 5) secrets.add(secret);
  return { ...headers, ...applied?.headers };
}

/**
 * The transport of a binding of the caller's own (`connect(url, { bindings })`); what it throws is a `TetherError`.
 * `redact` is handed in by the first-load code that has it: importing it here would split the first-load chunks.
 */
export async function createCustom(own: CustomBinding, context: TransportContext, redact: typeof Redact): Promise<Transport> {
  const { iface } = context;
  const secrets = new Set<string>();
  try {
    return await own.create({
      iface: { binding: iface.binding, url: iface.url, protocolVersion: iface.protocolVersion, tenant: iface.tenant },
      extensions: context.extensions,
      maxEventSize: context.maxEventSize,
      headers: (url = iface.url, signal) => headersFor(context, secrets, url, signal),
      timeoutMs: context.http.options.timeoutMs,
      redact: (text) => redact(String(text), { secrets }),
    });
  } catch (error) {
    if (error instanceof TetherError) throw error;
    throw new TetherError('INVALID_ARGUMENT', `the binding ${own.name} could not be created for ${iface.url}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
      maybeDelivered: false,
    });
  }
}
