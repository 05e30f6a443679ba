import type { CardVerifier } from '../card/card-verifier.js';
import { SIGNING_DEFAULTS } from './signing-defaults.js';
import { jwksFetcher, verifierConfig, verifyWith, type CardVerification, type VerifyCardOptions } from './verify-card-signatures.js';

/** Options of {@link cardVerifier}: those of `verifyCardSignatures()` (less `signal`: connect's is used), plus caching. */
export interface CardVerifierOptions extends Omit<VerifyCardOptions, 'signal'> {
  /** How long a fetched key set is reused across cards (default {@link SIGNING_DEFAULTS}.jwksCacheMs; `0`: never). */
  jwksCacheMs?: number | undefined;
  /** Clock of the key set cache (default `Date.now`). */
  now?: (() => number) | undefined;
  /** Told about every card that verified: which signature did, and why the others did not. */
  onVerified?: ((verification: CardVerification, url: string) => void) | undefined;
}

/**
 * A card verifier for `connect(url, { verifyCard })`: the card must carry a signature that
 * `verifyCardSignatures()` accepts with these options, else `connect()` fails with `SIGNATURE_INVALID`
 * before anything uses the card; the client then uses the verified card. Key sets fetched from the
 * allowlist are cached between cards.
 *
 * @example
 * ```ts
 * import { connect } from '@a2a-tether/core';
 * import { cardVerifier } from '@a2a-tether/core/signing';
 *
 * const verifyCard = cardVerifier({ trustedKeys: [agentPublicJwk] });
 * const client = await connect('https://agent.example', { verifyCard });
 * ```
 *
 * @throws TetherError `INVALID_ARGUMENT` at once for bad options (see {@link VerifyCardOptions}).
 */
export function cardVerifier(options: CardVerifierOptions): CardVerifier {
  const config = verifierConfig(options);
  const cacheMs = options.jwksCacheMs ?? SIGNING_DEFAULTS.jwksCacheMs;
  const fetcher = jwksFetcher(options, cacheMs >= 0 ? cacheMs : 0, options.now ?? Date.now);
  return async (card, context) => {
    const verification = await verifyWith(config, fetcher, card, context);
    options.onVerified?.(verification, context.url);
    return verification.card;
  };
}
