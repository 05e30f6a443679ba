import type { VerifiedHmac } from './hmac-check.js';
import type { VerifiedJwt } from './jwt-check.js';
import type { PushCredential } from './push-sender.js';

/** An id remembered against replays: the key, until when (ms), and the status when it comes with another body. */
export interface ReplayKey {
  readonly key: string;
  readonly expiresAtMs: number;
  readonly reuse: 401 | 409;
}

/** What the credentials of one push proved, and what the receiver holds for the task the body names. */
export interface CredentialFacts {
  /** The task the body names. */
  readonly taskId: string;
  /** Whether the task has a token of its own, and whether the one presented is it. */
  readonly taskToken: 'none' | 'matches' | 'differs';
  /** The receiver-wide token was presented. */
  readonly receiverToken: boolean;
  /** A JWT verified against the JWKS (signature, `aud`, `iss`, `exp`, `iat`), and whether its body hash claim matches. */
  readonly jwt: { readonly claims: VerifiedJwt; readonly bodyMatches: boolean } | undefined;
  /** A Standard Webhooks signature checked on the raw bytes: verified, or why not. */
  readonly hmac: VerifiedHmac | string | undefined;
  readonly windowSec: number;
}

/** Which credential opens the push (and the id it spends against replays), or why none does. */
export type CredentialDecision =
  | { readonly opens: true; readonly credential: PushCredential; readonly replay: ReplayKey | undefined }
  | { readonly opens: false; readonly reason: string };

/**
 * Decides which credential opens a push — the one rule for pushes received here and pushes another replica
 * hands over. A signature (HMAC, then JWT) says who sent it and spends its id; a task's own token says the
 * push is for that task's config: when the task has one, it is required (alone, or beside a signature), and
 * the receiver-wide token no longer opens the task.
 */
export function decideCredential(facts: CredentialFacts): CredentialDecision {
  let signed: { credential: PushCredential; replay: ReplayKey } | undefined;
  let failure = 'credentials do not match';
  const { hmac, jwt, windowSec } = facts;
  if (hmac !== undefined) {
    if (typeof hmac === 'string') failure = hmac;
    else signed = { credential: 'hmac', replay: { key: `hmac:${hmac.id}`, expiresAtMs: (hmac.timestampSec + windowSec) * 1000, reuse: 409 } };
  }
  if (signed === undefined && jwt !== undefined) {
    const { claims } = jwt;
    if (claims.taskId !== undefined && claims.taskId !== facts.taskId) failure = `the JWT is for task ${claims.taskId}`;
    else if (!jwt.bodyMatches) failure = 'the JWT request_body_sha256 does not match the body';
    else signed = { credential: 'jwt', replay: { key: `jwt:${claims.issuer ?? ''}:${claims.jti}`, expiresAtMs: (claims.iatSec + windowSec) * 1000, reuse: 401 } };
  }
  if (facts.taskToken === 'matches') return { opens: true, credential: 'task-token', replay: signed?.replay };
  if (facts.taskToken === 'differs') return { opens: false, reason: "the task's token is missing or does not match" };
  if (signed !== undefined) return { opens: true, ...signed };
  if (facts.receiverToken) return { opens: true, credential: 'token', replay: undefined };
  return { opens: false, reason: failure };
}
