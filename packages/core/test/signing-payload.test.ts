// What a card signature covers (A2A v1.0 §8.4.1): the card without `signatures`, defaults dropped by
// field presence, in RFC 8785 form; and the `'a2a-js'` form the official SDK signs.
import { describe, expect, it } from 'vitest';
import { TetherError } from '../src/index.js';
import { cardSigningPayload } from '../src/signing-entry.js';

const spec = (card: unknown): string => cardSigningPayload(card);
const sdk = (card: unknown): string => cardSigningPayload(card, { form: 'a2a-js' });

describe('cardSigningPayload', () => {
  it('reproduces the example of spec §8.4.1 (required fields stay even when empty; set optionals stay)', () => {
    const fragment = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    expect(spec(fragment)).toBe('{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}');
    // The official SDK drops every empty value, required or not.
    expect(sdk(fragment)).toBe('{"capabilities":{"pushNotifications":false,"streaming":false},"name":"Example Agent"}');
  });

  it('writes non-ASCII names as UTF-8 text, sorted by UTF-16 code units', () => {
    const card = {
      name: 'Agent météo 気象 🌦',
      description: 'Prévisions — 天気予報',
      version: '1.0',
      skills: [{ id: 'prévision', name: 'Prévision ☀', description: 'Ünïcödé', tags: ['天気', 'météo'] }],
      'émoji🌦': 'unknown fields are signed as served',
      zeta: 1,
    };
    const payload = spec(card);
    expect(payload).toBe(
      '{"description":"Prévisions — 天気予報","name":"Agent météo 気象 🌦",' +
        '"skills":[{"description":"Ünïcödé","id":"prévision","name":"Prévision ☀","tags":["天気","météo"]}],' +
        '"version":"1.0","zeta":1,"émoji🌦":"unknown fields are signed as served"}',
    );
    expect(payload).not.toContain('\\u');
  });

  it('keeps every empty REQUIRED field (spec) and drops them all (a2a-js)', () => {
    const card = {
      name: '',
      description: '',
      supportedInterfaces: [],
      provider: { url: '', organization: '' },
      version: '',
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [{ id: 's', name: '', description: '', tags: [] }],
    };
    expect(spec(card)).toBe(
      '{"capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"description":"","name":"",' +
        '"provider":{"organization":"","url":""},"skills":[{"description":"","id":"s","name":"","tags":[]}],' +
        '"supportedInterfaces":[],"version":""}',
    );
    expect(sdk(card)).toBe('{"skills":[{"id":"s"}]}');
  });

  it('drops implicit-presence defaults, keeps set optionals and set messages (spec)', () => {
    const card = {
      name: 'A',
      description: 'd',
      supportedInterfaces: [{ url: 'https://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
      version: '1',
      documentationUrl: '', // optional: set, so kept
      iconUrl: null, // null: not set
      capabilities: { streaming: false, extensions: [{ uri: 'urn:x', description: '', required: false, params: {} }] },
      securitySchemes: {
        mtls: { mtlsSecurityScheme: {} },
        oauth: {
          oauth2SecuritySchemes: 'unknown member: as served',
          oauth2SecurityScheme: {
            description: '',
            flows: { authorizationCode: { authorizationUrl: 'https://a/auth', tokenUrl: 'https://a/token', refreshUrl: '', scopes: {}, pkceRequired: false } },
          },
        },
      },
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'], examples: [], inputModes: [], securityRequirements: [{ schemes: {} }] }],
    };
    expect(JSON.parse(spec(card))).toEqual({
      name: 'A',
      description: 'd',
      supportedInterfaces: [{ url: 'https://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      version: '1',
      documentationUrl: '',
      capabilities: { streaming: false, extensions: [{ uri: 'urn:x', params: {} }] },
      securitySchemes: {
        mtls: { mtlsSecurityScheme: {} },
        oauth: {
          oauth2SecuritySchemes: 'unknown member: as served',
          oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'https://a/auth', tokenUrl: 'https://a/token', scopes: {} } } },
        },
      },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'], securityRequirements: [{}] }],
    });
    // The official SDK loses the mTLS scheme, the empty scopes, the set-but-empty optional and unknown members.
    expect(JSON.parse(sdk(card))).toEqual({
      name: 'A',
      description: 'd',
      supportedInterfaces: [{ url: 'https://a/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      version: '1',
      capabilities: { streaming: false, extensions: [{ uri: 'urn:x' }] },
      securitySchemes: {
        oauth: { oauth2SecurityScheme: { flows: { authorizationCode: { authorizationUrl: 'https://a/auth', tokenUrl: 'https://a/token' } } } },
      },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'd', tags: ['t'] }],
    });
  });

  it('signs fields the v1.0 card does not define as served (spec), and leaves them out (a2a-js)', () => {
    const hybrid = {
      name: 'A',
      protocolVersion: '0.3.0',
      url: 'https://a/rpc',
      supports_extra: { list: ['', 'x'], empty: '' },
      default_input_modes: ['text/plain'],
    };
    expect(spec(hybrid)).toBe(
      '{"default_input_modes":["text/plain"],"name":"A","protocolVersion":"0.3.0","supports_extra":{"empty":"","list":["","x"]},"url":"https://a/rpc"}',
    );
    // a2a-js reads snake_case names as the camelCase field, and drops the rest.
    expect(sdk(hybrid)).toBe('{"defaultInputModes":["text/plain"],"name":"A"}');
  });

  it('signs Struct params as served (spec); the official SDK cleans empties inside them', () => {
    const card = { name: 'A', capabilities: { extensions: [{ uri: 'urn:x', params: { keep: '', none: null, list: ['', 1, false], deep: { e: [] } } }] } };
    expect(spec(card)).toBe('{"capabilities":{"extensions":[{"params":{"deep":{"e":[]},"keep":"","list":["",1,false],"none":null},"uri":"urn:x"}]},"name":"A"}');
    expect(sdk(card)).toBe('{"capabilities":{"extensions":[{"params":{"list":[1,false]},"uri":"urn:x"}]},"name":"A"}');
  });

  it('never covers the signatures themselves', () => {
    const card = { name: 'A', signatures: [{ protected: 'x', signature: 'y' }] };
    expect(spec(card)).toBe('{"name":"A"}');
    expect(sdk(card)).toBe('{"name":"A"}');
  });

  it('treats a member named __proto__ as data, and keys of Object.prototype as unknown fields', () => {
    const card = JSON.parse('{"name":"A","__proto__":{"polluted":true},"constructor":"c","toString":""}') as unknown;
    expect(spec(card)).toBe('{"__proto__":{"polluted":true},"constructor":"c","name":"A","toString":""}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('refuses what is not a JSON object, and what RFC 8785 cannot write, with INVALID_ARGUMENT', () => {
    for (const bad of [null, 'card', [], 1]) {
      expect(() => spec(bad)).toThrow(TetherError);
    }
    expect(() => spec({ name: 'a\ud800' })).toThrow(/lone surrogate/);
    expect(() => sdk(JSON.parse('{"name":{"toString":1}}'))).toThrow(TetherError);
    expect(sdk({ name: { a: 1 } })).toBe('{"name":"[object Object]"}');
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    expect(() => spec({ name: 'A', capabilities: { extensions: [{ uri: 'u', params: deep }] } })).toThrow(/deeper than 512/);
    expect(() => sdk({ name: 'A', capabilities: { extensions: [{ uri: 'u', params: deep }] } })).toThrow(/deeper than 512/);
  });
});
