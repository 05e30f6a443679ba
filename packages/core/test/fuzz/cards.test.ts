import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentCard, Binding, ProtocolVersion } from '../../src/card/card-types.js';
import { negotiate } from '../../src/card/negotiate.js';
import { normalizeCard } from '../../src/card/normalize-card.js';
import { TetherError } from '../../src/errors/tether-error.js';
import { fuzzRuns, fuzzSeed } from './fuzz-config.js';
import { SEEDS } from './official-corpus.js';
import { applyOps, copy, isContainer, opsArb, PROTOTYPE_NAMES, prototypeChanges, prototypeSnapshot, strings } from './wire-mutations.js';

// Property-based fuzzing of card normalization and interface negotiation: the official cards (and
// two with every kind of security scheme, which the official ones lack) mutated like the wire
// payloads; markers planted in every field the normalized card keeps; random interface lists and
// preferences for negotiate(). Fixed seed and bounded runs in CI (test/fuzz/fuzz-config.ts).

type Json = Record<string, unknown>;

const BASE = 'https://agent.example/.well-known/agent-card.json';
const MAX_MS = 250;

const SECURE_V1: Json = {
  name: 'secure v1',
  supportedInterfaces: [
    { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' },
    { url: '/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  ],
  capabilities: { streaming: true, extensions: [{ uri: 'urn:x', required: true, params: { level: 1 } }] },
  securitySchemes: {
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description: 'tokens' } },
    key: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
    oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', scopes: { read: 'Read' } } } } },
    oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://o' } },
    mtls: { mtlsSecurityScheme: {} },
  },
  securityRequirements: [{ schemes: { bearer: { list: ['read'] }, key: { list: [] } } }, { schemes: { oauth: { list: ['read'] } } }],
  skills: [{ id: 's', name: 'S', tags: ['t'], securityRequirements: [{ schemes: { mtls: { list: [] } } }] }],
  signatures: [{ protected: 'eyJ', signature: 'sig', header: { kid: 'k1' } }],
};

const SECURE_V03: Json = {
  name: 'secure v0.3',
  protocolVersion: '0.3.0',
  url: 'https://b.example/rpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [{ url: 'https://b.example/rest', transport: 'HTTP+JSON' }],
  securitySchemes: {
    b: { type: 'http', scheme: 'bearer' },
    k: { type: 'apiKey', in: 'query', name: 'k' },
    o: { type: 'oauth2', flows: { implicit: { authorizationUrl: 'https://a', scopes: { w: 'Write' } } } },
  },
  security: [{ b: [], k: [] }, { o: ['w'] }],
  skills: [{ id: 's', name: 'S', tags: [], security: [{ k: [] }] }],
};

const CARDS: { name: string; card: unknown }[] = [
  ...SEEDS.filter((s) => s.kind === 'card').map((s) => ({ name: s.name, card: s.payload })),
  { name: 'secure v1', card: SECURE_V1 },
  { name: 'secure v0.3', card: SECURE_V03 },
];

const stats = new Map<string, { cases: number; accepted: number; rejected: number; maxMs: number }>();
function count(name: string, ok: boolean, ms: number): void {
  const entry = stats.get(name) ?? { cases: 0, accepted: 0, rejected: 0, maxMs: 0 };
  entry.cases++;
  if (ok) entry.accepted++;
  else entry.rejected++;
  entry.maxMs = Math.max(entry.maxMs, ms);
  stats.set(name, entry);
}
afterAll(() => {
  const rows = [...stats].map(([name, s]) => `${name}: ${s.cases} cases, ${s.accepted} accepted, ${s.rejected} refused, slowest ${s.maxMs.toFixed(1)} ms`);
  console.log(`fuzz (seed ${fuzzSeed()}):\n  ${rows.join('\n  ')}`);
});

type Outcome = { ok: true; card: AgentCard; ms: number } | { ok: false; error: unknown; ms: number };

function normalize(raw: unknown): Outcome {
  const started = performance.now();
  try {
    const card = normalizeCard(raw, BASE);
    return { ok: true, card, ms: performance.now() - started };
  } catch (error) {
    return { ok: false, error, ms: performance.now() - started };
  }
}

function expectTyped(error: unknown, codes: string[], label: string): void {
  if (!(error instanceof TetherError)) throw new Error(`${label}: ${String(error)} is not a TetherError`, { cause: error });
  expect(codes, `${label}: ${error.message.slice(0, 200)}`).toContain(error.code);
  expect(error.message.length, `${label}: message length`).toBeLessThan(1_000);
}

/** Everything the normalized card says, as one text (the raw card it keeps aside). */
function shown(card: AgentCard): string {
  return [...strings({ ...card, raw: undefined })].join('\n');
}

// ---- markers in card fields ----------------------------------------------------------------------

function obj(value: unknown): Json | undefined {
  return isContainer(value) && !Array.isArray(value) ? value : undefined;
}
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function setOwn(node: Json, name: string, value: unknown): void {
  Object.defineProperty(node, name, { value, enumerable: true, writable: true, configurable: true });
}

/** A prototype member's name other than `__proto__` (which has spots of its own), picked by the marker. */
const OTHER_NAMES = PROTOTYPE_NAMES.filter((name) => name !== '__proto__');
function protoName(marker: string): string {
  return OTHER_NAMES[marker.length % OTHER_NAMES.length] as string;
}

/** One place to plant: a node of the card and how to put marker `m` there. */
type Spot = (m: string) => void;

/** The places the normalized card keeps, found as normalizeCard reads the card. */
function spots(raw: unknown): Spot[] {
  const card = obj(raw);
  if (!card) return [];
  const out: Spot[] = [];
  const set = (node: Json, field: string, make: (m: string) => unknown): void => {
    out.push((m) => {
      node[field] = make(m);
    });
  };
  const text = (m: string): string => m;
  for (const field of ['name', 'description', 'version', 'documentationUrl', 'iconUrl']) set(card, field, text);
  set(card, 'defaultInputModes', (m) => [m]);
  set(card, 'defaultOutputModes', (m) => [m]);
  const provider = obj(card['provider']);
  if (provider) for (const field of ['organization', 'url']) set(provider, field, text);
  const v1 = list(card['supportedInterfaces']).length > 0;
  for (const iface of list(v1 ? card['supportedInterfaces'] : card['additionalInterfaces']).map(obj)) {
    if (!iface) continue;
    for (const field of v1 ? ['url', 'tenant', 'protocolBinding', 'protocolVersion'] : ['url', 'transport']) set(iface, field, text);
  }
  if (!v1) set(card, 'url', text);
  for (const ext of list(obj(card['capabilities'])?.['extensions']).map(obj)) {
    if (!ext) continue;
    set(ext, 'uri', text);
    set(ext, 'description', text);
    set(ext, 'params', (m) => ({ mk: m }));
  }
  const schemes = obj(card['securitySchemes']);
  if (schemes) {
    out.push((m) => {
      schemes[m] = { type: 'http', scheme: 'bearer' };
    });
    // A scheme named like a prototype member is data too (as JSON.parse makes it: an own key).
    out.push((m) => setOwn(schemes, '__proto__', { type: 'http', scheme: m }));
    out.push((m) => setOwn(schemes, protoName(m), { type: 'http', scheme: m }));
    for (const value of Object.values(schemes)) {
      const scheme = obj(value);
      const wrapper = scheme && Object.keys(scheme).find((k) => k.endsWith('SecurityScheme'));
      const body = wrapper === undefined ? scheme : obj(scheme?.[wrapper]);
      if (!body) continue;
      set(body, 'description', text);
      for (const field of ['scheme', 'bearerFormat', 'name', 'openIdConnectUrl', 'oauth2MetadataUrl']) if (typeof body[field] === 'string') set(body, field, text);
      for (const flow of Object.values(obj(body['flows']) ?? {}).map(obj)) {
        if (!flow) continue;
        const scopes = obj(flow['scopes']);
        if (scopes) out.push((m) => void (scopes[m] = 'a scope'));
        for (const field of ['authorizationUrl', 'tokenUrl', 'refreshUrl']) if (typeof flow[field] === 'string') set(flow, field, text);
      }
    }
  }
  const requirementSpots = (holder: Json): void => {
    for (const field of ['securityRequirements', 'security']) {
      for (const entry of list(holder[field]).map(obj)) {
        if (!entry) continue;
        const names = obj(entry['schemes']) ?? entry;
        const v1Shape = names !== entry;
        out.push((m) => void (names[m] = v1Shape ? { list: [m] } : [m]));
        out.push((m) => setOwn(names, '__proto__', v1Shape ? { list: [m] } : [m]));
        out.push((m) => setOwn(names, protoName(m), v1Shape ? { list: [m] } : [m]));
        for (const scopes of Object.values(names)) {
          const items = Array.isArray(scopes) ? scopes : obj(scopes)?.['list'];
          if (Array.isArray(items)) out.push((m) => void items.push(m));
        }
      }
    }
  };
  requirementSpots(card);
  for (const skill of list(card['skills']).map(obj)) {
    if (!skill) continue;
    for (const field of ['id', 'name', 'description']) set(skill, field, text);
    for (const field of ['tags', 'examples', 'inputModes', 'outputModes']) set(skill, field, (m) => [m]);
    requirementSpots(skill);
  }
  for (const signature of list(card['signatures']).map(obj)) {
    if (!signature) continue;
    set(signature, 'protected', text);
    set(signature, 'signature', text);
    set(signature, 'header', (m) => ({ mk: m }));
  }
  return out;
}

const cardIndex = fc.nat({ max: 1_000 });

describe('fuzz normalizeCard() and negotiate()', { timeout: 120_000 }, () => {
  it('refuse a mutated card only with CARD_INVALID (or NO_COMPATIBLE_INTERFACE), in bounded time, prototypes untouched', () => {
    const before = prototypeSnapshot();
    fc.assert(
      fc.property(cardIndex, opsArb, (i, ops) => {
        const seed = CARDS[i % CARDS.length] as (typeof CARDS)[number];
        const raw = applyOps(copy(seed.card), ops);
        const outcome = normalize(raw);
        count('normalizeCard (mutations)', outcome.ok, outcome.ms);
        expect(outcome.ms, seed.name).toBeLessThan(MAX_MS);
        if (!outcome.ok) expectTyped(outcome.error, ['CARD_INVALID'], seed.name);
        else {
          try {
            negotiate(outcome.card);
          } catch (error) {
            expectTyped(error, ['NO_COMPATIBLE_INTERFACE'], seed.name);
          }
        }
        expect(prototypeChanges(before), seed.name).toEqual([]);
      }),
      { numRuns: fuzzRuns(400), seed: fuzzSeed() },
    );
  });

  it('lose nothing silently: a marker planted in a field the card keeps is in the normalized card, or it is CARD_INVALID', () => {
    fc.assert(
      fc.property(cardIndex, fc.array(fc.nat({ max: 10_000 }), { minLength: 1, maxLength: 3 }), (i, picks) => {
        const seed = CARDS[i % CARDS.length] as (typeof CARDS)[number];
        const raw = copy(seed.card);
        const places = spots(raw);
        // Chosen before planting (a plant may replace the node of another); each marker its own.
        const chosen = [...new Set(picks.map((p) => p % places.length))].map((p) => places[p] as Spot);
        const markers = chosen.map((plant, n) => {
          const marker = `MK${n}x${picks[n] ?? 0}`;
          plant(marker);
          return marker;
        });
        const outcome = normalize(raw);
        count('normalizeCard (markers)', outcome.ok, outcome.ms);
        if (!outcome.ok) {
          expectTyped(outcome.error, ['CARD_INVALID'], seed.name);
          return;
        }
        const text = shown(outcome.card);
        const lost = markers.filter((m) => !text.includes(m));
        expect(lost, `${seed.name}: normalized without error but lost a marker`).toEqual([]);
      }),
      { numRuns: fuzzRuns(400), seed: fuzzSeed() },
    );
  });

  it('negotiate() keeps exactly the interfaces it may use, in the order the preferences and the card say', () => {
    const bindingName = fc.constantFrom('JSONRPC', 'json-rpc', 'HTTP+JSON', 'rest', 'GRPC', 'urn:custom', '__proto__');
    const version = fc.constantFrom('1.0', '1', 'v1.0', '0.3', '0.3.0', '0.2.5', '2.0', 'x');
    const iface = fc.record({ url: fc.constantFrom('https://a/1', 'https://a/2', '/rel', 'grpc.host:443'), protocolBinding: bindingName, protocolVersion: version });
    const preferences = fc.record(
      {
        preferredBindings: fc.uniqueArray(fc.constantFrom<Binding>('JSONRPC', 'HTTP+JSON'), { maxLength: 2 }),
        protocolVersions: fc.uniqueArray(fc.constantFrom<ProtocolVersion>('1.0', '0.3'), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(iface, { maxLength: 8 }), preferences, (interfaces, prefs) => {
        const raw = { name: 'n', supportedInterfaces: interfaces, url: 'https://fallback/rpc' };
        const card = normalizeCard(raw, BASE);
        const bindings = prefs.preferredBindings ?? ['JSONRPC', 'HTTP+JSON'];
        const versions = prefs.protocolVersions ?? ['1.0', '0.3'];
        const rank = (order: readonly string[] | undefined, value: string): number => (order ? order.indexOf(value) : 0);
        const expected = card.interfaces
          .map((candidate, index) => ({ candidate, index }))
          .filter(({ candidate }) => (bindings as string[]).includes(candidate.binding) && (versions as string[]).includes(candidate.protocolVersion))
          .sort(
            (a, b) =>
              rank(prefs.protocolVersions, a.candidate.protocolVersion) - rank(prefs.protocolVersions, b.candidate.protocolVersion) ||
              rank(prefs.preferredBindings, a.candidate.binding) - rank(prefs.preferredBindings, b.candidate.binding) ||
              a.index - b.index,
          )
          .map(({ candidate }) => `${candidate.binding} ${candidate.protocolVersion} ${candidate.url}`);
        let got: string[];
        try {
          got = negotiate(card, prefs).map((s) => `${s.binding} ${s.protocolVersion} ${s.url}`);
        } catch (error) {
          expectTyped(error, ['NO_COMPATIBLE_INTERFACE'], JSON.stringify(raw));
          got = [];
        }
        count('negotiate', got.length > 0, 0);
        expect(got).toEqual(expected);
      }),
      { numRuns: fuzzRuns(300), seed: fuzzSeed() },
    );
  });
});
