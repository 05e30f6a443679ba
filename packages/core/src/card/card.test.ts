import { describe, expect, it } from 'vitest';
import { TetherError } from '../errors/tether-error.js';
import { planCredentials } from '../auth/auth-plan.js';
import type { FetchLike } from '../http/fetch-like.js';
import { HttpClient } from '../http/http-client.js';
import { freshnessMs, MemoryCardCache } from './card-cache.js';
import { negotiate } from './negotiate.js';
import { majorMinor, normalizeCard } from './normalize-card.js';
import { cardCandidates, resolveCard } from './resolve-card.js';

const v1 = {
  name: 'Agent',
  description: 'd',
  version: '2.1',
  supportedInterfaces: [
    { url: 'https://a.example/grpc', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' },
    { url: 'https://a.example/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: 'https://a.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ],
  capabilities: { streaming: true, extendedAgentCard: true, extensions: [{ uri: 'urn:x', required: true }] },
  securitySchemes: {
    bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    key: { apiKeySecurityScheme: { location: 'query', name: 'key' } },
    keyHeader: { apiKeySecurityScheme: { location: 'header', name: 'X-Key' } },
    oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', scopes: { read: 'Read' } } } } },
  },
  securityRequirements: [{ schemes: { key: { list: [] } } }, { schemes: { keyHeader: { list: [] } } }, { schemes: { bearer: { list: ['read'] } } }],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'], securityRequirements: [{ schemes: { bearer: { list: [] } } }] }],
};

const v03 = {
  name: 'Legacy',
  description: 'd',
  version: '1',
  protocolVersion: '0.3.0',
  url: 'https://b.example/a2a/jsonrpc',
  preferredTransport: 'JSONRPC',
  additionalInterfaces: [
    { url: 'https://b.example/a2a/jsonrpc', transport: 'JSONRPC' },
    { url: 'https://b.example/a2a/rest', transport: 'HTTP+JSON' },
  ],
  capabilities: { streaming: false, pushNotifications: true },
  supportsAuthenticatedExtendedCard: true,
  securitySchemes: { b: { type: 'http', scheme: 'bearer' }, k: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
  security: [{ k: [] }],
  defaultInputModes: ['text'],
  defaultOutputModes: ['text'],
  skills: [],
};

describe('normalizeCard', () => {
  it('normalizes a v1 card: interfaces in order, capabilities, oneof security schemes, requirements', () => {
    const card = normalizeCard(v1);
    expect(card.cardFormat).toBe('1.0');
    expect(card.interfaces.map((i) => `${i.binding}@${i.protocolVersion}`)).toEqual(['GRPC@1.0', 'JSONRPC@1.0', 'HTTP+JSON@1.0', 'JSONRPC@0.3']);
    expect(card.interfaces[1]?.tenant).toBe('acme');
    expect(card.capabilities).toEqual({
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
      extensions: [{ uri: 'urn:x', required: true }],
    });
    expect(card.securitySchemes['bearer']).toEqual({ type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' });
    expect(card.securitySchemes['key']).toEqual({ type: 'apiKey', location: 'query', name: 'key' });
    expect(card.securitySchemes['oauth']).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://t', scopes: { read: 'Read' } } } });
    expect(card.securityRequirements).toEqual([{ key: [] }, { keyHeader: [] }, { bearer: ['read'] }]);
    expect(card.skills[0]?.securityRequirements).toEqual([{ bearer: [] }]);
    expect(card.raw).toBe(v1);
  });

  it('normalizes a v0.3 card: url + preferredTransport + additionalInterfaces, deduplicated, Major.Minor version', () => {
    const card = normalizeCard(v03);
    expect(card.cardFormat).toBe('0.3');
    expect(card.interfaces).toEqual([
      { url: 'https://b.example/a2a/jsonrpc', binding: 'JSONRPC', protocolVersion: '0.3' },
      { url: 'https://b.example/a2a/rest', binding: 'HTTP+JSON', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities.extendedAgentCard).toBe(true);
    expect(card.securitySchemes['k']).toEqual({ type: 'apiKey', location: 'header', name: 'X-API-Key' });
    expect(card.securityRequirements).toEqual([{ k: [] }]);
  });

  it('prefers supportedInterfaces on a hybrid card (v1 server with its v0.3 layer)', () => {
    const card = normalizeCard({ ...v03, supportedInterfaces: [{ url: 'https://b.example/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] });
    expect(card.cardFormat).toBe('1.0');
    expect(card.interfaces).toEqual([{ url: 'https://b.example/v1', binding: 'JSONRPC', protocolVersion: '1.0' }]);
  });

  it('resolves relative interface URLs against where the card was found', () => {
    const card = normalizeCard({ name: 'r', url: '/a2a', protocolVersion: '0.3' }, 'https://c.example/base/.well-known/agent-card.json');
    expect(card.interfaces[0]?.url).toBe('https://c.example/a2a');
  });

  it('fails with CARD_INVALID naming the field', () => {
    expect(() => normalizeCard({ description: 'no name', url: 'https://x' })).toThrow(/agent card is invalid at name/);
    expect(() => normalizeCard({ name: 'x' })).toThrow(/lists no interface/);
    expect(() => normalizeCard('nope')).toThrow(TetherError);
    expect(() => normalizeCard({ name: 'x', supportedInterfaces: 'bad' })).toThrow(
      expect.objectContaining({ code: 'CARD_INVALID', message: expect.stringMatching(/invalid at supportedInterfaces/) }),
    );
  });

  it('reduces versions to Major.Minor', () => {
    expect(majorMinor('0.3.0')).toBe('0.3');
    expect(majorMinor('1')).toBe('1.0');
    expect(majorMinor('1.0.1')).toBe('1.0');
    expect(majorMinor('v0.2.9')).toBe('0.2');
  });
});

describe('negotiate', () => {
  it("follows the card's order by default and skips what it cannot speak", () => {
    const chosen = negotiate(normalizeCard(v1));
    expect(chosen.map((i) => `${i.binding}@${i.protocolVersion}`)).toEqual(['JSONRPC@1.0', 'HTTP+JSON@1.0', 'JSONRPC@0.3']);
    expect(chosen[0]).toEqual({ binding: 'JSONRPC', protocolVersion: '1.0', url: 'https://a.example/rpc', tenant: 'acme' });
  });

  it('honours caller preferences, which also restrict', () => {
    const card = normalizeCard(v1);
    expect(negotiate(card, { preferredBindings: ['HTTP+JSON', 'JSONRPC'] })[0]?.binding).toBe('HTTP+JSON');
    expect(negotiate(card, { protocolVersions: ['0.3', '1.0'] })[0]?.protocolVersion).toBe('0.3');
    expect(negotiate(card, { protocolVersions: ['1.0'], preferredBindings: ['HTTP+JSON'] }).map((i) => i.url)).toEqual(['https://a.example/rest']);
  });

  it('fails with NO_COMPATIBLE_INTERFACE listing what the card offers', () => {
    const card = normalizeCard(v03);
    expect(() => negotiate(card, { protocolVersions: ['1.0'] })).toThrow(
      /offers JSONRPC v0.3 at https:\/\/b.example\/a2a\/jsonrpc; HTTP\+JSON v0.3 at https:\/\/b.example\/a2a\/rest; this client speaks JSONRPC\/HTTP\+JSON at v1.0/,
    );
  });
});

describe('cardCandidates', () => {
  it('keeps the base path, falls back to agent.json, then the origin root', () => {
    expect(cardCandidates('https://h.example/agents/x')).toEqual([
      'https://h.example/agents/x/.well-known/agent-card.json',
      'https://h.example/agents/x/.well-known/agent.json',
      'https://h.example/.well-known/agent-card.json',
      'https://h.example/.well-known/agent.json',
    ]);
    expect(cardCandidates('https://h.example')).toEqual([
      'https://h.example/.well-known/agent-card.json',
      'https://h.example/.well-known/agent.json',
    ]);
  });

  it('uses a card URL as is', () => {
    expect(cardCandidates('https://h.example/cards/mine.json')).toEqual(['https://h.example/cards/mine.json']);
    expect(cardCandidates('https://h.example/x/.well-known/agent-card.json?v=2')).toEqual(['https://h.example/x/.well-known/agent-card.json?v=2']);
  });
});

describe('resolveCard with a cache', () => {
  it('revalidates a stale card with its ETag and, on a 304, answers the cached card', async () => {
    const cardUrl = 'https://b.example/.well-known/agent-card.json';
    const exchanges: { url: string; ifNoneMatch: string | null; status: number }[] = [];
    // A server that says "always revalidate" (no-cache) and answers 304 to its own ETag.
    const fetch: FetchLike = (input, init) => {
      const ifNoneMatch = new Headers(init?.headers).get('if-none-match');
      const status = ifNoneMatch === '"v1"' ? 304 : 200;
      exchanges.push({ url: String(input), ifNoneMatch, status });
      const headers = { etag: '"v1"', 'cache-control': 'no-cache', 'content-type': 'application/json' };
      return Promise.resolve(status === 304 ? new Response(null, { status, headers }) : new Response(JSON.stringify(v03), { status, headers }));
    };
    const options = {
      http: new HttpClient({ fetch, timeoutMs: 5_000, maxResponseBytes: 100_000 }),
      cache: new MemoryCardCache(),
      defaultTtlMs: 60_000,
      maxBytes: 100_000,
      now: () => 1_000,
    };
    const first = await resolveCard(cardUrl, options);
    const second = await resolveCard(cardUrl, options);
    expect(exchanges).toEqual([
      { url: cardUrl, ifNoneMatch: null, status: 200 },
      { url: cardUrl, ifNoneMatch: '"v1"', status: 304 },
    ]);
    expect(first.fromCache).toBe(false);
    expect(first.card.name).toBe('Legacy');
    // A 304 carries no card: this one can only have come from the cache.
    expect(second).toEqual({ card: first.card, url: cardUrl, fromCache: true });
  });
});

describe('freshnessMs (RFC 9111)', () => {
  const h = (init: Record<string, string>): Headers => new Headers(init);
  it('reads no-store, no-cache, max-age minus Age, Expires, else the default', () => {
    expect(freshnessMs(h({ 'cache-control': 'no-store' }), 0, 99)).toEqual({ store: false, ttlMs: 0 });
    expect(freshnessMs(h({ 'cache-control': 'no-cache' }), 0, 99)).toEqual({ store: true, ttlMs: 0 });
    expect(freshnessMs(h({ 'cache-control': 'public, max-age=60', age: '10' }), 0, 99)).toEqual({ store: true, ttlMs: 50_000 });
    expect(freshnessMs(h({ expires: new Date(5_000).toUTCString() }), 1_000, 99)).toEqual({ store: true, ttlMs: 4_000 });
    expect(freshnessMs(h({}), 0, 99)).toEqual({ store: true, ttlMs: 99 });
  });
});

describe('planCredentials (scheme chosen from the card)', () => {
  const card = normalizeCard(v1);
  it('prefers an API key in a header over one in the query', () => {
    const plan = planCredentials({ apiKey: 'k' }, card.securitySchemes, card.securityRequirements);
    expect(plan).toEqual([{ placement: 'header', name: 'X-Key', prefix: '', secret: 'k', scheme: 'keyHeader' }]);
  });
  it('uses bearer for HTTP bearer / OAuth requirements', () => {
    const plan = planCredentials({ bearer: 'tok' }, card.securitySchemes, card.securityRequirements);
    expect(plan).toEqual([{ placement: 'header', name: 'Authorization', prefix: 'Bearer ', secret: 'tok', scheme: 'bearer' }]);
  });
  it('falls back to what was given when the card declares nothing', () => {
    expect(planCredentials({ apiKey: 'k' }, {}, [])).toEqual([{ placement: 'header', name: 'X-API-Key', prefix: '', secret: 'k' }]);
    expect(planCredentials({ basic: { username: 'u', password: 'p' } }, {}, [])).toEqual([
      { placement: 'header', name: 'Authorization', prefix: 'Basic ', secret: 'dTpw' },
    ]);
    expect(planCredentials({}, card.securitySchemes, card.securityRequirements)).toEqual([]);
  });
});
