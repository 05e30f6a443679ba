import { createHash } from 'node:crypto';
import { securityDeclarations } from './auth.js';
import type { ResolvedOptions } from './options.js';

/** Card dialects: v1 ProtoJSON, v0.3 JSON (well-known + JSON-RPC), v0.3 proto JSON (`GET /v1/card`). */
export type CardDialect = '1.0' | '0.3' | '0.3-proto';

export interface CardUrls {
  jsonRpcUrl: string;
  restUrl: string;
}

const SKILL_DESCRIPTIONS: Record<string, string> = {
  echo: 'Replies with a Message: "echo: <text>".',
  stream: 'Status updates interleaved with artifact chunks: stream updates=3 chunks=5 delayMs=5 chunkSize=?',
  input: 'Asks for input (input-required), completes after a follow-up message.',
  auth: 'Asks for auth (auth-required), completes after a follow-up message.',
  fail: 'Ends failed.',
  reject: 'Ends rejected.',
  slow: 'A long cancelable task: slow steps=50 delayMs=20',
  artifacts: 'Several separate artifacts: artifacts n=2',
};

function skills(options: ResolvedOptions, extended: boolean): Record<string, unknown>[] {
  const list: Record<string, unknown>[] = Object.keys(options.scenarios).map((name) => ({
    id: name,
    name,
    description: SKILL_DESCRIPTIONS[name] ?? `Scenario "${name}".`,
    tags: ['testkit'],
    examples: [name],
  }));
  if (extended) {
    list.push({
      id: 'extended',
      name: 'extended',
      description: 'Only listed on the extended agent card.',
      tags: ['testkit', 'extended'],
    });
  }
  return list;
}

/** v1 `supportedInterfaces`: every (binding × version) served, v1 first, JSON-RPC before HTTP+JSON. */
function supportedInterfaces(options: ResolvedOptions, urls: CardUrls): Record<string, unknown>[] {
  const list: Record<string, unknown>[] = [];
  for (const version of ['1.0', '0.3'] as const) {
    if (!options.versions.includes(version)) continue;
    for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
      if (!options.bindings.includes(binding)) continue;
      const entry: Record<string, unknown> = {
        url: binding === 'JSONRPC' ? urls.jsonRpcUrl : urls.restUrl,
        protocolBinding: binding,
        protocolVersion: version,
      };
      // Tenants are a v1 concept; v0.3 endpoints ignore them.
      if (version === '1.0' && options.tenant !== undefined) entry['tenant'] = options.tenant;
      list.push(entry);
    }
  }
  return list;
}

/** Build the agent card in `dialect`; `extended` adds the extra skill of the extended card. */
export function buildCard(
  options: ResolvedOptions,
  urls: CardUrls,
  dialect: CardDialect,
  extended: boolean,
): Record<string, unknown> {
  const security = options.auth === undefined ? undefined : securityDeclarations(options.auth);
  const common = {
    name: 'Tether Test Agent',
    description: 'Scriptable fake A2A agent from @a2a-tether/testkit.',
  };
  const modes = { defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'] };
  if (dialect === '1.0') {
    return {
      ...common,
      supportedInterfaces: supportedInterfaces(options, urls),
      version: '0.1.0',
      capabilities: {
        streaming: options.streaming,
        pushNotifications: options.pushNotifications,
        extendedAgentCard: options.extendedAgentCard,
      },
      ...(security === undefined
        ? {}
        : { securitySchemes: security.v1Schemes, securityRequirements: security.v1Requirements }),
      ...modes,
      skills: skills(options, extended),
    };
  }
  const jsonRpc = options.bindings.includes('JSONRPC');
  const interfaces = options.bindings.map((binding) => ({
    url: binding === 'JSONRPC' ? urls.jsonRpcUrl : urls.restUrl,
    transport: binding,
  }));
  const securityFields =
    security === undefined
      ? {}
      : dialect === '0.3'
        ? { securitySchemes: security.v03Schemes, security: security.v03Security }
        : { securitySchemes: security.v03ProtoSchemes, security: security.v03ProtoSecurity };
  return {
    protocolVersion: '0.3.0',
    ...common,
    url: jsonRpc ? urls.jsonRpcUrl : urls.restUrl,
    preferredTransport: jsonRpc ? 'JSONRPC' : 'HTTP+JSON',
    additionalInterfaces: interfaces,
    version: '0.1.0',
    capabilities: { streaming: options.streaming, pushNotifications: options.pushNotifications },
    ...securityFields,
    ...modes,
    skills: skills(options, extended),
    supportsAuthenticatedExtendedCard: options.extendedAgentCard,
  };
}

/** A strong ETag over the exact body bytes. */
export function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 If-None-Match (weak comparison, `*`, lists). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const strip = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => strip(tag) === strip(etag));
}
