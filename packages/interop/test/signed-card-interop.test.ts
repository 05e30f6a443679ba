import { webcrypto } from 'node:crypto';
import { canonicalizeAgentCard, generateAgentCardSignature, verifyAgentCardSignature } from '@a2a-js/sdk';
import type { AgentCard } from '@a2a-js/sdk';
import { TetherError } from '@a2a-tether/core';
import { cardSigningPayload, cardVerifier, verifyCardSignatures } from '@a2a-tether/core/signing';
import { connect } from '@a2a-tether/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OfficialServer } from '../src/official-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';

// Signed Agent Cards between Tether and the official @a2a-js/sdk 1.3.0 helpers (generateAgentCardSignature,
// verifyAgentCardSignature, canonicalizeAgentCard). Findings:
// - For cards whose REQUIRED fields are all non-empty, with nothing outside the v1.0 card and no security
//   scheme (what the interop server serves), the SDK signs the spec's payload (§8.4.1): its signatures
//   verify in Tether's default form.
// - The SDK drops every empty value — REQUIRED fields included — and every unknown field before signing,
//   unlike §8.4.1: such cards verify only with the flagged `form: 'a2a-js'`, and the verified card lacks
//   what was dropped.
// - A security scheme written as the SDK's TypeScript type has it (`{ scheme: { $case, value } }`, which
//   its server serves as is) is not in what the SDK signs: `AgentCard.fromJSON` does not read that shape.
//   Tether refuses it in the spec form; in the 'a2a-js' form it verifies and the verified card has no
//   security schemes (they were not signed), while the SDK's own verifier accepts them altered.

interface KeyPair {
  privateKey: webcrypto.CryptoKey;
  publicJwk: Record<string, unknown>;
}

async function keyPair(kid: string): Promise<KeyPair> {
  const pair = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  return { privateKey: pair.privateKey, publicJwk: { ...(await webcrypto.subtle.exportKey('jwk', pair.publicKey)), kid, alg: 'ES256' } };
}

/** A card as the SDK's users write it (the interop server's own style: empty lists and tenants spelled out). */
function officialStyleCard(): AgentCard {
  return {
    name: 'Agent météo 気象 🌦',
    description: 'Prévisions — 天気予報',
    supportedInterfaces: [{ url: 'http://127.0.0.1:1/a2a/jsonrpc', protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: { organization: 'Société Météo', url: 'https://meteo.example' },
    version: '1.0.0',
    documentationUrl: 'https://meteo.example/docs',
    capabilities: { streaming: true, pushNotifications: false, extensions: [{ uri: 'urn:x', description: '', required: false, params: { level: 2 } }], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [{ schemes: { bearer: { list: ['forecast:read'] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills: [{ id: 'forecast', name: 'Prévision', description: 'Tells the weather.', tags: ['weather'], examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
}

/** The card as the SDK's card handler serves it: `JSON.stringify` of the object. */
function served(card: AgentCard): Record<string, unknown> {
  return JSON.parse(JSON.stringify(card)) as Record<string, unknown>;
}

const sign = (card: AgentCard): Promise<AgentCard> => generateAgentCardSignature(key.privateKey, { alg: 'ES256', typ: 'JOSE', kid: 'sdk-key' })(card);

async function refusal(promise: Promise<unknown>): Promise<TetherError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).code).toBe('SIGNATURE_INVALID');
    return error as TetherError;
  }
  throw new Error('expected SIGNATURE_INVALID');
}

let key: KeyPair;
beforeAll(async () => {
  key = await keyPair('sdk-key');
});

describe("Tether's 'a2a-js' form is the official canonicalizeAgentCard", () => {
  const cards: [string, Record<string, unknown>][] = [
    ['an official-style card', served(officialStyleCard())],
    ['the spec §8.4.1 example', { name: 'Example Agent', description: '', capabilities: { streaming: false, pushNotifications: false, extensions: [] }, skills: [] }],
    ['empty required fields', { name: '', description: '', version: '', capabilities: {}, skills: [{ id: 's', name: '', description: '', tags: [] }], provider: { url: '', organization: '' } }],
    ['an mTLS scheme and empty scopes', { name: 'A', securitySchemes: { m: { mtlsSecurityScheme: {} }, o: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 't', scopes: { read: '' } } } } } } }],
    ['snake_case names and unknown fields', { name: 'A', default_input_modes: ['text/plain'], url: 'https://a', protocolVersion: '0.3.0', 'x-extra': { a: 1 } }],
    ['Struct params with empties', { name: 'A', capabilities: { extensions: [{ uri: 'u', params: { e: '', n: null, l: ['', 1, false], d: { x: [] } } }] } }],
    ['empty strings in lists', { name: 'A', defaultInputModes: ['', 'text/plain'], skills: [{ id: 's', name: 'S', description: 'd', tags: ['', 't'], examples: [''] }] }],
  ];

  it.each(cards)('%s', (_name, card) => {
    expect(cardSigningPayload(card, { form: 'a2a-js' })).toBe(canonicalizeAgentCard(card as unknown as AgentCard));
  });

  it('equals the spec form for official-style cards, and differs where §8.4.1 keeps empty required fields', () => {
    const [official, example, empties] = cards.map(([, card]) => card);
    expect(cardSigningPayload(official)).toBe(canonicalizeAgentCard(official as unknown as AgentCard));
    expect(cardSigningPayload(example)).not.toBe(canonicalizeAgentCard(example as unknown as AgentCard));
    expect(cardSigningPayload(empties)).not.toBe(canonicalizeAgentCard(empties as unknown as AgentCard));
  });
});

describe('cards signed by the official generateAgentCardSignature', () => {
  it('verify in the default (spec) form when every required field is filled', async () => {
    const signed = served(await sign(officialStyleCard()));
    const result = await verifyCardSignatures(signed, { trustedKeys: [key.publicJwk] });
    expect(result.signatures).toEqual([{ index: 0, valid: true, alg: 'ES256', kid: 'sdk-key', keySource: 'trustedKeys' }]);
    expect(result.card['name']).toBe('Agent météo 気象 🌦');
    // Tampering is caught.
    await refusal(verifyCardSignatures({ ...signed, name: 'Agent météo' }, { trustedKeys: [key.publicJwk] }));
  });

  it("with an empty required field, verify only in the flagged 'a2a-js' form, and lose what was not signed", async () => {
    const signed = served(await sign({ ...officialStyleCard(), description: '' }));
    const error = await refusal(verifyCardSignatures(signed, { trustedKeys: [key.publicJwk] }));
    expect(error.message).toContain('signature verification failed');
    const result = await verifyCardSignatures(signed, { trustedKeys: [key.publicJwk], form: 'a2a-js' });
    expect(result.card).not.toHaveProperty('description');
    expect(result.card['name']).toBe('Agent météo 気象 🌦');
  });
});

describe("a security scheme in the SDK's TypeScript shape is not covered by its signature", () => {
  const typed = (): AgentCard => ({
    ...officialStyleCard(),
    securitySchemes: { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: '', scheme: 'Bearer', bearerFormat: 'JWT' } } } },
  });

  it('the SDK accepts the scheme altered; Tether refuses the card (spec) or verifies it without the scheme (a2a-js)', async () => {
    const signed = served(await sign(typed()));
    const altered = { ...signed, securitySchemes: { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: 'Basic' } } } } };
    await expect(verifyAgentCardSignature(async () => key.publicJwk)(altered as unknown as AgentCard)).resolves.toBeUndefined();
    await refusal(verifyCardSignatures(signed, { trustedKeys: [key.publicJwk] }));
    const result = await verifyCardSignatures(altered, { trustedKeys: [key.publicJwk], form: 'a2a-js' });
    expect(result.card).not.toHaveProperty('securitySchemes');
  });
});

describe('cards signed the spec way verify with the official verifyAgentCardSignature', () => {
  it('for an official-style card', async () => {
    const card = served(officialStyleCard());
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JOSE', kid: 'tether-key' })).toString('base64url');
    const payload = Buffer.from(cardSigningPayload(card)).toString('base64url');
    const raw = await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, key.privateKey, new TextEncoder().encode(`${header}.${payload}`));
    const signed = { ...card, signatures: [{ protected: header, signature: Buffer.from(raw).toString('base64url') }] };
    const verify = verifyAgentCardSignature(async () => key.publicJwk);
    await expect(verify(signed as unknown as AgentCard)).resolves.toBeUndefined();
    await expect(verifyCardSignatures(signed, { trustedKeys: [{ ...key.publicJwk, kid: 'tether-key' }] })).resolves.toBeDefined();
  });
});

describe('connect() with verifyCard against the official v1.0 server signing its cards', () => {
  let server: OfficialServer;
  beforeAll(async () => {
    server = await startOfficialV1Server({ cardSigner: generateAgentCardSignature(key.privateKey, { alg: 'ES256', typ: 'JOSE', kid: 'sdk-key' }) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('verifies the public and the extended card, and the client works', async () => {
    const verifyCard = cardVerifier({ trustedKeys: [key.publicJwk] });
    const client = await connect(server.origin, { verifyCard, cardCache: false });
    expect(client.card.name).toBe('Tether interop agent (@a2a-js/sdk 1.3.0)');
    expect(client.card.signatures).toHaveLength(1);
    const reply = await client.sendMessage('echo signed');
    expect(JSON.stringify(reply)).toContain('signed');
    const extended = await client.getExtendedCard();
    expect(extended.description).toContain('(extended card)');
  });

  it('refuses it when the key is not trusted', async () => {
    const stranger = await keyPair('sdk-key');
    const error = await refusal(connect(server.origin, { verifyCard: cardVerifier({ trustedKeys: [stranger.publicJwk] }), cardCache: false }));
    expect(error.message).toContain('signature verification failed');
  });
});
