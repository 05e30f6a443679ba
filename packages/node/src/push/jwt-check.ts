import { createHash } from 'node:crypto';
import { createLocalJWKSet, createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { JSONWebKeySet, JWTPayload } from 'jose';

/** How pushes signed as JWTs are verified (see {@link PushReceiverOptions.jwt}). */
export interface PushJwtOptions {
  /** The sender's keys: a JWKS URL (fetched and cached by `jose`) or the key set itself. */
  jwks: URL | string | JSONWebKeySet;
  /** The `aud` the JWT must carry (usually the webhook URL or the client's id). */
  audience: string;
  /** The `iss` the JWT must carry, when given. */
  issuer?: string | undefined;
  /** Accepted `alg` values (asymmetric only). Default `['RS256', 'ES256', 'EdDSA']`. */
  algorithms?: readonly string[] | undefined;
  /**
   * Require a `request_body_sha256` claim (hex SHA-256 of the body, as the A2A samples sign it).
   * Without this, the claim is checked only when present. Default false.
   */
  requireBodyHash?: boolean | undefined;
}

/** A verified JWT, reduced to what the receiver checks afterwards. */
export interface VerifiedJwt {
  readonly jti: string;
  readonly iatSec: number;
  readonly issuer: string | undefined;
  readonly taskId: string | undefined;
  readonly bodySha256: string | undefined;
}

/** Why a JWT was not accepted: `auth` → 401; `unavailable` (keys could not be fetched) → 503. */
export class JwtRefusal {
  constructor(
    readonly kind: 'auth' | 'unavailable',
    readonly reason: string,
  ) {}
}

const JWT_SHAPE = /^[\w-]+\.[\w-]*\.[\w-]*$/;

/** Whether a bearer credential is shaped like a compact JWS (three base64url segments). */
export function looksLikeJwt(credential: string): boolean {
  return JWT_SHAPE.test(credential);
}

/** Verifies push JWTs: signature against the JWKS, algorithm allowlist, `aud`/`iss`, `exp`, `iat`, `jti`. */
export class JwtCheck {
  readonly #keys: ReturnType<typeof createLocalJWKSet> | ReturnType<typeof createRemoteJWKSet>;
  readonly #options: PushJwtOptions;
  readonly #algorithms: string[];
  readonly #windowSec: number;

  constructor(options: PushJwtOptions, algorithms: readonly string[], windowSec: number) {
    this.#options = options;
    this.#algorithms = [...algorithms];
    this.#windowSec = windowSec;
    const { jwks } = options;
    this.#keys =
      typeof jwks === 'string' || jwks instanceof URL ? createRemoteJWKSet(new URL(jwks)) : createLocalJWKSet(jwks);
  }

  /** Verifies `token`; throws a {@link JwtRefusal}. */
  async verify(token: string, nowMs: number): Promise<VerifiedJwt> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys, {
        audience: this.#options.audience,
        ...(this.#options.issuer === undefined ? {} : { issuer: this.#options.issuer }),
        algorithms: this.#algorithms,
        currentDate: new Date(nowMs),
        requiredClaims: ['exp', 'iat', 'jti'],
      }));
    } catch (error) {
      throw refusalOf(error);
    }
    const iat = payload.iat as number; // required and checked numeric by jose
    if (Math.abs(nowMs / 1000 - iat) > this.#windowSec) {
      throw new JwtRefusal('auth', `JWT iat ${iat} is more than ${this.#windowSec} s from now`);
    }
    const jti = payload.jti;
    if (typeof jti !== 'string' || jti === '') throw new JwtRefusal('auth', 'JWT jti is not a non-empty string');
    const taskId = payload['taskId'];
    const bodySha256 = payload['request_body_sha256'];
    if (taskId !== undefined && typeof taskId !== 'string') throw new JwtRefusal('auth', 'JWT taskId claim is not a string');
    if (bodySha256 !== undefined && typeof bodySha256 !== 'string') {
      throw new JwtRefusal('auth', 'JWT request_body_sha256 claim is not a string');
    }
    if (bodySha256 === undefined && this.#options.requireBodyHash === true) {
      throw new JwtRefusal('auth', 'JWT has no request_body_sha256 claim');
    }
    return { jti, iatSec: iat, issuer: payload.iss, taskId, bodySha256 };
  }
}

/**
 * Whether the JWT's `request_body_sha256` matches the body. Accepted forms: the hex SHA-256 of the
 * raw body, or of its compact re-serialization (the A2A samples hash `json.dumps(..., separators=(',', ':'))`
 * of the payload, while their HTTP client sends it with spaces).
 */
export function bodyHashMatches(claim: string, rawBody: Uint8Array, parsed: unknown): boolean {
  const expected = claim.toLowerCase();
  if (createHash('sha256').update(rawBody).digest('hex') === expected) return true;
  return createHash('sha256').update(JSON.stringify(parsed), 'utf8').digest('hex') === expected;
}

function refusalOf(error: unknown): JwtRefusal {
  // Keys that could not be fetched say nothing about the sender: the receiver is unavailable.
  if (error instanceof errors.JWKSTimeout) return new JwtRefusal('unavailable', 'JWKS fetch timed out');
  if (error instanceof errors.JOSEError) {
    if (error.code === 'ERR_JOSE_GENERIC' && /fetch|JSON Web Key Set/i.test(error.message)) {
      return new JwtRefusal('unavailable', `JWKS unavailable: ${error.message}`);
    }
    return new JwtRefusal('auth', `JWT refused (${error.code}): ${error.message}`);
  }
  if (error instanceof TypeError) return new JwtRefusal('unavailable', `JWKS unavailable: ${error.message}`);
  return new JwtRefusal('auth', `JWT refused: ${error instanceof Error ? error.message : String(error)}`);
}
