import { TetherError } from '../errors/tether-error.js';
import type { AgentCard } from './card-types.js';
import { cardReader } from './load-card-reader.js';

/** What a {@link CardVerifier} is told besides the card. */
export interface CardVerifierContext {
  /** Where the card was found (for `connect(url, { card })`, the URL passed to `connect`). */
  url: string;
  /** Aborts the verification (e.g. the requests of a key set). */
  signal?: AbortSignal | undefined;
}

/**
 * Checks an agent card before the client uses it: given the card JSON as served, it resolves to the
 * card JSON the client must use — only what the check covered — or rejects to refuse the card.
 * `cardVerifier()` of `@a2a-tether/core/signing` builds one that verifies the card's JWS signatures
 * (a function type, so the root entry never loads the JOSE code).
 */
export type CardVerifier = (card: Record<string, unknown>, context: CardVerifierContext) => Promise<Record<string, unknown>>;

/**
 * The card `verify` returns, normalized; a verifier's own failure becomes `SIGNATURE_INVALID`.
 *
 * @throws TetherError what the verifier threw (if a `TetherError`), `SIGNATURE_INVALID`, or
 *   `CARD_INVALID` when what it returned is no card.
 */
export async function verifiedCard(verify: CardVerifier, card: AgentCard, context: CardVerifierContext): Promise<AgentCard> {
  let checked: Record<string, unknown>;
  try {
    checked = await verify(card.raw, context);
  } catch (error) {
    if (error instanceof TetherError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new TetherError('SIGNATURE_INVALID', `the card verifier refused the agent card: ${detail.slice(0, 200)}`, {
      operation: 'GetAgentCard',
      url: context.url,
      cause: error,
    });
  }
  return (await cardReader.get()).normalizeCard(checked, context.url);
}
