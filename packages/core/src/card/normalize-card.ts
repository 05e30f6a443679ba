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
import { entries, plain, problem } from '../protocol/check.js';
import { isObject } from '../util/is-object.js';

/** `0.3.0` → `0.3`, `1` → `1.0`; anything unparsable is kept as is (and will not match). */
export function majorMinor(version: string): string {
  const match = /^v?(\d+)(?:\.(\d+))?/.exec(version.trim());
  return match ? `${match[1]}.${match[2] ?? '0'}` : version;
}

const BINDINGS: Record<string, string> = {
  JSONRPC: 'JSONRPC',
  'JSON-RPC': 'JSONRPC',
  'HTTP+JSON': 'HTTP+JSON',
  REST: 'HTTP+JSON',
  GRPC: 'GRPC',
};

/** Binding names are compared case-insensitively; custom binding URIs are kept as they are. */
export function normalizeBinding(binding: string): string {
  return BINDINGS[binding.toUpperCase()] ?? binding;
}

type Json = Record<string, unknown>;


function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function flow(value: unknown): OAuthFlow | undefined {
  if (!isObject(value)) return undefined;
  const scopes = isObject(value['scopes'])
    ? Object.fromEntries(Object.entries(value['scopes']).map(([k, v]) => [k, String(v)]))
    : {};
  const out: OAuthFlow = { scopes };
  for (const key of ['authorizationUrl', 'deviceAuthorizationUrl', 'tokenUrl', 'refreshUrl'] as const) {
    const v = str(value[key]);
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** v1 oneof wrappers (`httpAuthSecurityScheme` …) and v0.3 OpenAPI shapes (`{type: 'http'}` …). */
function securityScheme(value: Json): SecurityScheme | undefined {
  const v1Key = Object.keys(value).find((k) => k.endsWith('SecurityScheme') && isObject(value[k]));
  const body: Json = v1Key ? (value[v1Key] as Json) : value;
  const type = v1Key
    ? {
        apiKeySecurityScheme: 'apiKey',
        httpAuthSecurityScheme: 'http',
        oauth2SecurityScheme: 'oauth2',
        openIdConnectSecurityScheme: 'openIdConnect',
        mtlsSecurityScheme: 'mutualTLS',
      }[v1Key]
    : str(value['type']);
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
        const f = flow(raw[key]);
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

/** v1 `[{schemes: {name: {list: [scopes]}}}]` and v0.3 `[{name: [scopes]}]`. */
function requirements(list: Json[] | null | undefined): SecurityRequirement[] {
  return (list ?? []).map((entry) => {
    const source = isObject(entry['schemes']) ? entry['schemes'] : entry;
    const out: SecurityRequirement = {};
    for (const [name, scopes] of entries(source)) {
      const values = Array.isArray(scopes) ? scopes : isObject(scopes) && Array.isArray(scopes['list']) ? scopes['list'] : [];
      out[name] = values.map(String);
    }
    return out;
  });
}

/**
 * Validates and normalizes an agent card of either version. `base` resolves relative
 * interface URLs (relative to where the card was found).
 */
export function normalizeCard(raw: unknown, base?: string): AgentCard {
  const issue = wireCard(raw);
  if (issue) {
    const where = issue.path.join('.') || 'card';
    throw new TetherError('CARD_INVALID', `the agent card is invalid at ${where}: ${problem(issue)}`, {
      operation: 'GetAgentCard',
      url: base,
    });
  }
  return cardFromWire(raw as WireCard, raw, base);
}

/** A checked card (`wire`, read from `raw`), normalized; exported for the oracle test. */
export function cardFromWire(wire: WireCard, raw: unknown, base?: string): AgentCard {
  const resolve = (url: string): string => {
    try {
      return new URL(url, base).href;
    } catch {
      throw new TetherError('CARD_INVALID', `the agent card lists an invalid URL: ${url}`, { operation: 'GetAgentCard', url: base });
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
  const isV1 = Array.isArray(wire.supportedInterfaces) && wire.supportedInterfaces.length > 0;
  if (isV1) {
    for (const i of wire.supportedInterfaces ?? []) {
      const iface: AgentInterface = {
        url: i.protocolBinding === 'GRPC' || i.transport === 'GRPC' ? i.url : resolve(i.url),
        binding: normalizeBinding(i.protocolBinding ?? i.transport ?? 'JSONRPC'),
        protocolVersion: majorMinor(i.protocolVersion ?? '1.0'),
      };
      if (i.tenant) iface.tenant = i.tenant;
      add(iface);
    }
  } else if (wire.url) {
    const version = topVersion ?? '0.3';
    add({ url: resolve(wire.url), binding: normalizeBinding(wire.preferredTransport ?? 'JSONRPC'), protocolVersion: version });
    for (const i of wire.additionalInterfaces ?? []) {
      const binding = normalizeBinding(i.transport ?? i.protocolBinding ?? 'JSONRPC');
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
  const schemes: Record<string, SecurityScheme> = {};
  for (const [name, value] of entries(wire.securitySchemes ?? {})) {
    const scheme = securityScheme(value);
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
      extendedAgentCard: caps.extendedAgentCard ?? wire.supportsAuthenticatedExtendedCard ?? wire.supportsExtendedAgentCard ?? false,
      extensions: (caps.extensions ?? []).map((e) => ({
        uri: e.uri,
        required: e.required ?? false,
        ...(e.description ? { description: e.description } : {}),
        ...(e.params ? { params: plain(e.params) } : {}),
      })),
    },
    securitySchemes: schemes,
    securityRequirements: requirements(wire.securityRequirements ?? wire.security),
    defaultInputModes: wire.defaultInputModes ?? [],
    defaultOutputModes: wire.defaultOutputModes ?? [],
    skills: (wire.skills ?? []).map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description ?? '',
      tags: s.tags ?? [],
      ...(s.examples ? { examples: s.examples } : {}),
      ...(s.inputModes ? { inputModes: s.inputModes } : {}),
      ...(s.outputModes ? { outputModes: s.outputModes } : {}),
      ...(s.securityRequirements || s.security
        ? { securityRequirements: requirements(s.securityRequirements ?? s.security) }
        : {}),
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
