import type { Binding } from '../card/card-types.js';
import { redact } from '../errors/redact.js';
import { TetherError } from '../errors/tether-error.js';
import type { Encoder } from '../protocol/encoder.js';
import type { Transport } from './transport.js';
import type { TransportContext } from './transport-context.js';

// Each binding and each protocol version's writers are imported only once a card names them: bundlers
// split every `import()` below into a chunk of its own, so a web app whose agent speaks v1.0 JSON-RPC
// loads neither HTTP+JSON nor v0.3 (issue 17). The reader of wire objects is one for both versions
// (lenient by design), so it comes with whichever binding loads.

type TransportClass = new (context: TransportContext, encoder: Encoder) => Transport;

function loadBinding(binding: Binding): Promise<TransportClass> {
  return binding === 'JSONRPC'
    ? import('./jsonrpc-transport.js').then((m) => m.JsonRpcTransport)
    : import('./rest-transport.js').then((m) => m.RestTransport);
}

function loadEncoder(context: TransportContext): Promise<Encoder> {
  if (context.iface.protocolVersion === '1.0') return import('../protocol/encode-v1.js').then((m) => m.v1Encoder);
  return import('../protocol/encode-v03.js').then((m) => (context.iface.binding === 'JSONRPC' ? m.v03Encoder : m.v03ProtoEncoder));
}

/**
 * The transport of the interface in `context`, its code loaded first. A page that cannot fetch that
 * code (offline, or a deploy replaced the chunks) gets a `NETWORK` error; the next call loads it again.
 */
export async function loadTransport(context: TransportContext): Promise<Transport> {
  const { binding, protocolVersion } = context.iface;
  const own = context.custom?.find((b) => b.name.toUpperCase() === binding);
  // Loaded only when a binding of the caller's own is used.
  if (own) return import('./custom-transport.js').then((m) => m.createCustom(own, context, redact));
  let loaded: [TransportClass, Encoder];
  try {
    loaded = await Promise.all([loadBinding(binding as Binding), loadEncoder(context)]);
  } catch (error) {
    throw new TetherError('NETWORK', `could not load Tether's code for ${binding} v${protocolVersion}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
      maybeDelivered: false,
    });
  }
  const [Binding, encoder] = loaded;
  return new Binding(context, encoder);
}
