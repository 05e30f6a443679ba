import { describe, expect, it } from 'vitest';
import { checkBeforeRead, type HeaderCheckSetup } from './check-before-read.js';
import { HmacCheck } from './hmac-check.js';
import { JwtRefusal, type JwtCheck, type VerifiedJwt } from './jwt-check.js';
import type { Presented } from './screen-headers.js';

const NOW = 1_900_000_000_000;
const CLAIMS: VerifiedJwt = { jti: 'j', iatSec: NOW / 1000, issuer: undefined, taskId: undefined, bodySha256: undefined };
const jwtCheck = (outcome: VerifiedJwt | JwtRefusal): JwtCheck => ({ verify: () => (outcome instanceof JwtRefusal ? Promise.reject(outcome) : Promise.resolve(outcome)) }) as unknown as JwtCheck;
const SETUP: HeaderCheckSetup = { tokenOpens: false, jwt: undefined, hmac: new HmacCheck({ secret: 'k' }, 300), retryAfterSec: 1, nowMs: NOW };
const presented = (extra: Partial<Presented>): Presented => ({ declared: Number.NaN, jwt: undefined, token: undefined, hmac: undefined, ...extra });
const signed = (timestamp: string, id = 'w1') => ({ id, timestamp, signature: 'v1,x' });

describe('checkBeforeRead', () => {
  it('a token that opens nothing (here or on any replica), alone, is refused before the read', async () => {
    expect(await checkBeforeRead(presented({ token: 'forged' }), SETUP)).toMatchObject({ kind: 'refused', status: 401 });
    expect(await checkBeforeRead(presented({ token: 'good' }), { ...SETUP, tokenOpens: true })).toMatchObject({ verifiable: true });
  });

  it('signature headers out of bounds are refused before the read, unless a token opens', async () => {
    expect(await checkBeforeRead(presented({ hmac: signed(String(NOW / 1000)) }), SETUP)).toMatchObject({ verifiable: false, jwt: undefined });
    expect(await checkBeforeRead(presented({ hmac: signed(String(NOW / 1000 - 301)) }), SETUP)).toMatchObject({ status: 401 });
    expect(await checkBeforeRead(presented({ hmac: signed('soon') }), SETUP)).toMatchObject({ status: 401 });
    expect(await checkBeforeRead(presented({ hmac: signed(String(NOW / 1000), '') }), SETUP)).toMatchObject({ status: 401 });
    expect(await checkBeforeRead(presented({ hmac: signed('soon'), token: 'good' }), { ...SETUP, tokenOpens: true })).toMatchObject({ verifiable: true });
  });

  it('a JWT is verified before the read: 401 when it does not verify, 503 when the keys are out of reach', async () => {
    expect(await checkBeforeRead(presented({ jwt: 'a.b.c' }), { ...SETUP, jwt: jwtCheck(CLAIMS) })).toMatchObject({ jwt: CLAIMS, verifiable: true });
    expect(await checkBeforeRead(presented({ jwt: 'a.b.c' }), { ...SETUP, jwt: jwtCheck(new JwtRefusal('auth', 'bad signature')) })).toMatchObject({ status: 401 });
    expect(await checkBeforeRead(presented({ jwt: 'a.b.c' }), { ...SETUP, jwt: jwtCheck(new JwtRefusal('unavailable', 'JWKS down')) })).toMatchObject({ status: 503, retryAfterSec: 1 });
  });
});
