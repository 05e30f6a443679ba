import type { CryptoKey, JWK, KeyObject } from 'jose';
import { TetherError } from '../errors/tether-error.js';
import { isObject } from '../util/is-object.js';

/**
 * A public key the caller trusts to sign cards, found by the `kid` of a signature's protected header:
 * a public JWK carrying its `kid`, or `{ kid, key }` with a JWK, a WebCrypto `CryptoKey` or a Node
 * `KeyObject` (public keys only).
 */
export type TrustedKey = JWK | { kid: string; key: CryptoKey | KeyObject | JWK };

/** A usable verification key and, for JWKs, the algorithm it is restricted to. */
export interface VerificationKey {
  key: CryptoKey | KeyObject | JWK;
  /** The JWK's `alg`, when it names one. */
  alg?: string | undefined;
}

// Members that make a JWK secret: private parts of RSA, EC, OKP and AKP keys, and the octets of a symmetric one.
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];

/** Why `jwk` cannot verify signatures, or `undefined` when it can. */
export function unusableJwk(jwk: Record<string, unknown>): string | undefined {
  if (typeof jwk['kty'] !== 'string') return 'it has no kty';
  if (jwk['kty'] === 'oct') return 'it is a symmetric (oct) key';
  if (PRIVATE_MEMBERS.some((name) => Object.hasOwn(jwk, name))) return 'it holds private key material';
  if (jwk['use'] !== undefined && jwk['use'] !== 'sig') return `its use is ${JSON.stringify(jwk['use'])}, not "sig"`;
  const ops = jwk['key_ops'];
  if (ops !== undefined && !(Array.isArray(ops) && ops.includes('verify'))) return 'its key_ops do not include "verify"';
  return undefined;
}

function isJwk(value: unknown): value is JWK {
  return isObject(value) && typeof value['kty'] === 'string';
}

function refuse(detail: string): never {
  throw new TetherError('INVALID_ARGUMENT', `card signing: ${detail}`, { maybeDelivered: false });
}

/** A usable key from a trusted entry; refuses private, secret and symmetric keys outright. */
function verificationKey(kid: string, key: unknown): VerificationKey {
  if (isJwk(key)) {
    const why = unusableJwk(key as Record<string, unknown>);
    if (why) refuse(`trusted key "${kid}" cannot verify signatures: ${why}`);
    return { key, alg: typeof key.alg === 'string' ? key.alg : undefined };
  }
  // CryptoKey and KeyObject both say what they are in `type`.
  const type = typeof key === 'object' && key !== null ? (key as { type?: unknown }).type : undefined;
  if (type !== 'public') {
    refuse(`trusted key "${kid}" is not a public key (a JWK, or a CryptoKey / KeyObject of type "public"; got ${type === undefined ? typeof key : `type ${String(type)}`})`);
  }
  return { key: key as CryptoKey | KeyObject };
}

/**
 * The trusted keys by `kid` (a `kid` may name several keys, e.g. one per algorithm).
 *
 * @throws TetherError `INVALID_ARGUMENT` for an entry without a `kid`, or a key that is private,
 *   secret, symmetric, or restricted to another use than verifying signatures.
 */
export function indexTrustedKeys(keys: readonly TrustedKey[]): Map<string, VerificationKey[]> {
  const byKid = new Map<string, VerificationKey[]>();
  keys.forEach((entry, i) => {
    if (!isObject(entry)) refuse(`trustedKeys[${i}] is not a JWK or { kid, key }`);
    const kid = entry['kid'];
    if (typeof kid !== 'string' || kid === '') refuse(`trustedKeys[${i}] has no kid (signatures name their key by kid)`);
    const key = isJwk(entry) ? entry : entry['key'];
    byKid.set(kid, [...(byKid.get(kid) ?? []), verificationKey(kid, key)]);
  });
  return byKid;
}
