import { describe, expect, it } from 'vitest';
import { TetherError } from './tether-error.js';
import { redact } from './redact.js';

describe('redact', () => {
  it('replaces the secrets it is given wherever they appear, also URL-encoded', () => {
    const secret = 'sk live/42+x';
    expect(redact(`token ${secret} and ${encodeURIComponent(secret)}.`, { secrets: [secret] })).toBe('token [REDACTED] and [REDACTED].');
    // A secret that contains another is replaced whole; empty secrets are ignored.
    expect(redact('abcdef', { secrets: ['abc', 'abcdef', ''] })).toBe('[REDACTED]');
  });

  it('redacts credentials in URLs: secret query parameters and the password of the user info', () => {
    expect(redact(new URL('https://agent.example/a2a?api_key=k1&x=1&access_token=t1#f'))).toBe(
      'https://agent.example/a2a?api_key=[REDACTED]&x=1&access_token=[REDACTED]#f',
    );
    expect(redact('GET https://a.example/?key=k1&sig=s1&q=hello → HTTP 500')).toBe('GET https://a.example/?key=[REDACTED]&sig=[REDACTED]&q=hello → HTTP 500');
    expect(redact('https://ann:hunter2@a.example/x')).toBe('https://ann:[REDACTED]@a.example/x');
    // `key` alone is only secret as a query parameter.
    expect(redact({ key: 'artifact-1' })).toEqual({ key: 'artifact-1' });
    // Query parameters of your own.
    expect(redact('https://a.example/?k=v1&x=1', { keys: ['k'] })).toBe('https://a.example/?k=[REDACTED]&x=1');
  });

  it('redacts `name: value` and `name=value` in text, keeping the scheme word of an Authorization value', () => {
    expect(redact('Authorization: Bearer abc.def-ghi')).toBe('Authorization: Bearer [REDACTED]');
    expect(redact('{"password":"p1","user":"ann","x-api-key": "k2"}')).toBe('{"password":"[REDACTED]","user":"ann","x-api-key": "[REDACTED]"}');
    expect(redact('set-cookie: sid=abc; Path=/')).toBe('set-cookie: [REDACTED]; Path=/');
    // Challenges and ordinary words are left alone.
    expect(redact('WWW-Authenticate: Bearer realm="a2a", error="invalid_token"')).toBe('WWW-Authenticate: Bearer realm="a2a", error="invalid_token"');
    expect(redact('error: the token expired')).toBe('error: the token expired');
  });

  it('redacts every scheme and quoted values whole (found in review: the token or the rest of a phrase was kept)', () => {
    expect(redact('authorization: bearer abc123secret')).toBe('authorization: bearer [REDACTED]');
    expect(redact('Authorization: DPoP eyJhbGciOi.secretpart')).toBe('Authorization: DPoP [REDACTED]');
    expect(redact('Proxy-Authorization: Negotiate YIIabc==')).toBe('Proxy-Authorization: Negotiate [REDACTED]');
    expect(redact('Authorization: abc123secret')).toBe('Authorization: [REDACTED]');
    // A token without a scheme word, followed by more text: the rest of the line goes.
    expect(redact('Authorization: sk-abc123 sent to the agent\nnext line')).toBe('Authorization: [REDACTED]\nnext line');
    expect(redact('token=BEARER xyz')).toBe('token=BEARER [REDACTED]');
    expect(redact('{"password":"correct horse battery staple","user":"ann"}')).toBe('{"password":"[REDACTED]","user":"ann"}');
    expect(redact('{"token":"ab\\"cdSECRET","n":1}')).toBe('{"token":"[REDACTED]","n":1}');
    expect(redact("secret='two words'")).toBe("secret='[REDACTED]'");
    // A raw `@` in the password: the URL parser takes the last one before the host.
    expect(redact('https://user:p@ss@host/x')).toBe('https://user:[REDACTED]@host/x');
    expect(new URL('https://user:p@ss@host/x').host).toBe('host');
  });

  it('redacts the values of secret names in objects, Headers and Maps, and leaves the rest as it was', () => {
    const headers = new Headers({ Authorization: 'Bearer t', 'Set-Cookie': 'sid=1', 'X-A2A-Notification-Token': 'n', 'Content-Type': 'text/plain' });
    expect(redact(headers)).toEqual({
      authorization: '[REDACTED]',
      'set-cookie': '[REDACTED]',
      'x-a2a-notification-token': '[REDACTED]',
      'content-type': 'text/plain',
    });
    const options = {
      auth: { bearer: 'b', apiKey: 'k', basic: { username: 'ann', password: 'p' }, headers: () => ({}) },
      push: { token: 't', hmac: { secret: 's' }, credentials: 'c' },
      usage: { inputTokens: 12, maxTokens: 100 },
      page: { nextPageToken: 'cursor-2' },
      empty: { token: undefined, secret: '' },
    };
    expect(redact(options)).toEqual({
      auth: { bearer: '[REDACTED]', apiKey: '[REDACTED]', basic: '[REDACTED]', headers: '[Function headers]' },
      push: { token: '[REDACTED]', hmac: { secret: '[REDACTED]' }, credentials: '[REDACTED]' },
      usage: { inputTokens: 12, maxTokens: 100 },
      page: { nextPageToken: 'cursor-2' },
      empty: { token: undefined, secret: '' },
    });
    expect(redact(new Map([['refresh_token', 'r'], ['id', 'x']]))).toEqual({ refresh_token: '[REDACTED]', id: 'x' });
    expect(redact({ customSig: 'zz' }, { keys: ['custom-sig'] })).toEqual({ customSig: '[REDACTED]' });
    // Nothing is modified in place.
    expect(options.auth.bearer).toBe('b');
  });

  // Every built-in secret name, in the spellings apps and servers use: a name dropped from the list
  // fails here (issue 16: `sessionid` could go unnoticed; `privatekey`, `passwd` and `pwd` had no test).
  it.each([
    'Authorization',
    'Proxy-Authorization',
    'Cookie',
    'Set-Cookie',
    'bearer',
    'basic',
    'credential',
    'credentials',
    'passwd',
    'pwd',
    'DB_PASSWD',
    'mysql-pwd',
    'refresh_token',
    'client.secret',
    'Password',
    'X-API-Key',
    'privateKey',
    'private_key',
    'signing-private-key',
    'sessionId',
    'session_id',
    'X-Session-ID',
    'JSESSIONID',
  ])('redacts the value of %s in an object, in `name=value` text and as a query parameter', (name) => {
    expect(redact({ [name]: 's3cr3t', user: 'ann' })).toEqual({ [name]: '[REDACTED]', user: 'ann' });
    expect(redact(new Map([[name, 's3cr3t']]))).toEqual({ [name]: '[REDACTED]' });
    // (After an Authorization name the rest of the line goes: the next line must stay.)
    expect(redact(`${name}=s3cr3t\nuser=ann`)).toBe(`${name}=[REDACTED]\nuser=ann`);
    // (An Authorization name takes the rest of the URL with it: more goes, never less.)
    const url = redact(new URL(`https://a.example/x?${encodeURIComponent(name)}=s3cr3t&q=1`)) as string;
    expect(url.startsWith(`https://a.example/x?${encodeURIComponent(name)}=[REDACTED]`)).toBe(true);
    expect(url).not.toContain('s3cr3t');
  });

  it('leaves names that only resemble a secret name alone', () => {
    const plain = { session: 's-1', sessionName: 'morning', key: 'artifact-1', pwdHint: 'your pet', privateKeyId: 'k-1', tokens: 12 };
    expect(redact(plain)).toEqual(plain);
  });

  it('turns errors into plain data, cause chain and TetherError fields included', () => {
    const root = new Error('refresh failed for tok-9');
    const error = new TetherError('UNAUTHENTICATED', 'credentials were rejected', {
      url: 'https://a.example/rpc?api_key=k9',
      status: 401,
      headers: { 'set-cookie': 'sid=9', 'www-authenticate': 'Bearer realm="x"' },
      bodySnippet: 'bad token tok-9',
      cause: root,
    });
    const copy = redact(error, { secrets: ['tok-9'] }) as Record<string, unknown>;
    expect(copy).toMatchObject({
      name: 'TetherError',
      code: 'UNAUTHENTICATED',
      status: 401,
      url: 'https://a.example/rpc?api_key=[REDACTED]',
      headers: { 'set-cookie': '[REDACTED]', 'www-authenticate': 'Bearer realm="x"' },
      bodySnippet: 'bad token [REDACTED]',
      cause: { name: 'Error', message: 'refresh failed for [REDACTED]' },
    });
    expect(typeof copy['stack']).toBe('string');
    expect(JSON.stringify(copy)).not.toMatch(/tok-9|k9|sid=9/);
  });

  it('is cycle-safe and bounded in depth and size', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic['self'] = cyclic;
    cyclic['list'] = [cyclic];
    expect(redact(cyclic)).toEqual({ name: 'a', self: '[Circular]', list: ['[Circular]'] });
    // A shared (not cyclic) object is copied each time it appears.
    const shared = { v: 1 };
    expect(redact({ a: shared, b: shared })).toEqual({ a: { v: 1 }, b: { v: 1 } });

    let deep: unknown = 'bottom';
    for (let i = 0; i < 50; i++) deep = { next: deep };
    let level = redact(deep, { maxDepth: 3 });
    for (let i = 0; i < 3; i++) level = (level as { next: unknown }).next;
    expect(level).toBe('[Truncated]');

    const wide = Array.from({ length: 100 }, (_, i) => i);
    const copied = redact(wide, { maxNodes: 10 }) as unknown[];
    expect(copied.slice(0, 9)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(copied.slice(9).every((v) => v === '[Truncated]')).toBe(true);
  });

  it('copies `__proto__` keys as data, summarizes binary data, and reads past throwing getters', () => {
    const copy = redact(JSON.parse('{"__proto__": {"polluted": true}, "bytes": null}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__', 'bytes']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(redact(new Uint8Array(3))).toBe('[Uint8Array of 3 bytes]');
    const hostile = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(redact(hostile)).toEqual({ boom: '[Unreadable]' });
  });

  it('scans hostile text in linear time', () => {
    // Inputs that would make a backtracking pattern quadratic: long names with no separator, long
    // runs of separators, user-info look-alikes.
    const size = 1 << 20;
    for (const unit of ['a.', 'a', 'a=', '://a:', '?a&', 'token:', 'Bearer ']) {
      const text = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
      const started = performance.now();
      redact(text, { secrets: ['zzz'] });
      // A quadratic scan of 1 MiB takes minutes; a linear one well under a second.
      expect(performance.now() - started, unit).toBeLessThan(2_000);
    }
  });
});
