/**
 * Defaults of card signature verification (`@a2a-tether/core/signing`), in one place.
 *
 * - `algorithms`: the asymmetric JWS algorithms accepted unless `algorithms` narrows them. `none` and
 *   the HMAC family (`HS*`) are never accepted: an HMAC "verified" with a public key proves nothing.
 * - `jwksTimeoutMs` / `jwksMaxBytes`: bounds of one JWKS request (an allowlisted `jku` or JWKS URL).
 * - `jwksCacheMs`: how long a fetched key set is reused (a `kid` it lacks fetches it again once).
 * - `maxSignatures`: a card with more signatures is refused before any is checked.
 */
export const SIGNING_DEFAULTS: Readonly<{
  algorithms: readonly string[];
  jwksTimeoutMs: number;
  jwksMaxBytes: number;
  jwksCacheMs: number;
  maxSignatures: number;
}> = Object.freeze({
  algorithms: Object.freeze(['ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512']),
  jwksTimeoutMs: 5_000,
  jwksMaxBytes: 64 * 1024,
  jwksCacheMs: 5 * 60_000,
  maxSignatures: 8,
});
