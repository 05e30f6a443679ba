import { describe, expect, it } from 'vitest';
import type { VerifiedJwt } from './jwt-check.js';
import { decideCredential, type CredentialFacts } from './push-credential.js';

const JWT: VerifiedJwt = { jti: 'j1', iatSec: 1000, issuer: 'agent', taskId: undefined, bodySha256: undefined };
const BASE: CredentialFacts = { taskId: 't1', taskToken: 'none', receiverToken: false, jwt: undefined, hmac: undefined, windowSec: 300 };
const jwt = (claims: Partial<VerifiedJwt> = {}, bodyMatches = true): CredentialFacts['jwt'] => ({ claims: { ...JWT, ...claims }, bodyMatches });
const HMAC = { id: 'w1', timestampSec: 2000 };

// Each row: the facts (over BASE), then what opens the push (credential, replay key) or `refused`.
const TABLE: Array<[string, Partial<CredentialFacts>, string, string | undefined]> = [
  ['nothing presented', {}, 'refused', undefined],
  ['the receiver token', { receiverToken: true }, 'token', undefined],
  ['a JWT', { jwt: jwt() }, 'jwt', 'jwt:agent:j1'],
  ['a JWT for another task', { jwt: jwt({ taskId: 't2' }) }, 'refused', undefined],
  ['a JWT for this task', { jwt: jwt({ taskId: 't1' }) }, 'jwt', 'jwt:agent:j1'],
  ['a JWT whose body hash does not match', { jwt: jwt({ bodySha256: 'ab' }, false) }, 'refused', undefined],
  ['a JWT whose body hash does not match, and the receiver token', { jwt: jwt({ bodySha256: 'ab' }, false), receiverToken: true }, 'token', undefined],
  ['an HMAC signature', { hmac: HMAC }, 'hmac', 'hmac:w1'],
  ['a bad HMAC signature', { hmac: 'no v1 signature matches' }, 'refused', undefined],
  ['an HMAC signature and a JWT: the signature first', { hmac: HMAC, jwt: jwt() }, 'hmac', 'hmac:w1'],
  ["the task's own token", { taskToken: 'matches' }, 'task-token', undefined],
  ["the task's own token beside a JWT: the JWT's id is spent", { taskToken: 'matches', jwt: jwt() }, 'task-token', 'jwt:agent:j1'],
  ["the task's own token beside a signature", { taskToken: 'matches', hmac: HMAC }, 'task-token', 'hmac:w1'],
  ["a task with its own token, the receiver token", { taskToken: 'differs', receiverToken: true }, 'refused', undefined],
  ["a task with its own token, a JWT only", { taskToken: 'differs', jwt: jwt() }, 'refused', undefined],
  ["a task with its own token, a signature only", { taskToken: 'differs', hmac: HMAC }, 'refused', undefined],
];

describe('decideCredential: which credential opens a push (direct and relayed alike)', () => {
  it.each(TABLE)('%s', (_, facts, opens, replay) => {
    const decision = decideCredential({ ...BASE, ...facts });
    if (opens === 'refused') {
      expect(decision.opens).toBe(false);
      expect(decision.opens === false && decision.reason.length > 0).toBe(true);
    } else {
      expect(decision).toMatchObject({ opens: true, credential: opens });
      expect(decision.opens && decision.replay?.key).toBe(replay ?? undefined);
    }
  });

  it('a replay id lives until its timestamp + the window; a reused JWT id is 401, a reused webhook id 409', () => {
    expect(decideCredential({ ...BASE, jwt: jwt() })).toMatchObject({ replay: { expiresAtMs: 1_300_000, reuse: 401 } });
    expect(decideCredential({ ...BASE, hmac: HMAC })).toMatchObject({ replay: { expiresAtMs: 2_300_000, reuse: 409 } });
  });
});
