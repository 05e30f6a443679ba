// Signing cards for tests, the way an agent would: a JWS with detached payload over the canonical card.
import { exportJWK, FlattenedSign, generateKeyPair } from 'jose';
import type { CryptoKey, JWK } from 'jose';
import { expect } from 'vitest';
import { TetherError } from '../../src/index.js';
import { cardSigningPayload, type CardCanonicalForm } from '../../src/signing-entry.js';

/** A signing key pair and its public JWK (with `kid` and `alg`). */
export interface TestKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export async function testKey(kid: string, alg = 'ES256'): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg } };
}

export interface SignatureEntry {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

/** One signature over `card` (its own `signatures` are not covered) with `key`; `header` adds protected parameters. */
export async function signatureOf(
  card: Record<string, unknown>,
  key: TestKey,
  header: Record<string, unknown> = {},
  form: CardCanonicalForm = 'spec',
): Promise<SignatureEntry> {
  const payload = new TextEncoder().encode(cardSigningPayload(card, { form }));
  const jws = await new FlattenedSign(payload).setProtectedHeader({ alg: key.alg, typ: 'JOSE', kid: key.kid, ...header }).sign(key.privateKey);
  return { protected: jws.protected as string, signature: jws.signature };
}

/** `card` with signatures by each key added. */
export async function signCard(card: Record<string, unknown>, ...keys: TestKey[]): Promise<Record<string, unknown>> {
  const signatures = await Promise.all(keys.map((key) => signatureOf(card, key)));
  return { ...card, signatures };
}

/** base64url of a JSON header, for hand-made protected headers. */
export function encodeHeader(header: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(header)).toString('base64url');
}

/** The decoded protected header of a signature. */
export function decodeHeader(encoded: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** A small v1.0 card (ProtoJSON, as an agent serves it). */
export function v1CardJson(origin = 'https://agent.example'): Record<string, unknown> {
  return {
    name: 'Weather agent',
    description: 'Forecasts.',
    supportedInterfaces: [{ url: `${origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'forecast', name: 'Forecast', description: 'Tells the weather.', tags: ['weather'] }],
  };
}

/** The TetherError `promise` rejects with, which must have `code` (by default a refused signature). */
export async function refusal(promise: Promise<unknown>, code = 'SIGNATURE_INVALID'): Promise<TetherError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).code).toBe(code);
    return error as TetherError;
  }
  throw new Error(`expected ${code}`);
}
