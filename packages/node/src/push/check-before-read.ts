import type { HmacCheck } from './hmac-check.js';
import { JwtRefusal, type JwtCheck, type VerifiedJwt } from './jwt-check.js';
import { refusal, type Refusal } from './push-answer.js';
import type { Presented } from './screen-headers.js';

/** What checking the credentials before the body found. */
export interface CheckedHeaders {
  /** The JWT, verified. */
  readonly jwt: VerifiedJwt | undefined;
  /** The credentials are verified already: the body is read outside the unverified budget. */
  readonly verifiable: boolean;
}

/** What the receiver knows that the check needs. */
export interface HeaderCheckSetup {
  /** The presented token opens something: the receiver's token, or a registration's (here or on another replica). */
  readonly tokenOpens: boolean;
  readonly jwt: JwtCheck | undefined;
  readonly hmac: HmacCheck | undefined;
  readonly retryAfterSec: number;
  readonly nowMs: number;
}

/**
 * The authentication that needs no body, so a forged call costs no read: a token that opens nothing with no
 * signature beside it, a signature's id or timestamp out of bounds when nothing else could open, a JWT that
 * does not verify — all 401, whatever task the body would have named; JWT keys out of reach: 503.
 */
export async function checkBeforeRead(presented: Presented, setup: HeaderCheckSetup): Promise<CheckedHeaders | Refusal> {
  const { tokenOpens } = setup;
  if (presented.jwt === undefined && presented.hmac === undefined && !tokenOpens) {
    return refusal(401, "the token is neither the receiver's nor a registered task's");
  }
  if (presented.jwt === undefined && !tokenOpens && presented.hmac !== undefined && setup.hmac !== undefined) {
    const refused = setup.hmac.checkHeaders(presented.hmac, setup.nowMs);
    if (refused !== undefined) return refusal(401, refused);
  }
  let jwt: VerifiedJwt | undefined;
  if (presented.jwt !== undefined && setup.jwt !== undefined) {
    try {
      jwt = await setup.jwt.verify(presented.jwt, setup.nowMs);
    } catch (error) {
      if (error instanceof JwtRefusal && error.kind === 'auth') return refusal(401, error.reason);
      return refusal(503, error instanceof JwtRefusal ? error.reason : String(error), { retryAfterSec: setup.retryAfterSec });
    }
  }
  return { jwt, verifiable: jwt !== undefined || tokenOpens };
}
