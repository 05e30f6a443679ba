import type { VerifiedHmac } from './hmac-check.js';
import type { VerifiedJwt } from './jwt-check.js';
import type { PushCredential } from './push-sender.js';

/** An id remembered against replays: the key, until when (ms), and the status when it comes with another body. */
export interface ReplayKey {
  readonly key: string;
  readonly expiresAtMs: number;
  readonly reuse: 401 | 409;
}

/**
 * What the credentials of one push proved — all of it checkable without state, so the replica the push
 * landed on finds it and the replica that holds the registration decides on it alike — and the task the
 * body names.
 */
export interface CredentialFacts {
  /** The task the body names. */
  readonly taskId: string;
  /**
   * The registration the presented token is the token of (found by its SHA-256), with the task it is bound
   * to (`undefined`: the agent has not named it yet); `undefined` when the token is no registration's.
   */
  readonly tokenRegistration: { readonly taskId: string | undefined } | undefined;
  /** The receiver-wide token was presented. */
  readonly receiverToken: boolean;
  /** A JWT verified against the JWKS (signature, `aud`, `iss`, `exp`, `iat`), and whether its body hash claim matches. */
  readonly jwt: { readonly claims: VerifiedJwt; readonly bodyMatches: boolean } | undefined;
  /** A Standard Webhooks signature checked on the raw bytes: verified, or why not. */
  readonly hmac: VerifiedHmac | string | undefined;
  readonly windowSec: number;
}

/**
 * Which credential opens a push, what it opens — the token's own `registration`, or the registrations of the
 * `task` the body names that have no token (receiver-wide credentials) — and the id it spends against
 * replays; or why nothing opens it.
 */
export type CredentialDecision =
  | { readonly opens: 'registration' | 'task'; readonly credential: PushCredential; readonly replay: ReplayKey | undefined }
  | { readonly opens: undefined; readonly reason: string };

/**
 * Decides which credential opens a push: the one rule for the replica a push lands on and the replica that
 * holds its registration. A signature (HMAC, then JWT) says who sent it and spends its id. A registration's
 * own token opens that registration only, for the task it is bound to (or, before the agent named it, for
 * whichever task the body names: checked when it is named); beside it a signature still spends its id.
 * Without one, the receiver-wide credentials (a signature, or the receiver's token) open the registrations
 * without a token of the task the body names.
 */
export function decideCredential(facts: CredentialFacts): CredentialDecision {
  let signed: { credential: PushCredential; replay: ReplayKey } | undefined;
  let failure = 'credentials do not match';
  const { hmac, jwt, windowSec, taskId } = facts;
  if (hmac !== undefined) {
    if (typeof hmac === 'string') failure = hmac;
    else signed = { credential: 'hmac', replay: { key: `hmac:${hmac.id}`, expiresAtMs: (hmac.timestampSec + windowSec) * 1000, reuse: 409 } };
  }
  if (signed === undefined && jwt !== undefined) {
    const { claims } = jwt;
    if (claims.taskId !== undefined && claims.taskId !== taskId) failure = `the JWT is for task ${claims.taskId}`;
    else if (!jwt.bodyMatches) failure = 'the JWT request_body_sha256 does not match the body';
    else signed = { credential: 'jwt', replay: { key: `jwt:${claims.issuer ?? ''}:${claims.jti}`, expiresAtMs: (claims.iatSec + windowSec) * 1000, reuse: 401 } };
  }
  const own = facts.tokenRegistration;
  if (own !== undefined) {
    if (own.taskId !== undefined && own.taskId !== taskId) return { opens: undefined, reason: `the token is not task ${taskId}'s` };
    return { opens: 'registration', credential: 'task-token', replay: signed?.replay };
  }
  if (signed !== undefined) return { opens: 'task', ...signed };
  if (facts.receiverToken) return { opens: 'task', credential: 'token', replay: undefined };
  return { opens: undefined, reason: failure };
}
