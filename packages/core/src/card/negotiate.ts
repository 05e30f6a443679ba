import { TetherError } from '../errors/tether-error.js';
import type { AgentCard, Binding, ProtocolVersion, SelectedInterface } from './card-types.js';

/** A binding of the caller's own, as negotiation sees it (`CustomBinding` of `connect(url, { bindings })`). */
export interface NegotiableBinding {
  readonly name: string;
  readonly protocolVersions?: readonly ProtocolVersion[] | undefined;
}

/** What the caller prefers; both lists also restrict (an unlisted binding or version is never used). */
export interface NegotiationPreferences {
  /**
   * Bindings to use, most preferred first: `JSONRPC`, `HTTP+JSON`, or the `name` of a binding of your own.
   * Default: every binding the client has (the built-in two and `bindings`), in the card's order.
   */
  preferredBindings?: Array<Binding | (string & {})> | undefined;
  /** Protocol versions to use, most preferred first. Default: both, in the card's order. */
  protocolVersions?: ProtocolVersion[] | undefined;
}

const ALL_BINDINGS: Binding[] = ['JSONRPC', 'HTTP+JSON'];
const MAX_LISTED = 8;

function clip(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
const ALL_VERSIONS: ProtocolVersion[] = ['1.0', '0.3'];

/**
 * Orders the card's interfaces that this client can speak. Without preferences the card's
 * order wins (the spec: the first entry is the agent's preferred one); with preferences, the
 * caller's version order comes first, then the binding order, then the card's order.
 * The first entry is used; the rest are fallbacks when it cannot be reached.
 *
 * @throws TetherError `NO_COMPATIBLE_INTERFACE` listing what the card offers.
 */
export function negotiate(card: AgentCard, preferences: NegotiationPreferences = {}, custom: readonly NegotiableBinding[] = []): SelectedInterface[] {
  if (typeof card !== 'object' || card === null || !Array.isArray(card.interfaces) || !card.interfaces.every((i) => typeof i === 'object' && i !== null)) {
    throw new TetherError('INVALID_ARGUMENT', 'negotiate: not an AgentCard (see normalizeCard)');
  }
  if (typeof preferences !== 'object' || preferences === null) preferences = {};
  // Which versions each binding speaks: the built-in ones both; one of the caller's own those it names (default 1.0).
  const up = (b: string): string => b.toUpperCase();
  const speaks = new Map<string, readonly string[]>(ALL_BINDINGS.map((b) => [b, ALL_VERSIONS]));
  for (const b of custom) speaks.set(up(b.name), b.protocolVersions ?? ['1.0']);
  const preferred = preferences.preferredBindings?.map(up);
  const bindings = preferred ?? [...speaks.keys()];
  const versions = preferences.protocolVersions ?? ALL_VERSIONS;
  const rank = <T>(list: T[] | undefined, value: T): number => (list ? list.indexOf(value) : 0);
  const candidates = card.interfaces
    .map((iface, index) => ({ iface, index, binding: up(iface.binding) }))
    .filter(
      ({ iface, binding }) =>
        bindings.includes(binding) && versions.includes(iface.protocolVersion as ProtocolVersion) && speaks.get(binding)?.includes(iface.protocolVersion) === true,
    )
    .sort(
      (a, b) =>
        rank(preferences.protocolVersions, a.iface.protocolVersion as ProtocolVersion) -
          rank(preferences.protocolVersions, b.iface.protocolVersion as ProtocolVersion) ||
        rank(preferred, a.binding) - rank(preferred, b.binding) ||
        a.index - b.index,
    );
  if (candidates.length === 0) {
    // The card is the agent's text: the message shows a bounded part of it.
    const shown = card.interfaces.slice(0, MAX_LISTED).map((i) => clip(`${i.binding} v${i.protocolVersion} at ${i.url}`));
    if (card.interfaces.length > MAX_LISTED) shown.push(`${card.interfaces.length - MAX_LISTED} more`);
    throw new TetherError(
      'NO_COMPATIBLE_INTERFACE',
      `agent "${clip(card.name)}" offers ${shown.join('; ') || 'nothing'}; this client speaks ${bindings.join('/')} at v${versions.join('/v')}`,
      { operation: 'negotiate' },
    );
  }
  return candidates.map(({ iface, binding }) => {
    const selected: SelectedInterface = {
      binding,
      protocolVersion: iface.protocolVersion as ProtocolVersion,
      url: iface.url,
    };
    if (iface.tenant !== undefined) selected.tenant = iface.tenant;
    return selected;
  });
}
