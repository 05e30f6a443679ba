// verifyCardSignatures: trusted keys, allowlisted key sets, the algorithm allowlist, rotation, tampering.
import { exportSPKI, FlattenedSign } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { normalizeCard } from '../src/protocol-entry.js';
import { cardSigningPayload, SIGNING_DEFAULTS, verifyCardSignatures, type VerifyCardOptions } from '../src/signing-entry.js';
import { decodeHeader, encodeHeader, refusal, signatureOf, signCard, testKey, v1CardJson, type TestKey } from './helpers/sign-card.js';

/** A fetch that serves `sets` by URL and records every call (with its init). */
function keySetFetch(sets: Record<string, unknown>) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fetch = (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    calls.push({ url, init });
    const set = sets[url];
    if (set === undefined) return Promise.resolve(new Response('not found', { status: 404 }));
    return Promise.resolve(new Response(JSON.stringify(set), { headers: { 'content-type': 'application/jwk-set+json' } }));
  };
  return { fetch, calls };
}

let k1: TestKey;
let k2: TestKey;
let stale: TestKey;
beforeAll(async () => {
  [k1, k2, stale] = await Promise.all([testKey('k1'), testKey('k2'), testKey('stale')]);
});

describe('verifyCardSignatures: a valid signature', () => {
  it.each([
    ['ES256', 'ES256'],
    ['ES384', 'ES384'],
    ['EdDSA', 'EdDSA'],
    ['Ed25519', 'Ed25519'],
    ['RS256', 'RS256'],
    ['PS256', 'PS256'],
  ])('verifies with a trusted %s JWK and returns the card rebuilt from the signed bytes', async (_name, alg) => {
    const key = await testKey('key-1', alg);
    const served = await signCard(v1CardJson(), key);
    const result = await verifyCardSignatures(served, { trustedKeys: [key.publicJwk] });
    expect(result.signatures).toEqual([{ index: 0, valid: true, alg, kid: 'key-1', keySource: 'trustedKeys' }]);
    expect(result.payload).toBe(cardSigningPayload(served));
    expect(result.card).not.toBe(served);
    expect(result.card).toEqual(served);
  });

  it('accepts a CryptoKey under its kid', async () => {
    const served = await signCard(v1CardJson(), k1);
    const result = await verifyCardSignatures(served, { trustedKeys: [{ kid: 'k1', key: k1.publicKey }] });
    expect(result.signatures[0]?.valid).toBe(true);
  });

  it('returns only what the signature covers: defaults dropped, the unprotected header and foreign members of signatures gone', async () => {
    const card = { ...v1CardJson(), iconUrl: null, securitySchemes: {} };
    const signature = { ...(await signatureOf(card, k1)), header: { note: 'not integrity protected' }, extra: 1 };
    const served = { ...card, signatures: [signature] };
    const result = await verifyCardSignatures(served, { trustedKeys: [k1.publicJwk] });
    expect(result.card).toEqual({ ...v1CardJson(), signatures: [{ protected: signature.protected, signature: signature.signature }] });
    // Changing the input afterwards changes nothing in what was verified.
    (served as Record<string, unknown>)['name'] = 'changed';
    expect(result.card['name']).toBe('Weather agent');
    // The verified card verifies again (dropping defaults twice changes nothing).
    expect((await verifyCardSignatures(result.card, { trustedKeys: [k1.publicJwk] })).card).toEqual(result.card);
  });

  it('verifies the raw card of a normalized AgentCard', async () => {
    const served = await signCard(v1CardJson(), k1);
    const normalized = normalizeCard(served, 'https://agent.example/.well-known/agent-card.json');
    expect((await verifyCardSignatures(normalized, { trustedKeys: [k1.publicJwk] })).card['name']).toBe('Weather agent');
  });

  it('verifies a card with non-ASCII names and empty required fields', async () => {
    const card = {
      ...v1CardJson(),
      name: 'Agent météo 気象 🌦',
      description: '',
      skills: [{ id: 'prévision', name: 'Prévision ☀', description: '', tags: [] }],
      provider: { organization: 'Société Générale de Météo', url: '' },
    };
    const served = await signCard(card, k1);
    const result = await verifyCardSignatures(served, { trustedKeys: [k1.publicJwk] });
    expect(result.card).toEqual(served);
    expect(result.payload).toContain('"description":""');
    // One code unit changed in a name breaks it.
    await refusal(verifyCardSignatures({ ...served, name: 'Agent météo 気象 🌧' }, { trustedKeys: [k1.publicJwk] }));
    await refusal(verifyCardSignatures({ ...served, name: 'Agent meteo 気象 🌦' }, { trustedKeys: [k1.publicJwk] }));
    // Dropping an empty required field changes the signed bytes too.
    const { description: _dropped, ...withoutDescription } = served;
    await refusal(verifyCardSignatures(withoutDescription, { trustedKeys: [k1.publicJwk] }));
  });
});

/** Every [path, tampered card] obtained by changing, removing or adding one member of `card`. */
function tamperings(card: Record<string, unknown>): [string, Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [];
  const visit = (value: unknown, path: (string | number)[]): void => {
    if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, [...path, i]));
      out.push([`${path.join('.')} + item`, edit(card, path, (list) => [...(list as unknown[]), 'x'])]);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        visit(item, [...path, key]);
        out.push([`${[...path, key].join('.')} removed`, edit(card, path, (object) => {
          const copy = { ...(object as Record<string, unknown>) };
          delete copy[key];
          return copy;
        })]);
      }
      out.push([`${path.join('.')} + member`, edit(card, path, (object) => ({ ...(object as object), injected: 'x' }))]);
    } else {
      const changed = typeof value === 'boolean' ? !value : typeof value === 'string' ? `${value}x` : 'x';
      out.push([path.join('.'), edit(card, path, () => changed)]);
    }
  };
  visit(card, []);
  return out;
}

function edit(card: Record<string, unknown>, path: (string | number)[], change: (value: unknown) => unknown): Record<string, unknown> {
  const copy = structuredClone(card);
  if (path.length === 0) return change(copy) as Record<string, unknown>;
  let parent: Record<string | number, unknown> = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  parent[last] = change(parent[last]);
  return copy;
}

describe('verifyCardSignatures: tampering', () => {
  const card = {
    ...v1CardJson(),
    provider: { organization: 'Org', url: 'https://org.example' },
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
    securityRequirements: [{ schemes: { bearer: { list: ['read'] } } }],
    capabilities: { streaming: true, pushNotifications: false, extensions: [{ uri: 'urn:x', required: true, params: { a: 1 } }] },
  };
  const cases = tamperings(card);

  it('changing, removing or adding any member anywhere is rejected', async () => {
    const served = await signCard(card, k1);
    expect(cases.length).toBeGreaterThan(60);
    for (const [path, tampered] of cases) {
      const error = await refusal(verifyCardSignatures({ ...tampered, signatures: served['signatures'] }, { trustedKeys: [k1.publicJwk] }));
      expect(error.message, path).toContain('signature verification failed');
    }
  });

  it('a changed protected header is rejected, even when it says the same thing', async () => {
    const signature = await signatureOf(card, k1);
    const header = decodeHeader(signature.protected);
    const variants: Record<string, unknown>[] = [
      { ...header, typ: 'JWT' },
      { ...header, jku: 'https://agent.example/jwks.json' },
      { ...header, alg: 'ES384' },
    ];
    const trust: VerifyCardOptions = { trustedKeys: [k1.publicJwk, { ...k1.publicJwk, alg: 'ES384' }], jwksAllowlist: ['https://agent.example/jwks.json'] };
    for (const variant of variants) {
      await refusal(verifyCardSignatures({ ...card, signatures: [{ ...signature, protected: encodeHeader(variant) }] }, trust));
    }
    // Same members, other order: other bytes, so another signing input.
    const reordered = encodeHeader({ kid: header['kid'], typ: header['typ'], alg: header['alg'] });
    expect(reordered).not.toBe(signature.protected);
    await refusal(verifyCardSignatures({ ...card, signatures: [{ ...signature, protected: reordered }] }, { trustedKeys: [k1.publicJwk] }));
  });

  it('a signature moved to another kid is rejected', async () => {
    const signature = await signatureOf(card, k1);
    const header = { ...decodeHeader(signature.protected), kid: 'k2' };
    const error = await refusal(
      verifyCardSignatures({ ...card, signatures: [{ ...signature, protected: encodeHeader(header) }] }, { trustedKeys: [k1.publicJwk, k2.publicJwk] }),
    );
    expect(error.message).toContain('kid "k2"');
  });

  it('members that only the unprotected header carries (alg, kid) are not used', async () => {
    const signature = await signatureOf(card, k1);
    const bare = encodeHeader({ typ: 'JOSE' });
    const error = await refusal(
      verifyCardSignatures({ ...card, signatures: [{ protected: bare, signature: signature.signature, header: { alg: 'ES256', kid: 'k1' } }] }, { trustedKeys: [k1.publicJwk] }),
    );
    expect(error.message).toContain('no alg in the protected header');
  });
});

describe('verifyCardSignatures: algorithms', () => {
  it('refuses alg "none" (an empty signature) whatever the keys', async () => {
    const card = v1CardJson();
    const none = { protected: encodeHeader({ alg: 'none', typ: 'JOSE', kid: 'k1' }), signature: '' };
    const error = await refusal(verifyCardSignatures({ ...card, signatures: [none] }, { trustedKeys: [k1.publicJwk] }));
    expect(error.message).toContain('alg "none" is not allowed');
  });

  it('refuses HS256 made with the public key as the HMAC secret (key confusion)', async () => {
    const card = v1CardJson();
    const payload = new TextEncoder().encode(cardSigningPayload(card));
    const pem = await exportSPKI(k1.publicKey);
    const secrets = [new TextEncoder().encode(pem), new TextEncoder().encode(JSON.stringify(k1.publicJwk)), Buffer.from(k1.publicJwk.x as string, 'base64url')];
    for (const secret of secrets) {
      const jws = await new FlattenedSign(payload).setProtectedHeader({ alg: 'HS256', typ: 'JOSE', kid: 'k1' }).sign(secret);
      const served = { ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] };
      const error = await refusal(verifyCardSignatures(served, { trustedKeys: [k1.publicJwk] }));
      expect(error.message).toContain('alg "HS256" is not allowed');
    }
  });

  it('refuses an allowed algorithm that does not fit the trusted key (an RS256 signature under an EC kid)', async () => {
    const rsa = await testKey('k1', 'RS256');
    const served = await signCard(v1CardJson(), rsa);
    const error = await refusal(verifyCardSignatures(served, { trustedKeys: [k1.publicJwk] }));
    expect(error.message).toContain('key "k1" is for ES256, not RS256');
    // Without an alg in the JWK, the key type still decides.
    const { alg: _alg, ...noAlg } = k1.publicJwk;
    await refusal(verifyCardSignatures(served, { trustedKeys: [noAlg] }));
  });

  it('follows a narrowed allowlist', async () => {
    const served = await signCard(v1CardJson(), k1);
    const error = await refusal(verifyCardSignatures(served, { trustedKeys: [k1.publicJwk], algorithms: ['EdDSA'] }));
    expect(error.message).toContain('alg "ES256" is not allowed (allowed: EdDSA)');
  });

  it.each([[['none']], [['NONE']], [['HS256']], [['ES256', 'hs512']], [[]]])('refuses allowing %j with INVALID_ARGUMENT', async (algorithms) => {
    await refusal(verifyCardSignatures(v1CardJson(), { trustedKeys: [k1.publicJwk], algorithms }), 'INVALID_ARGUMENT');
  });

  it('defaults to asymmetric algorithms only', () => {
    expect(SIGNING_DEFAULTS.algorithms.some((alg) => /^(HS|none)/i.test(alg))).toBe(false);
    expect(Object.isFrozen(SIGNING_DEFAULTS.algorithms)).toBe(true);
  });
});

describe('verifyCardSignatures: keys', () => {
  it('reports an unknown kid', async () => {
    const served = await signCard(v1CardJson(), k2);
    const error = await refusal(verifyCardSignatures(served, { trustedKeys: [k1.publicJwk] }));
    expect(error.message).toBe('the agent card has no valid signature: #0 (ES256, kid "k2"): unknown kid (not in trustedKeys)');
  });

  it('refuses a jku that is not allowlisted without fetching it', async () => {
    const { fetch, calls } = keySetFetch({ 'https://evil.example/jwks.json': { keys: [k2.publicJwk] } });
    const card = v1CardJson();
    const served = { ...card, signatures: [await signatureOf(card, k2, { jku: 'https://evil.example/jwks.json' })] };
    const error = await refusal(verifyCardSignatures(served, { trustedKeys: [k1.publicJwk], jwksAllowlist: ['https://agent.example/jwks.json'], fetch }));
    expect(error.message).toContain('jku https://evil.example/jwks.json is not in jwksAllowlist (not fetched)');
    expect(calls).toEqual([]);
  });

  it.each([
    ['a longer path', 'https://agent.example/jwks.json.evil'],
    ['a longer file name', 'https://agent.example/jwks.jsonx'],
    ['a path below it', 'https://agent.example/jwks.json/keys'],
    ['a query', 'https://agent.example/jwks.json?from=https://evil.example'],
    ['a prefix of it', 'https://agent.example/jwks'],
    ['another port', 'https://agent.example:8443/jwks.json'],
    ['a host that starts the same', 'https://agent.example.evil.example/jwks.json'],
  ])('refuses a jku that only resembles an allowlisted one (%s) without fetching it', async (_name, jku) => {
    // Each look-alike serves the signer's key: following it would verify the signature.
    const { fetch, calls } = keySetFetch({ [jku]: { keys: [k2.publicJwk] } });
    const card = v1CardJson();
    const served = { ...card, signatures: [await signatureOf(card, k2, { jku })] };
    const error = await refusal(verifyCardSignatures(served, { jwksAllowlist: ['https://agent.example/jwks.json'], fetch }));
    expect(error.message).toContain('is not in jwksAllowlist (not fetched)');
    expect(calls).toEqual([]);
  });

  it('prefers trustedKeys to the jku for a kid it knows (no request)', async () => {
    const { fetch, calls } = keySetFetch({});
    const card = v1CardJson();
    const served = { ...card, signatures: [await signatureOf(card, k1, { jku: 'https://agent.example/jwks.json' })] };
    const result = await verifyCardSignatures(served, { trustedKeys: [k1.publicJwk], jwksAllowlist: ['https://agent.example/jwks.json'], fetch });
    expect(result.signatures[0]).toMatchObject({ valid: true, keySource: 'trustedKeys', jku: 'https://agent.example/jwks.json' });
    expect(calls).toEqual([]);
  });

  it('fetches an allowlisted jku once per card, without credentials or redirects', async () => {
    const url = 'https://agent.example/jwks.json';
    const { fetch, calls } = keySetFetch({ [url]: { keys: [k1.publicJwk, k2.publicJwk] } });
    const card = v1CardJson();
    const served = { ...card, signatures: [await signatureOf(card, k1, { jku: url }), await signatureOf(card, k2, { jku: url })] };
    const result = await verifyCardSignatures(served, { jwksAllowlist: [url], fetch });
    expect(result.signatures.map((s) => [s.valid, s.keySource])).toEqual([
      [true, url],
      [true, url],
    ]);
    expect(calls.map((c) => c.url)).toEqual([url]);
    expect(calls[0]?.init).toMatchObject({ method: 'GET', redirect: 'error', credentials: 'omit' });
  });

  it('looks a kid up in the allowlisted key sets when the signature names no jku', async () => {
    const { fetch, calls } = keySetFetch({ 'https://a.example/jwks': { keys: [k1.publicJwk] }, 'https://b.example/jwks': { keys: [k2.publicJwk] } });
    const served = await signCard(v1CardJson(), k2);
    const result = await verifyCardSignatures(served, { jwksAllowlist: ['https://a.example/jwks', 'https://b.example/jwks'], fetch });
    expect(result.signatures[0]).toMatchObject({ valid: true, keySource: 'https://b.example/jwks' });
    expect(calls.map((c) => c.url)).toEqual(['https://a.example/jwks', 'https://b.example/jwks']);
  });

  it('ignores keys of a key set that cannot verify (symmetric, private, another use)', async () => {
    const url = 'https://agent.example/jwks.json';
    const bad = [
      { kty: 'oct', kid: 'k1', k: 'c2VjcmV0' },
      { ...k1.publicJwk, d: 'private' },
      { ...k1.publicJwk, use: 'enc' },
    ];
    for (const key of bad) {
      const { fetch } = keySetFetch({ [url]: { keys: [key] } });
      const error = await refusal(verifyCardSignatures(await signCard(v1CardJson(), k1), { jwksAllowlist: [url], fetch }));
      expect(error.message).toContain('cannot verify');
    }
  });

  it('bounds the key set request: size, time, status, shape', async () => {
    const url = 'https://agent.example/jwks.json';
    const served = await signCard(v1CardJson(), k1);
    const huge = JSON.stringify({ keys: [k1.publicJwk], pad: 'x'.repeat(100_000) });
    const answers: [string, (init?: RequestInit) => Promise<Response>, string][] = [
      ['too large', () => Promise.resolve(new Response(huge)), 'exceeds 1000 bytes'],
      ['too large (declared)', () => Promise.resolve(new Response(huge, { headers: { 'content-length': String(huge.length) } })), 'more than 1000'],
      ['an error status', () => Promise.resolve(new Response('no', { status: 503 })), 'HTTP 503'],
      ['not JSON', () => Promise.resolve(new Response('<html>')), 'not JSON'],
      ['no keys', () => Promise.resolve(new Response('{"key":[]}')), 'no "keys" list'],
      [
        'too slow',
        (init) =>
          new Promise((_resolve, reject) => {
            init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error));
          }),
        'no answer within 50 ms',
      ],
    ];
    for (const [name, answer, words] of answers) {
      const error = await refusal(
        verifyCardSignatures(served, { jwksAllowlist: [url], fetch: (_url, init) => answer(init), jwksMaxBytes: 1000, jwksTimeoutMs: 50 }),
      );
      expect(error.message, name).toContain(words);
      expect(error.message, name).toContain('unknown kid');
    }
  });

  it('stops at once when the caller aborts (ABORTED, not SIGNATURE_INVALID)', async () => {
    const controller = new AbortController();
    const fetch = (_url: string | URL, init?: RequestInit): Promise<Response> =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error));
        controller.abort(new Error('stop'));
      });
    const served = await signCard(v1CardJson(), k1);
    await refusal(verifyCardSignatures(served, { jwksAllowlist: ['https://agent.example/jwks.json'], fetch, signal: controller.signal }), 'ABORTED');
  });
});

describe('verifyCardSignatures: several signatures (key rotation)', () => {
  it('one valid trusted signature suffices; each is reported', async () => {
    const served = await signCard(v1CardJson(), stale, k1);
    const result = await verifyCardSignatures(served, { trustedKeys: [k1.publicJwk] });
    expect(result.signatures).toEqual([
      { index: 0, valid: false, alg: 'ES256', kid: 'stale', reason: 'unknown kid (not in trustedKeys)' },
      { index: 1, valid: true, alg: 'ES256', kid: 'k1', keySource: 'trustedKeys' },
    ]);
    // Only the signature that verified travels with the verified card.
    expect(result.card['signatures']).toEqual([(served['signatures'] as unknown[])[1]]);
  });

  it('a bad signature beside a good one does not spoil it; two bad ones are both described', async () => {
    const card = v1CardJson();
    const good = await signatureOf(card, k1);
    const forged = { ...(await signatureOf({ ...card, name: 'Other' }, k2)) };
    const result = await verifyCardSignatures({ ...card, signatures: [forged, good] }, { trustedKeys: [k1.publicJwk, k2.publicJwk] });
    expect(result.signatures.map((s) => s.valid)).toEqual([false, true]);
    const error = await refusal(verifyCardSignatures({ ...card, signatures: [forged, 'junk'] }, { trustedKeys: [k1.publicJwk, k2.publicJwk] }));
    expect(error.message).toBe(
      'the agent card has no valid signature: #0 (ES256, kid "k2"): signature verification failed; ' +
        '#1: not a JWS signature: "protected" and "signature" must be strings',
    );
  });

  it('refuses more signatures than maxSignatures without checking any', async () => {
    const { fetch, calls } = keySetFetch({});
    const card = v1CardJson();
    const signature = await signatureOf(card, k1, { jku: 'https://agent.example/jwks.json' });
    const served = { ...card, signatures: Array.from({ length: SIGNING_DEFAULTS.maxSignatures + 1 }, () => signature) };
    const error = await refusal(verifyCardSignatures(served, { jwksAllowlist: ['https://agent.example/jwks.json'], fetch }));
    expect(error.message).toContain('more than maxSignatures (8); none was checked');
    expect(calls).toEqual([]);
  });
});

describe('verifyCardSignatures: unsigned and malformed cards, bad options', () => {
  it.each([
    ['no signatures', {}],
    ['an empty list', { signatures: [] }],
    ['signatures that are no list', { signatures: { protected: 'x', signature: 'y' } }],
  ])('refuses a card with %s', async (_name, extra) => {
    const error = await refusal(verifyCardSignatures({ ...v1CardJson(), ...extra }, { trustedKeys: [k1.publicJwk] }));
    expect(error.message).toBe('the agent card is not signed (it has no "signatures")');
  });

  it('refuses a protected header that is not base64url JSON, and one without kid', async () => {
    const card = v1CardJson();
    const junk = { protected: '!!!', signature: 'AAAA' };
    const noKid = { protected: encodeHeader({ alg: 'ES256' }), signature: 'AAAA' };
    const error = await refusal(verifyCardSignatures({ ...card, signatures: [junk, noKid] }, { trustedKeys: [k1.publicJwk] }));
    expect(error.message).toContain('#0: the protected header is not base64url-encoded JSON');
    expect(error.message).toContain('#1 (ES256): no kid in the protected header');
  });

  it('keeps messages short whatever the card says', async () => {
    const card = v1CardJson();
    const long = { protected: encodeHeader({ alg: 'ES256', kid: 'k'.repeat(100_000), jku: `https://x/${'j'.repeat(100_000)}` }), signature: 'AAAA' };
    const longAlg = { protected: encodeHeader({ alg: 'A'.repeat(100_000), kid: 'k1' }), signature: 'AAAA' };
    const error = await refusal(verifyCardSignatures({ ...card, signatures: [long, long, longAlg] }, { trustedKeys: [k1.publicJwk] }));
    expect(error.message.length).toBeLessThan(1500);
  });

  it('refuses a card RFC 8785 cannot write', async () => {
    const card = { ...v1CardJson(), name: 'bad \ud800' };
    const error = await refusal(verifyCardSignatures({ ...card, signatures: [await signatureOf(v1CardJson(), k1)] }, { trustedKeys: [k1.publicJwk] }));
    expect(error.message).toContain('cannot be canonicalized');
  });

  it.each<[string, VerifyCardOptions]>([
    ['nothing to trust', {}],
    ['a JWK without kid', { trustedKeys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y' }] }],
    ['a private JWK', { trustedKeys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd', kid: 'p' }] }],
    ['a symmetric JWK', { trustedKeys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 's' }] }],
    ['a key for encryption', { trustedKeys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'e', use: 'enc' }] }],
    ['a non-URL in the allowlist', { jwksAllowlist: ['jwks.json'] }],
    ['a non-http URL in the allowlist', { jwksAllowlist: ['file:///etc/jwks.json'] }],
    ['an unknown form', { trustedKeys: [{ kty: 'EC', crv: 'P-256', x: 'x', y: 'y', kid: 'e' }], form: 'loose' as 'spec' }],
  ])('refuses %s with INVALID_ARGUMENT', async (_name, options) => {
    const error = await refusal(verifyCardSignatures(v1CardJson(), options), 'INVALID_ARGUMENT');
    expect(error.maybeDelivered).toBe(false);
  });

  it('refuses a private CryptoKey as a trusted key', async () => {
    await refusal(verifyCardSignatures(v1CardJson(), { trustedKeys: [{ kid: 'k1', key: k1.privateKey }] }), 'INVALID_ARGUMENT');
  });
});

describe("verifyCardSignatures: form 'a2a-js'", () => {
  it('verifies what the official SDK signs for a card with an empty required field, which spec form rejects', async () => {
    const card = { ...v1CardJson(), description: '', skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'], examples: [''] }] };
    const served = { ...card, signatures: [await signatureOf(card, k1, {}, 'a2a-js')] };
    const error = await refusal(verifyCardSignatures(served, { trustedKeys: [k1.publicJwk] }));
    expect(error.message).toContain('signature verification failed');
    const result = await verifyCardSignatures(served, { trustedKeys: [k1.publicJwk], form: 'a2a-js' });
    // What that form does not cover is not in the verified card.
    expect(result.card['description']).toBeUndefined();
    expect(result.card['skills']).toEqual([{ id: 's', name: 'S', description: 'd', tags: ['t'] }]);
  });
});
