// @a2a-tether/core/signing — signed Agent Cards (A2A v1.0 §8.4): RFC 8785 canonical JSON, JWS verification
// of a card's signatures, and the verifier `connect(url, { verifyCard })` takes. A subpath so that `jose`
// enters only the bundles that import it. Every public name is listed here on purpose (decisions.md D11).

export { canonicalize } from './signing/canonicalize.js';
export { cardSigningPayload } from './signing/card-payload.js';
export type { CardCanonicalForm, CardPayloadOptions } from './signing/card-payload.js';
export { verifyCardSignatures } from './signing/verify-card-signatures.js';
export type { VerifyCardOptions, CardVerification, CardSignatureReport } from './signing/verify-card-signatures.js';
export { cardVerifier } from './signing/card-verifier.js';
export type { CardVerifierOptions } from './signing/card-verifier.js';
export type { TrustedKey } from './signing/trusted-keys.js';
export { SIGNING_DEFAULTS } from './signing/signing-defaults.js';
export type { CardVerifier, CardVerifierContext } from './card/card-verifier.js';
