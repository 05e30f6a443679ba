import { describe, expect, it } from 'vitest';
import type { SecurityScheme } from '../card/card-types.js';
import { TetherError } from '../errors/tether-error.js';
import { planCredentials } from './auth-plan.js';
import { CredentialStore } from './credential-store.js';

const QUERY: SecurityScheme = { type: 'apiKey', location: 'query', name: 'api_key' };
const HEADER: SecurityScheme = { type: 'apiKey', location: 'header', name: 'X-Key' };
const BEARER: SecurityScheme = { type: 'http', scheme: 'Bearer' };

const placements = (plan: ReturnType<typeof planCredentials>): string[] => plan.map((c) => `${c.placement}:${c.name}`);

describe('an API key goes in a query string only when the card demands it', () => {
  it('a header scheme the card accepts wins over a query scheme, whatever the order', () => {
    const schemes = { q: QUERY, h: HEADER };
    expect(placements(planCredentials({ apiKey: 'k' }, schemes, [{ q: [] }, { h: [] }]))).toEqual(['header:X-Key']);
    expect(placements(planCredentials({ apiKey: 'k' }, schemes, [{ h: [] }, { q: [] }]))).toEqual(['header:X-Key']);
  });

  it('a requirement without a query credential wins over one with it (a bearer alone over key AND bearer)', () => {
    const schemes = { q: QUERY, b: BEARER };
    const plan = planCredentials({ apiKey: 'k', bearer: 't' }, schemes, [{ q: [], b: [] }, { b: [] }]);
    expect(placements(plan)).toEqual(['header:Authorization']);
  });

  it('without requirements, a declared header scheme wins; the default is the X-API-Key header', () => {
    expect(placements(planCredentials({ apiKey: 'k' }, { q: QUERY, h: HEADER }, []))).toEqual(['header:X-Key']);
    expect(placements(planCredentials({ apiKey: 'k' }, {}, []))).toEqual(['header:X-API-Key']);
  });

  it('the query string is used when it is the only place the card accepts the key', () => {
    expect(placements(planCredentials({ apiKey: 'k' }, { q: QUERY }, [{ q: [] }]))).toEqual(['query:api_key']);
    expect(placements(planCredentials({ apiKey: 'k' }, { q: QUERY }, []))).toEqual(['query:api_key']);
    // A header scheme the card declares but accepts in no requirement does not count.
    expect(placements(planCredentials({ apiKey: 'k' }, { q: QUERY, h: HEADER }, [{ q: [] }]))).toEqual(['query:api_key']);
  });

  it('the credential store names the query parameters, and puts the key there only', async () => {
    const plan = planCredentials({ apiKey: 'k1' }, { q: QUERY }, [{ q: [] }]);
    const store = new CredentialStore(plan, { apiKey: 'k1' }, 'https://agent.example');
    expect(store.queryNames).toEqual(['api_key']);
    const applied = await store.apply(new URL('https://agent.example/rpc'), 'POST', false);
    expect(applied.url.href).toBe('https://agent.example/rpc?api_key=k1');
    expect(applied.headers).toEqual({});
    expect(applied.secrets).toEqual(['k1']);
    const header = new CredentialStore(planCredentials({ apiKey: 'k1' }, { h: HEADER }, [{ h: [] }]), { apiKey: 'k1' }, 'https://agent.example');
    expect(header.queryNames).toEqual([]);
  });
});

describe('the credential store', () => {
  it('reports every secret value it attached, the password of Basic credentials and header-hook values included', async () => {
    const auth = { basic: { username: 'ann', password: 'pw-1' }, headers: () => ({ 'X-Signature': 'sig-1' }) };
    const store = new CredentialStore(planCredentials(auth, { b: { type: 'http', scheme: 'basic' } }, [{ b: [] }]), auth, 'https://a.example');
    const applied = await store.apply(new URL('https://a.example/'), 'GET', false);
    expect(applied.secrets).toEqual([btoa('ann:pw-1'), 'pw-1', 'sig-1']);
    // Another origin gets nothing, and so nothing is reported.
    expect((await store.apply(new URL('https://other.example/'), 'GET', false)).secrets).toEqual([]);
  });

  it('refuses a value no HTTP header can carry, without quoting it', async () => {
    for (const bearer of ['tok\nX-Injected: 1', 'tok\rX', 'tok\u0000', 'tok\u2026']) {
      const store = new CredentialStore(planCredentials({ bearer }, {}, []), { bearer }, 'https://a.example');
      const error = await store.apply(new URL('https://a.example/'), 'GET', false).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TetherError);
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
      expect((error as Error).message).not.toContain('tok');
    }
    // Leading and trailing whitespace (a token read from a file) is trimmed by fetch: accepted.
    const store = new CredentialStore(planCredentials({ bearer: 'tok\n' }, {}, []), { bearer: 'tok\n' }, 'https://a.example');
    expect((await store.apply(new URL('https://a.example/'), 'GET', false)).headers['Authorization']).toBe('Bearer tok\n');
  });
});
