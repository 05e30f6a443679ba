import { TetherError } from '../errors/tether-error.js';
import type {
  AgentCard,
  AgentInterface,
  OAuthFlow,
  ProtocolVersion,
  SecurityRequirement,
  SecurityScheme,
} from './card-types.js';
import { wireCard, type WireCard } from './card-shape.js';
import { plain, problem } from '../protocol/check.js';
import { isObject } from '../util/is-object.js';

/** `0.3.0` → `0.3`, `1` → `1.0`; anything unparsable is kept as is (and will not match). */
export function majorMinor(version: string): string {
  if (typeof version !== 'string') return '';
  const match = /^v?(\d+)(?:\.(\d+))?/.exec(version.trim());
  return match ? `${match[1]}.${match[2] ?? '0'}` : version;
}

const BINDINGS = new Map([
  ['JSONRPC', 'JSONRPC'],
  ['JSON-RPC', 'JSONRPC'],
  ['HTTP+JSON', 'HTTP+JSON'],
  ['REST', 'HTTP+JSON'],
  ['GRPC', 'GRPC'],
]);

/** Binding names are compared case-insensitively; custom binding URIs are kept as they are. */
export function normalizeBinding(binding: string): string {
  return BINDINGS.get(binding.toUpperCase()) ?? binding;
}

type Json = Record<string, unknown>;

/** `CARD_INVALID` naming where, in the words the shape checks use (`… invalid at skills.0.tags.1: expected string`). */
function invalid(where: (string | number)[], problem: string, base: string | undefined): TetherError {
  const path = where.map((key) => (typeof key === 'string' && key.length > 64 ? `${key.slice(0, 64)}…` : key)).join('.');
  return new TetherError('CARD_INVALID', `the agent card is invalid at ${path}: ${problem}`, { operation: 'GetAgentCard', url: base });
}

/** A record keyed by names the card chooses: no prototype, so a name like `__proto__` or `constructor` is only data. */
function byName<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function flow(value: unknown, where: (string | number)[], base: string | undefined): OAuthFlow | undefined {
  if (!isObject(value)) return undefined;
  const scopes: Record<string, string> = {};
  if (isObject(value['scopes'])) {
    for (const [name, description] of Object.entries(value['scopes'])) {
      if (typeof description !== 'string') throw invalid([...where, 'scopes', name], 'expected string', base);
      // An own key even when it is `__proto__` (as JSON.parse makes it).
      Object.defineProperty(scopes, name, { value: description, enumerable: true, writable: true, configurable: true });
    }
  }
  const out: OAuthFlow = { scopes };
  for (const key of ['authorizationUrl', 'deviceAuthorizationUrl', 'tokenUrl', 'refreshUrl'] as const) {
    const v = str(value[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** The v1 oneof wrappers of a security scheme and the type each stands for. */
const SCHEME_WRAPPERS = new Map([
  ['apiKeySecurityScheme', 'apiKey'],
  ['httpAuthSecurityScheme', 'http'],
  ['oauth2SecurityScheme', 'oauth2'],
  ['openIdConnectSecurityScheme', 'openIdConnect'],
  ['mtlsSecurityScheme', 'mutualTLS'],
]);

/**
 * v1 oneof wrappers (`httpAuthSecurityScheme` …) and v0.3 OpenAPI shapes (`{type: 'http'}` …).
 * `undefined` for a scheme of a type this client does not know (or without what it needs).
 */
function securityScheme(value: unknown, where: (string | number)[], base: string | undefined): SecurityScheme | undefined {
  if (!isObject(value)) throw invalid(where, 'expected record', base);
  const wrappers = Object.keys(value).filter((key) => SCHEME_WRAPPERS.has(key) && isObject(value[key]));
  if (wrappers.length > 1) throw invalid(where, `more than one of ${wrappers.join(', ')}`, base);
  const v1Key = wrappers[0];
  const body: Json = v1Key === undefined ? value : (value[v1Key] as Json);
  const type = v1Key === undefined ? str(value['type']) : SCHEME_WRAPPERS.get(v1Key);
  const declared = str(value['type']);
  if (v1Key !== undefined && declared !== undefined && declared !== type) throw invalid(where, `${v1Key} is ${type}, type says ${declared}`, base);
  const inner = v1Key === undefined ? where : [...where, v1Key];
  const description = str(body['description']);
  const common = description === undefined ? {} : { description };
  switch (type) {
    case 'apiKey': {
      const location = str(body['location']) ?? str(body['in']) ?? 'header';
      const name = str(body['name']);
      if (!name || !['header', 'query', 'cookie'].includes(location)) return undefined;
      return { type: 'apiKey', location: location as 'header' | 'query' | 'cookie', name, ...common };
    }
    case 'http': {
      const scheme = str(body['scheme']);
      if (!scheme) return undefined;
      const bearerFormat = str(body['bearerFormat']);
      return { type: 'http', scheme, ...(bearerFormat === undefined ? {} : { bearerFormat }), ...common };
    }
    case 'oauth2': {
      const flows: Extract<SecurityScheme, { type: 'oauth2' }>['flows'] = {};
      const raw = isObject(body['flows']) ? body['flows'] : {};
      for (const key of ['authorizationCode', 'clientCredentials', 'deviceCode', 'implicit', 'password'] as const) {
        const f = flow(raw[key], [...inner, 'flows', key], base);
        if (f) flows[key] = f;
      }
      const metadataUrl = str(body['oauth2MetadataUrl']);
      return { type: 'oauth2', flows, ...(metadataUrl === undefined ? {} : { oauth2MetadataUrl: metadataUrl }), ...common };
    }
    case 'openIdConnect': {
      const url = str(body['openIdConnectUrl']);
      return url ? { type: 'openIdConnect', openIdConnectUrl: url, ...common } : undefined;
    }
    case 'mutualTLS':
      return { type: 'mutualTLS', ...common };
    default:
      return undefined;
  }
}

/** What is wrong inside a value, relative to it (the caller knows where the value is). */
interface Problem {
  readonly at: (string | number)[];
  readonly expected: string;
}

/** The scopes of one scheme in a requirement: v0.3 `[scopes]`, v1 `{list: [scopes]}`; absent or `null` is none. */
function scopesOf(value: unknown): string[] | Problem {
  const v1 = isObject(value);
  const list = v1 ? (value['list'] ?? []) : (value ?? []);
  const at = v1 ? ['list'] : [];
  if (!Array.isArray(list)) return { at, expected: 'array' };
  // Checked item by item, never converted: a nested list or `{toString: …}` is not a scope.
  for (let i = 0; i < list.length; i++) if (typeof list[i] !== 'string') return { at: [...at, i], expected: 'string' };
  return list as string[];
}

/**
 * v1 `[{schemes: {name: {list: [scopes]}}}]` and v0.3 `[{name: [scopes]}]`. Every scheme a
 * requirement names is kept — `__proto__` too: a requirement that loses a scheme asks for less.
 */
function requirements(list: Json[], where: (string | number)[], base: string | undefined): SecurityRequirement[] {
  return list.map((entry, i) => {
    const v1 = isObject(entry['schemes']);
    if (v1 && Object.keys(entry).length > 1) throw invalid([...where, i], 'a v1 requirement has only schemes', base);
    const source = (v1 ? entry['schemes'] : entry) as Json;
    const out = byName<string[]>();
    for (const name of Object.keys(source)) {
      const scopes = scopesOf(source[name]);
      if (!Array.isArray(scopes)) throw invalid([...where, i, ...(v1 ? ['schemes'] : []), name, ...scopes.at], `expected ${scopes.expected}`, base);
      out[name] = scopes;
    }
    return out;
  });
}

/** The v1 `capabilities.extendedAgentCard` and its v0.3 names: set in several places, they must agree. */
function extendedCardFlag(v1: boolean | null | undefined, wire: WireCard, base: string | undefined): boolean {
  const flags = [v1, wire.supportsAuthenticatedExtendedCard, wire.supportsExtendedAgentCard].filter((flag) => typeof flag === 'boolean');
  if (flags.some((flag) => flag !== flags[0])) {
    throw invalid(['capabilities', 'extendedAgentCard'], 'differs from supportsAuthenticatedExtendedCard or supportsExtendedAgentCard', base);
  }
  return flags[0] === true;
}

/** A list of requirements as a string that ignores the order of scheme names and of scopes. */
function requirementsKey(list: SecurityRequirement[]): string {
  return JSON.stringify(list.map((r) => Object.keys(r).sort().map((name) => [name, [...(r[name] ?? [])].sort()])));
}

interface RequirementLists {
  securityRequirements?: Json[] | null | undefined;
  security?: Json[] | null | undefined;
}

/**
 * The requirements of a card or a skill: v1 `securityRequirements` or v0.3 `security`. An empty
 * list is unset (ProtoJSON); a hybrid card may carry both, and then they must say the same.
 */
function requirementsOf(holder: RequirementLists, where: (string | number)[], base: string | undefined): SecurityRequirement[] {
  const v1 = requirements(holder.securityRequirements ?? [], [...where, 'securityRequirements'], base);
  const v03 = requirements(holder.security ?? [], [...where, 'security'], base);
  if (v1.length > 0 && v03.length > 0 && requirementsKey(v1) !== requirementsKey(v03)) {
    throw invalid([...where, 'security'], 'securityRequirements and security differ', base);
  }
  return v1.length > 0 ? v1 : v03;
}

/**
 * Validates and normalizes an agent card of either version. `base` resolves relative
 * interface URLs (relative to where the card was found).
 */
export function normalizeCard(raw: unknown, base?: string): AgentCard {
  if (base !== undefined && typeof base !== 'string') {
    throw new TetherError('INVALID_ARGUMENT', 'normalizeCard: base is not a string');
  }
  const issue = wireCard(raw);
  if (issue) throw invalid(issue.path.length > 0 ? issue.path : ['card'], problem(issue), base);
  const card = cardFromWire(raw as WireCard, raw, base);
  normalizedCards.add(card);
  return card;
}

/** The cards {@link normalizeCard} made in this process: only these are taken as normalized without a check. */
const normalizedCards = new WeakSet<object>();

/** Whether `card` is a card {@link normalizeCard} returned (not merely an object of that shape). */
export function isNormalizedCard(card: unknown): card is AgentCard {
  return typeof card === 'object' && card !== null && normalizedCards.has(card);
}

/**
 * `getExtendedCard()` of an agent whose card says it has none (`capabilities.extendedAgentCard`, v0.3's
 * `supportsAuthenticatedExtendedCard`): `UNSUPPORTED_OPERATION`, and no request. Here, in the reader's
 * chunk, not in the client's: a web app does not load this before its first request (D26).
 */
export function checkExtendedCard(card: AgentCard): void {
  if (!card.capabilities.extendedAgentCard) {
    throw new TetherError('UNSUPPORTED_OPERATION', `agent "${card.name}" has no extended card (its card says so: capabilities.extendedAgentCard)`, {
      operation: 'GetExtendedAgentCard',
      maybeDelivered: false,
    });
  }
}

/**
 * Extensions the card marks `required` that the client does not activate (`connect(url, { extensions })`):
 * `EXTENSION_REQUIRED` naming them, before any request (the agent would refuse every call with
 * ExtensionSupportRequiredError). In the reader's chunk, like {@link checkExtendedCard}.
 */
export function checkExtensions(card: AgentCard, activated: readonly string[]): void {
  const missing = card.capabilities.extensions.filter((e) => e.required && !activated.includes(e.uri)).map((e) => e.uri);
  if (missing.length === 0) return;
  const shown = missing.slice(0, 5).map((uri) => (uri.length > 120 ? `${uri.slice(0, 120)}…` : uri));
  if (missing.length > 5) shown.push(`${missing.length - 5} more`);
  throw new TetherError(
    'EXTENSION_REQUIRED',
    `agent "${card.name.slice(0, 120)}" requires extension(s) this client does not activate: ${shown.join(', ')}. Support them, then pass connect(url, { extensions: [...] })`,
    { operation: 'connect', maybeDelivered: false },
  );
}

/**
 * A card given to `connect()`, normalized: a card {@link normalizeCard} returned (edits included) is
 * used as it is; anything else is checked, a card that only has a normalized card's shape (it went
 * through JSON, or somebody wrote it) from its `raw` form.
 */
export function givenCard(card: unknown, base?: string): AgentCard {
  if (isNormalizedCard(card)) return card;
  const looksNormalized = typeof card === 'object' && card !== null && Object.hasOwn(card, 'cardFormat') && Object.hasOwn(card, 'interfaces');
  const raw = looksNormalized ? (card as { raw?: unknown }).raw : card;
  if (looksNormalized && (typeof raw !== 'object' || raw === null)) {
    throw invalid(['card'], 'has the shape of a normalized card but no raw card to normalize it from', base);
  }
  return normalizeCard(raw, base);
}

/** A checked card (`wire`, read from `raw`), normalized; exported for the oracle test. */
export function cardFromWire(wire: WireCard, raw: unknown, base?: string): AgentCard {
  const resolve = (url: string): string => {
    try {
      return new URL(url, base).href;
    } catch {
      const shown = url.length > 200 ? `${url.slice(0, 200)}… (${url.length} characters)` : url;
      throw new TetherError('CARD_INVALID', `the agent card lists an invalid URL: ${shown}`, { operation: 'GetAgentCard', url: base });
    }
  };
  const topVersion = wire.protocolVersion ? majorMinor(wire.protocolVersion) : undefined;
  const interfaces: AgentInterface[] = [];
  const seen = new Set<string>();
  const add = (iface: AgentInterface): void => {
    const key = `${iface.binding} ${iface.protocolVersion} ${iface.url} ${iface.tenant ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    interfaces.push(iface);
  };
  // v1 names it protocolBinding, v0.3 transport; a hybrid card may carry both, and then they must agree.
  const bindingOf = (i: { protocolBinding?: string | null | undefined; transport?: string | null | undefined }, where: (string | number)[]): string => {
    const named = [i.protocolBinding, i.transport].filter((b): b is string => typeof b === 'string' && b !== '').map(normalizeBinding);
    if (named.length === 2 && named[0] !== named[1]) throw invalid(where, `protocolBinding and transport differ (${named.join(', ')})`, base);
    return named[0] ?? 'JSONRPC';
  };
  const isV1 = Array.isArray(wire.supportedInterfaces) && wire.supportedInterfaces.length > 0;
  if (isV1) {
    for (const [index, i] of (wire.supportedInterfaces ?? []).entries()) {
      const binding = bindingOf(i, ['supportedInterfaces', index]);
      const iface: AgentInterface = {
        url: binding === 'GRPC' ? i.url : resolve(i.url),
        binding,
        protocolVersion: majorMinor(i.protocolVersion ?? '1.0'),
      };
      if (i.tenant) iface.tenant = i.tenant;
      add(iface);
    }
  } else if (wire.url) {
    const version = topVersion ?? '0.3';
    add({ url: resolve(wire.url), binding: normalizeBinding(wire.preferredTransport ?? 'JSONRPC'), protocolVersion: version });
    for (const [index, i] of (wire.additionalInterfaces ?? []).entries()) {
      const binding = bindingOf(i, ['additionalInterfaces', index]);
      add({ url: binding === 'GRPC' ? i.url : resolve(i.url), binding, protocolVersion: version });
    }
  }
  if (interfaces.length === 0) {
    throw new TetherError('CARD_INVALID', 'the agent card lists no interface (neither supportedInterfaces nor url)', {
      operation: 'GetAgentCard',
      url: base,
    });
  }
  const caps = wire.capabilities ?? {};
  const schemes = byName<SecurityScheme>();
  // Every name, `__proto__` included (the shape check skips that key: it is checked here).
  for (const [name, value] of Object.entries(wire.securitySchemes ?? {})) {
    const scheme = securityScheme(value, ['securitySchemes', name], base);
    if (scheme) schemes[name] = scheme;
  }
  const card: AgentCard = {
    name: wire.name,
    description: wire.description ?? '',
    version: wire.version ?? '',
    interfaces,
    capabilities: {
      streaming: caps.streaming ?? false,
      pushNotifications: caps.pushNotifications ?? false,
      extendedAgentCard: extendedCardFlag(caps.extendedAgentCard, wire, base),
      extensions: (caps.extensions ?? []).map((e) => ({
        uri: e.uri,
        required: e.required ?? false,
        ...(e.description ? { description: e.description } : {}),
        ...(e.params ? { params: plain(e.params) } : {}),
      })),
    },
    securitySchemes: schemes,
    securityRequirements: requirementsOf(wire, [], base),
    defaultInputModes: wire.defaultInputModes ?? [],
    defaultOutputModes: wire.defaultOutputModes ?? [],
    skills: (wire.skills ?? []).map((s, i) => ({
      id: s.id,
      name: s.name,
      description: s.description ?? '',
      tags: s.tags ?? [],
      ...(s.examples ? { examples: s.examples } : {}),
      ...(s.inputModes ? { inputModes: s.inputModes } : {}),
      ...(s.outputModes ? { outputModes: s.outputModes } : {}),
      ...(s.securityRequirements || s.security ? { securityRequirements: requirementsOf(s, ['skills', i], base) } : {}),
    })),
    signatures: (wire.signatures ?? []).map((s) => ({
      protected: s.protected,
      signature: s.signature,
      ...(s.header ? { header: plain(s.header) } : {}),
    })),
    cardFormat: (isV1 ? '1.0' : '0.3') as ProtocolVersion,
    raw: raw as Record<string, unknown>,
  };
  if (wire.provider?.organization || wire.provider?.url) {
    card.provider = { organization: wire.provider.organization ?? '', url: wire.provider.url ?? '' };
  }
  if (wire.documentationUrl) card.documentationUrl = wire.documentationUrl;
  if (wire.iconUrl) card.iconUrl = wire.iconUrl;
  return card;
}
