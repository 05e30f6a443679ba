import { describe, expect, it } from 'vitest';
import type { VerifiedJwt } from './jwt-check.js';
import { decideCredential, type CredentialFacts } from './push-credential.js';

const JWT: VerifiedJwt = { jti: 'j1', iatSec: 1000, issuer: 'agent', taskId: undefined, bodySha256: undefined };
const BASE: CredentialFacts = { taskId: 't1', tokenRegistration: undefined, receiverToken: false, jwt: undefined, hmac: undefined, windowSec: 300 };
const jwt = (claims: Partial<VerifiedJwt> = {}, bodyMatches = true): CredentialFacts['jwt'] => ({ claims: { ...JWT, ...claims }, bodyMatches });
const HMAC = { id: 'w1', timestampSec: 2000 };
const OWN = { taskId: 't1' };
const EARLY = { taskId: undefined };
const OTHER = { taskId: 't2' };

// Each row: the facts (over BASE); what it opens — the token's `registration`, the tokenless registrations of
// the `task`, or `refused` —; the credential; the id spent against replays.
const TABLE: Array<[string, Partial<CredentialFacts>, 'registration' | 'task' | 'refused', string?, string?]> = [
  ['nothing presented', {}, 'refused'],
  ['the receiver token', { receiverToken: true }, 'task', 'token'],
  ['a JWT', { jwt: jwt() }, 'task', 'jwt', 'jwt:agent:j1'],
  ['a JWT for another task', { jwt: jwt({ taskId: 't2' }) }, 'refused'],
  ['a JWT for this task', { jwt: jwt({ taskId: 't1' }) }, 'task', 'jwt', 'jwt:agent:j1'],
  ['a JWT whose body hash does not match', { jwt: jwt({ bodySha256: 'ab' }, false) }, 'refused'],
  ['a JWT whose body hash does not match, and the receiver token', { jwt: jwt({ bodySha256: 'ab' }, false), receiverToken: true }, 'task', 'token'],
  ['an HMAC signature', { hmac: HMAC }, 'task', 'hmac', 'hmac:w1'],
  ['a bad HMAC signature', { hmac: 'no v1 signature matches' }, 'refused'],
  ['an HMAC signature and a JWT: the signature first', { hmac: HMAC, jwt: jwt() }, 'task', 'hmac', 'hmac:w1'],
  ["a registration's token, bound to this task", { tokenRegistration: OWN }, 'registration', 'task-token'],
  ["a registration's token, its task not named yet (an early push)", { tokenRegistration: EARLY }, 'registration', 'task-token'],
  ["a registration's token, bound to another task", { tokenRegistration: OTHER }, 'refused'],
  ["another task's token beside the receiver token", { tokenRegistration: OTHER, receiverToken: true }, 'refused'],
  ["another task's token beside a JWT", { tokenRegistration: OTHER, jwt: jwt() }, 'refused'],
  ["a registration's token beside a JWT: the JWT's id is spent", { tokenRegistration: OWN, jwt: jwt() }, 'registration', 'task-token', 'jwt:agent:j1'],
  ["a registration's token beside a JWT for another task: the token opens, no id spent", { tokenRegistration: OWN, jwt: jwt({ taskId: 't2' }) }, 'registration', 'task-token'],
  ["a registration's token beside a signature", { tokenRegistration: OWN, hmac: HMAC }, 'registration', 'task-token', 'hmac:w1'],
  ["a registration's token beside a bad signature", { tokenRegistration: OWN, hmac: 'no v1 signature matches' }, 'registration', 'task-token'],
];

describe('decideCredential: which credential opens a push (where it lands and where it is admitted)', () => {
  it.each(TABLE)('%s', (_, facts, opens, credential, replay) => {
    const decision = decideCredential({ ...BASE, ...facts });
    if (opens === 'refused') {
      expect(decision.opens).toBeUndefined();
      expect(decision.opens === undefined && decision.reason.length > 0).toBe(true);
    } else {
      expect(decision).toMatchObject({ opens, credential });
      expect(decision.opens !== undefined && decision.replay?.key).toBe(replay);
    }
  });

  it('a replay id lives until its timestamp + the window; a reused JWT id is 401, a reused webhook id 409', () => {
    expect(decideCredential({ ...BASE, jwt: jwt() })).toMatchObject({ replay: { expiresAtMs: 1_300_000, reuse: 401 } });
    expect(decideCredential({ ...BASE, hmac: HMAC })).toMatchObject({ replay: { expiresAtMs: 2_300_000, reuse: 409 } });
  });
});
