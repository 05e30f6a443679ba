import { describe, expect, it } from 'vitest';
import { screenHeaders, type ScreenSetup } from './screen-headers.js';

const ALL: ScreenSetup = { maxBodyBytes: 1024, jwt: true, hmac: true };
const JWT = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln';

function head(headers: Record<string, string>, method = 'POST'): { method: string; header(name: string): string | undefined } {
  return { method, header: (name) => headers[name] };
}

describe('screenHeaders', () => {
  it.each([
    ['GET', { 'content-type': 'application/json', authorization: 'Bearer t' }, 405],
    ['POST', { 'content-type': 'text/plain', authorization: 'Bearer t' }, 415],
    ['POST', { authorization: 'Bearer t' }, 415],
    ['POST', { 'content-type': 'application/json', 'content-length': '1025', authorization: 'Bearer t' }, 413],
    ['POST', { 'content-type': 'application/json' }, 401],
    ['POST', { 'content-type': 'application/json', authorization: 'Basic dXNlcjpwYXNz' }, 401],
  ])('%s %j → %i', (method, headers, status) => {
    expect(screenHeaders(head(headers, method), ALL)).toMatchObject({ kind: 'refused', status });
  });

  it('reads which credentials are presented, and the declared length', () => {
    const json = { 'content-type': 'application/a2a+json; charset=utf-8' };
    expect(screenHeaders(head({ ...json, authorization: 'Bearer tok', 'content-length': '12' }), ALL)).toEqual({ declared: 12, jwt: undefined, token: 'tok', hmac: undefined });
    expect(screenHeaders(head({ ...json, authorization: `Bearer ${JWT}` }), ALL)).toMatchObject({ jwt: JWT, token: undefined });
    // A JWT-shaped bearer is a token when the receiver verifies no JWTs.
    expect(screenHeaders(head({ ...json, authorization: `Bearer ${JWT}` }), { ...ALL, jwt: false })).toMatchObject({ jwt: undefined, token: JWT });
    // The legacy header carries the task's token beside a JWT.
    expect(screenHeaders(head({ ...json, authorization: `Bearer ${JWT}`, 'x-a2a-notification-token': 'own' }), ALL)).toMatchObject({ jwt: JWT, token: 'own' });
    const signed = { ...json, 'webhook-id': 'id-1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc' };
    expect(screenHeaders(head(signed), ALL)).toMatchObject({ hmac: { id: 'id-1', timestamp: '1700000000', signature: 'v1,abc' }, declared: Number.NaN });
    // Signature headers on a receiver that verifies none are no credentials.
    expect(screenHeaders(head(signed), { ...ALL, hmac: false })).toMatchObject({ kind: 'refused', status: 401 });
  });
});
