import { createHash, createSecretKey } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import type { CryptoKey, JWK, JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPushReceiver } from '../src/index.js';
import type { PushNotice, PushReceiver } from '../src/index.js';
import { serve, settle, v1Status } from './push/helpers.js';

const NOW_SEC = 1_800_000_000;
const AUDIENCE = 'https://client.example/hooks';
const ISSUER = 'https://agent.example';

let signing: { privateKey: CryptoKey; publicKey: CryptoKey };
let other: { privateKey: CryptoKey; publicKey: CryptoKey };
let publicJwk: JWK;
let jwksUrl: string;
let jwksRequests = 0;
let receiver: PushReceiver;
let url: string;
const delivered: PushNotice[] = [];
const reasons: string[] = [];
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  signing = await generateKeyPair('ES256');
  other = await generateKeyPair('ES256');
  publicJwk = { ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const jwksServer = createServer((_req, res) => {
    jwksRequests += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
  stops.push(() => new Promise((resolve) => jwksServer.close(() => resolve())));

  receiver = createPushReceiver({
    jwt: { jwks: jwksUrl, audience: AUDIENCE, issuer: ISSUER },
    now: () => NOW_SEC * 1000,
    onRefused: (error) => void reasons.push(`${error.code} ${error.status} ${error.message}`),
  });
  const server = await serve(receiver);
  url = server.url;
  stops.push(server.close);
  for (const id of ['t1', 't2']) {
    receiver.expect(id);
    receiver.subscribe(id, (notice) => void delivered.push(notice));
  }
});
afterAll(async () => {
  receiver?.close();
  for (const stop of stops) await stop();
});

interface Claims {
  aud?: string;
  iss?: string;
  iat?: number;
  exp?: number;
  jti?: string | undefined;
  [claim: string]: unknown;
}

let jtiCounter = 0;
async function sign(overrides: Claims = {}, key: CryptoKey = signing.privateKey, kid = 'k1'): Promise<string> {
  const claims: Claims = { aud: AUDIENCE, iss: ISSUER, iat: NOW_SEC, exp: NOW_SEC + 60, jti: `jti-${(jtiCounter += 1)}`, ...overrides };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  return new SignJWT(claims as JWTPayload).setProtectedHeader({ alg: 'ES256', kid }).sign(key);
}

function post(body: string, jwt: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/a2a+json', authorization: `Bearer ${jwt}` }, body });
}

/** Posts and checks the status, then that nothing new reached a subscriber. */
async function refusedWith(status: number, body: string, jwt: string): Promise<void> {
  const before = delivered.length;
  const answer = await post(body, jwt);
  expect(answer.status).toBe(status);
  await settle();
  expect(delivered.length).toBe(before);
}

const base64url = (bytes: Buffer): string => bytes.toString('base64url');

describe('push receiver with JWT (JWKS served on 127.0.0.1)', () => {
  it('accepts a valid JWT and delivers the push', async () => {
    const before = delivered.length;
    expect((await post(v1Status('t1', 'working'), await sign())).status).toBe(202);
    await settle();
    expect(delivered.slice(before).map((notice) => notice.status?.state)).toEqual(['working']);
    expect(jwksRequests).toBeGreaterThanOrEqual(1);
  });

  it('refuses a bad signature, a wrong aud or iss, an expired token', async () => {
    await refusedWith(401, v1Status('t1', 'input-required'), await sign({}, other.privateKey));
    const [header, payload] = (await sign()).split('.');
    await refusedWith(401, v1Status('t1', 'input-required'), `${header}.${payload}.${base64url(Buffer.alloc(64, 7))}`);
    await refusedWith(401, v1Status('t1', 'input-required'), await sign({ aud: 'https://someone-else.example' }));
    await refusedWith(401, v1Status('t1', 'input-required'), await sign({ iss: 'https://impostor.example' }));
    await refusedWith(401, v1Status('t1', 'input-required'), await sign({ iat: NOW_SEC - 120, exp: NOW_SEC - 1 }));
  });

  it('refuses a stale iat and a future iat beyond the window, even with a valid exp', async () => {
    await refusedWith(401, v1Status('t1', 'input-required'), await sign({ iat: NOW_SEC - 301, exp: NOW_SEC + 3600 }));
    await refusedWith(401, v1Status('t1', 'input-required'), await sign({ iat: NOW_SEC + 301, exp: NOW_SEC + 3600 }));
    expect(reasons.slice(-2)).toEqual([expect.stringMatching(/iat .* more than 300 s/), expect.stringMatching(/iat .* more than 300 s/)]);
  });

  it('requires jti, iat and exp', async () => {
    await refusedWith(401, v1Status('t1', 'input-required'), await sign({ jti: undefined }));
    const noExp = await new SignJWT({ aud: AUDIENCE, iss: ISSUER, iat: NOW_SEC, jti: 'no-exp' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(signing.privateKey);
    await refusedWith(401, v1Status('t1', 'input-required'), noExp);
  });

  it('refuses alg none and HS256 signed with the public key', async () => {
    const none = new UnsecuredJWT({ aud: AUDIENCE, iss: ISSUER, iat: NOW_SEC, exp: NOW_SEC + 60, jti: 'none-1' }).encode();
    await refusedWith(401, v1Status('t1', 'input-required'), none);
    const pem = await exportSPKI(signing.publicKey);
    const hs256 = await new SignJWT({ aud: AUDIENCE, iss: ISSUER, iat: NOW_SEC, exp: NOW_SEC + 60, jti: 'hs-1' })
      .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
      .sign(createSecretKey(Buffer.from(pem)));
    await refusedWith(401, v1Status('t1', 'input-required'), hs256);
    expect(reasons.slice(-2)).toEqual([
      expect.stringMatching(/^PUSH_REFUSED 401 .*(ERR_JOSE_ALG_NOT_ALLOWED|ERR_JWS_INVALID)/),
      expect.stringMatching(/^PUSH_REFUSED 401 .*ERR_JOSE_ALG_NOT_ALLOWED/),
    ]);
  });

  it('a replayed jti: the same body is a redelivery (200, delivered once), another body is refused (401)', async () => {
    const jwt = await sign({ jti: 'replay-me' });
    const before = delivered.length;
    expect((await post(v1Status('t2', 'working'), jwt)).status).toBe(202);
    expect((await post(v1Status('t2', 'working'), jwt)).status).toBe(200);
    await refusedWith(401, v1Status('t2', 'completed'), jwt);
    await settle();
    expect(delivered.length).toBe(before + 1);
  });

  it('binds the JWT to its task and body when it says so (taskId, request_body_sha256)', async () => {
    await refusedWith(401, v1Status('t1', 'input-required'), await sign({ taskId: 't2' }));
    const body = v1Status('t1', 'input-required');
    await refusedWith(401, body, await sign({ request_body_sha256: createHash('sha256').update(`${body} `).digest('hex') }));
    const hash = createHash('sha256').update(body).digest('hex');
    expect((await post(body, await sign({ taskId: 't1', request_body_sha256: hash }))).status).toBe(202);
    // The A2A samples hash a compact re-serialization while sending the body with spaces.
    const spaced = JSON.stringify(JSON.parse(v1Status('t1', 'completed')), null, 1);
    const compactHash = createHash('sha256').update(JSON.stringify(JSON.parse(spaced))).digest('hex');
    expect((await post(spaced, await sign({ request_body_sha256: compactHash }))).status).toBe(202);
  });

  it('a local key set works too, and a JWT without body hash is refused when requireBodyHash is on', async () => {
    const local = createPushReceiver({
      jwt: { jwks: { keys: [publicJwk] }, audience: AUDIENCE, requireBodyHash: true },
      now: () => NOW_SEC * 1000,
    });
    local.expect('t1');
    const send = async (jwt: string, body: string): Promise<number> =>
      (
        await local.handle(
          new Request('http://127.0.0.1/hook', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` }, body }),
        )
      ).status;
    const body = v1Status('t1', 'working');
    expect(await send(await sign(), body)).toBe(401);
    expect(await send(await sign({ request_body_sha256: createHash('sha256').update(body).digest('hex') }), body)).toBe(202);
    local.close();
  });

  it('answers 503 when the JWKS cannot be fetched (not the sender\'s fault)', async () => {
    const unreachable = createPushReceiver({ jwt: { jwks: 'http://127.0.0.1:9/jwks.json', audience: AUDIENCE }, now: () => NOW_SEC * 1000 });
    unreachable.expect('t1');
    const answer = await unreachable.handle(
      new Request('http://127.0.0.1/hook', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await sign()}` },
        body: v1Status('t1', 'working'),
      }),
    );
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    unreachable.close();
  });
});
