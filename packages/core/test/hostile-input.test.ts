import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError } from '../src/index.js';
import { planCredentials } from '../src/auth/auth-plan.js';
import { negotiate } from '../src/card/negotiate.js';
import { normalizeCard } from '../src/card/normalize-card.js';
import { decodeMessage, decodePushConfig, decodeStreamEvent, decodeStreamEventWithSchemas, decodeTask, decodeTaskWithSchemas } from '../src/protocol/decode.js';
import { DecodeError } from '../src/protocol/decode-error.js';
import type { Dialect } from '../src/protocol/dialect.js';
import { startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

// Issue 10, the findings of fuzzing the protocol layer: each test here failed before its fix.
// Rule: ambiguous input is an error (DecodeError, which transports turn into INVALID_RESPONSE or
// MALFORMED_EVENT; CARD_INVALID for cards), never a silent drop; nothing but a TetherError leaves.

const DIALECTS: Dialect[] = ['v1', 'v03', 'v03-proto'];

/** The JSON text of a list nested `depth` times: `[[[…]]]` (JSON.stringify would overflow the stack). */
function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

describe('cards: only CARD_INVALID leaves connect(), whatever the card holds', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  async function connectTo(cardJson: string): Promise<TetherError> {
    server.on('GET /.well-known/agent-card.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(cardJson);
    });
    try {
      await connect(server.url, { cardCache: false });
    } catch (error) {
      expect(error).toBeInstanceOf(TetherError);
      return error as TetherError;
    }
    throw new Error('expected connect() to fail');
  }

  it('an OAuth scope written {"toString":1} is CARD_INVALID, not a TypeError', async () => {
    const card = v1Card(server.origin, {
      securitySchemes: {
        oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://t', scopes: { read: { toString: 1 } } } } } },
      },
    });
    const error = await connectTo(JSON.stringify(card));
    expect(error.code).toBe('CARD_INVALID');
    expect(error.message).toMatch(/securitySchemes\.oauth\..*scopes\.read/);
  });

  it('a 10,000-deep securityRequirements list is CARD_INVALID, not a RangeError', async () => {
    const deep = nested(10_000);
    const v1 = JSON.stringify(v1Card(server.origin)).replace(/}$/, `,"securityRequirements":[{"schemes":{"s":{"list":${deep}}}}]}`);
    const v1Error = await connectTo(v1);
    expect(v1Error.code).toBe('CARD_INVALID');
    expect(v1Error.message).toMatch(/securityRequirements\.0\.schemes\.s\.list\.0/);
    const v03 = JSON.stringify(v1Card(server.origin)).replace(/}$/, `,"securityRequirements":[{"s":${deep}}]}`);
    const v03Error = await connectTo(v03);
    expect(v03Error.code).toBe('CARD_INVALID');
    expect(v03Error.message.length).toBeLessThan(600);
  });

  it('a given card that only looks normalized is normalized: from its raw form when it has one, else CARD_INVALID', async () => {
    const options = { cardCache: false as const };
    // The shape of a normalized card, written by hand (or by whoever wrote the JSON): nothing vouches for it.
    const forged = { name: 'x', interfaces: [{ url: 'http://10.0.0.1/rpc', binding: 'JSONRPC', version: '1.0' }], cardFormat: '1.0' };
    const refused = await connect(server.url, { ...options, card: forged }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TetherError);
    expect((refused as TetherError).code).toBe('CARD_INVALID');
    // A normalized card that went through JSON (a file, a message between processes) is normalized again
    // from `raw`: interfaces put beside it are not used.
    const normalized = normalizeCard(v1Card(server.origin), server.url);
    const copy = JSON.parse(JSON.stringify(normalized)) as Record<string, unknown>;
    copy['interfaces'] = forged.interfaces;
    const client = await connect(server.url, { ...options, card: copy });
    expect(client.card.interfaces.map((i) => i.url)).toEqual([`${server.origin}/rpc`, `${server.origin}/rest`]);
    // The card normalizeCard() returned is used as it is, edits included.
    normalized.description = 'edited by the caller';
    expect((await connect(server.url, { ...options, card: normalized })).card.description).toBe('edited by the caller');
  });

  it('fields that disagree are CARD_INVALID, never one silently chosen (found in review)', () => {
    const base = 'https://agent.example/.well-known/agent-card.json';
    const v1 = (iface: Record<string, unknown>): unknown => ({ name: 'a', supportedInterfaces: [{ protocolVersion: '1.0', ...iface }] });
    // The binding decided whether the URL is checked: a JSONRPC interface kept a relative or broken URL.
    expect(() => normalizeCard(v1({ url: '/rpc', protocolBinding: 'JSONRPC', transport: 'GRPC' }), base)).toThrow(/supportedInterfaces\.0: protocolBinding and transport differ/);
    expect(() => normalizeCard(v1({ url: 'http://[::1', protocolBinding: 'JSONRPC', transport: 'GRPC' }), base)).toThrow(TetherError);
    const v03 = { name: 'a', url: 'https://a.example/rpc', additionalInterfaces: [{ url: '/x', transport: 'GRPC', protocolBinding: 'HTTP+JSON' }] };
    expect(() => normalizeCard(v03, base)).toThrow(/additionalInterfaces\.0: protocolBinding and transport differ/);
    // The same binding under two spellings is one binding; an empty one is unset.
    expect(normalizeCard(v1({ url: '/rpc', protocolBinding: '', transport: 'HTTP+JSON' }), base).interfaces[0]?.binding).toBe('HTTP+JSON');
    expect(normalizeCard(v1({ url: '/rpc', protocolBinding: 'JSONRPC', transport: 'JSON-RPC' }), base).interfaces[0]?.url).toBe('https://agent.example/rpc');
    // A v1 scheme wrapper beside a v0.3 type that says another type.
    const hybrid = { name: 'a', url: 'https://a.example/', securitySchemes: { s: { httpAuthSecurityScheme: { scheme: 'bearer' }, type: 'apiKey', in: 'query', name: 'k' } } };
    expect(() => normalizeCard(hybrid, base)).toThrow(/securitySchemes\.s: httpAuthSecurityScheme is http, type says apiKey/);
    expect(normalizeCard({ ...hybrid, securitySchemes: { s: { httpAuthSecurityScheme: { scheme: 'bearer' }, type: 'http' } } }, base).securitySchemes['s']).toEqual({ type: 'http', scheme: 'bearer' });
    // The v1 and v0.3 names of the extended card flag.
    expect(() => normalizeCard({ name: 'a', url: 'https://a.example/', capabilities: { extendedAgentCard: false }, supportsAuthenticatedExtendedCard: true }, base)).toThrow(
      /capabilities\.extendedAgentCard: differs from supportsAuthenticatedExtendedCard/,
    );
    // The same requirement written in the two versions, keys and scopes in another order, is one requirement.
    const same = normalizeCard(
      { name: 'a', url: 'https://a.example/', security: [{ a: ['r', 'w'], b: [] }], securityRequirements: [{ schemes: { b: { list: [] }, a: { list: ['w', 'r'] } } }] },
      base,
    );
    expect(same.securityRequirements).toHaveLength(1);
    expect(() => normalizeCard({ name: 'a', url: 'https://a.example/', security: [{ a: ['r'] }], securityRequirements: [{ schemes: { a: { list: ['w'] } } }] }, base)).toThrow(
      /securityRequirements and security differ/,
    );
  });

  it('a scope of a requirement that is not a string is CARD_INVALID (skills too)', () => {
    const base = { name: 'a', url: 'https://a.example/rpc' };
    expect(() => normalizeCard({ ...base, security: [{ s: [{ toString: 1 }] }] })).toThrow(/invalid at security\.0\.s\.0: expected string/);
    expect(() => normalizeCard({ ...base, skills: [{ id: 'x', name: 'x', security: [{ s: [1] }] }] })).toThrow(
      /invalid at skills\.0\.security\.0\.s\.0: expected string/,
    );
  });
});

describe('prototype names are data, never prototype members', () => {
  const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

  it('a state named like an Object.prototype member is a DecodeError, on every path (docs/security.md; issue 16: it was unknown)', () => {
    for (const name of NAMES) {
      const status = JSON.parse(`{"state":${JSON.stringify(name)}}`) as unknown;
      for (const dialect of DIALECTS) {
        const wrapped = { statusUpdate: { taskId: 't', status } };
        const bare = { kind: 'status-update', taskId: 't', status };
        const decodes = [
          () => decodeStreamEvent(wrapped, dialect),
          () => decodeStreamEventWithSchemas(wrapped, dialect),
          () => decodeStreamEvent(bare, dialect),
          () => decodeStreamEventWithSchemas(bare, dialect),
          () => decodeTask({ id: 't', status }, dialect),
          () => decodeTaskWithSchemas({ id: 't', status }, dialect),
        ];
        for (const decode of decodes) expect(decode, `${name} ${dialect}`).toThrow(DecodeError);
      }
    }
  });

  it('a role or part kind named like a prototype member is a DecodeError', () => {
    for (const name of NAMES) {
      expect(() => decodeMessage({ messageId: 'm', role: name, parts: [] }, 'v1')).toThrow(DecodeError);
      expect(() => decodeMessage({ messageId: 'm', role: 'agent', parts: [{ kind: name, text: 'x' }] }, 'v03')).toThrow(DecodeError);
    }
  });

  it('a security scheme named __proto__ keeps its requirement (a requirement that loses a scheme is weaker)', () => {
    const card = normalizeCard(
      JSON.parse(
        '{"name":"a","url":"https://a.example/rpc","security":[{"__proto__":[],"s":["r"]}],' +
          '"securitySchemes":{"__proto__":{"type":"apiKey","in":"header","name":"X-Proto"},"s":{"type":"http","scheme":"bearer"}}}',
      ),
    );
    const [requirement] = card.securityRequirements;
    expect(Object.keys(requirement ?? {})).toEqual(['__proto__', 's']);
    expect(Object.hasOwn(card.securitySchemes, '__proto__')).toBe(true);
    expect(Object.keys(card.securitySchemes)).toEqual(['__proto__', 's']);
    // Both schemes are needed: a bearer token alone satisfies nothing the card asks for …
    expect(planCredentials({ bearer: 'b' }, card.securitySchemes, card.securityRequirements).map((c) => c.scheme)).toEqual([undefined]);
    // … and with both, both are sent.
    expect(planCredentials({ bearer: 'b', apiKey: 'k' }, card.securitySchemes, card.securityRequirements).map((c) => c.name)).toEqual([
      'X-Proto',
      'Authorization',
    ]);
    expect(({} as Record<string, unknown>)['type']).toBeUndefined();
  });

  it('a requirement naming an undeclared prototype member is not satisfied by Object.prototype', () => {
    const security: Record<string, string[]>[] = [{ constructor: [] }, { toString: [] }];
    const card = normalizeCard({ name: 'a', url: 'https://a.example/rpc', security });
    expect(card.securitySchemes['constructor']).toBeUndefined();
    expect(card.securitySchemes['toString']).toBeUndefined();
    expect(card.securityRequirements).toEqual(security);
  });
});

/** Every path a message takes: alone, in a status, in a task, in a stream event; fast and checked. */
function decodeEverywhere(message: Record<string, unknown>, dialect: Dialect): unknown[] {
  const status = { state: 'working', message };
  return [
    decodeMessage(message, dialect),
    decodeTask({ id: 't', status }, dialect),
    decodeTaskWithSchemas({ id: 't', status }, dialect),
    decodeStreamEvent({ statusUpdate: { taskId: 't', status } }, dialect),
    decodeStreamEventWithSchemas({ statusUpdate: { taskId: 't', status } }, dialect),
  ];
}

function rejectedEverywhere(message: Record<string, unknown>, dialect: Dialect, reason: RegExp): void {
  const status = { state: 'working', message };
  const runs: (() => unknown)[] = [
    () => decodeMessage(message, dialect),
    () => decodeTask({ id: 't', status }, dialect),
    () => decodeTaskWithSchemas({ id: 't', status }, dialect),
    () => decodeStreamEvent({ statusUpdate: { taskId: 't', status } }, dialect),
    () => decodeStreamEventWithSchemas({ statusUpdate: { taskId: 't', status } }, dialect),
  ];
  for (const run of runs) {
    expect(run, `${dialect}: ${JSON.stringify(message)}`).toThrow(DecodeError);
    expect(run).toThrow(reason);
  }
}

/** {@link rejectedEverywhere} for a part, which is also rejected in an artifact. */
function partRejected(part: unknown, dialect: Dialect, reason: RegExp): void {
  rejectedEverywhere(msg([part]), dialect, reason);
  const event = { artifactUpdate: { taskId: 't', artifact: { artifactId: 'a', parts: [part] } } };
  expect(() => decodeStreamEvent(event, dialect)).toThrow(reason);
  expect(() => decodeStreamEventWithSchemas(event, dialect)).toThrow(reason);
}

const msg = (parts: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({ messageId: 'm', role: 'ROLE_AGENT', parts, ...extra });

describe('ambiguous input is a DecodeError, never a silent drop', () => {
  it('a part with both text and data', () => {
    for (const dialect of DIALECTS) partRejected({ text: 'a', data: { x: 1 } }, dialect, /parts\[0\]: .*text.*data/);
    partRejected({ kind: 'text', text: 'a', data: { x: 1 } }, 'v03', /parts\[0\]: .*text.*data/);
  });

  it('a file with both a uri and bytes', () => {
    for (const dialect of DIALECTS) {
      partRejected({ file: { uri: 'https://f', bytes: 'Ynl0ZXM=' } }, dialect, /parts\[0\]\.file: .*uri.*bytes/);
      partRejected({ file: { fileWithUri: 'https://f', fileWithBytes: 'Ynl0ZXM=' } }, dialect, /uri.*bytes/);
    }
    partRejected({ url: 'https://f', raw: 'Ynl0ZXM=' }, 'v1', /parts\[0\]: .*url.*raw/);
  });

  it('v0.3 proto data wrapped with other keys beside the inner data', () => {
    partRejected({ data: { data: 1, other: 2 } }, 'v03-proto', /parts\[0\]\.data: /);
  });

  it('parts: [] beside a non-empty content keeps the content (an empty list is unset); two full lists are ambiguous', () => {
    for (const dialect of DIALECTS) {
      for (const decoded of decodeEverywhere(msg([], { content: [{ text: 'x' }] }), dialect)) {
        expect(JSON.stringify(decoded)).toContain('"parts":[{"kind":"text","text":"x"}]');
      }
      rejectedEverywhere(msg([{ text: 'y' }], { content: [{ text: 'x' }] }), dialect, /both parts and content/);
    }
  });

  it('a status with both message and update', () => {
    const status = {
      state: 'TASK_STATE_WORKING',
      message: { messageId: 'a', role: 'ROLE_AGENT', parts: [] },
      update: { messageId: 'b', role: 'ROLE_AGENT', parts: [] },
    };
    for (const dialect of DIALECTS) {
      expect(() => decodeStreamEvent({ statusUpdate: { taskId: 't', status } }, dialect)).toThrow(/status: both message and update/);
      expect(() => decodeTask({ id: 't', status }, dialect)).toThrow(/task\.status: both message and update/);
    }
  });

  it('two different values for one field of the model (uri, media type, file name)', () => {
    partRejected({ file: { uri: 'https://a', fileWithUri: 'https://b' } }, 'v03-proto', /uri.*fileWithUri/);
    partRejected({ file: { uri: 'https://a', mimeType: 'text/plain', mediaType: 'image/png' } }, 'v03', /mimeType.*mediaType/);
    partRejected({ file: { uri: 'https://a', mimeType: 'text/plain' }, mediaType: 'image/png' }, 'v1', /mediaType/);
    partRejected({ file: { uri: 'https://a', name: 'a.txt' }, filename: 'b.txt' }, 'v1', /name.*filename/);
  });

  it('a push config whose names disagree', () => {
    expect(() => decodePushConfig({ url: 'https://h', authentication: { scheme: 'Basic', schemes: ['Bearer'] } })).toThrow(/scheme.*schemes/);
    expect(() => decodePushConfig({ name: 'tasks/a/pushNotificationConfigs/c', taskId: 'b', pushNotificationConfig: { url: 'https://h' } })).toThrow(
      /taskId/,
    );
    expect(() => decodePushConfig({ name: 'tasks/a/pushNotificationConfigs/%E0%A4%A', pushNotificationConfig: { url: 'https://h' } })).toThrow(
      DecodeError,
    );
  });
});

describe('a stream response is one event, never two (found by the fuzz tests)', () => {
  const task = { id: 't', status: { state: 'TASK_STATE_WORKING' } };
  const statusUpdate = { taskId: 't', status: { state: 'working' } };

  it('a v0.3 object with kind and a v1 wrapper beside it is a DecodeError, on both paths', () => {
    const cases = [
      { kind: 'message', messageId: 'm', role: 'agent', parts: [], task },
      { kind: 'status-update', ...statusUpdate, artifactUpdate: { taskId: 't', artifact: { artifactId: 'a', parts: [] } } },
      { kind: 'task', ...task, statusUpdate },
      { kind: 'artifact-update', taskId: 't', artifact: { artifactId: 'a', parts: [] }, msg: { messageId: 'm', role: 'ROLE_AGENT' } },
    ];
    for (const value of cases) {
      for (const dialect of DIALECTS) {
        expect(() => decodeStreamEvent(value, dialect), JSON.stringify(value)).toThrow(/both kind and/);
        expect(() => decodeStreamEventWithSchemas(value, dialect)).toThrow(/both kind and/);
      }
    }
  });

  it('a v1 wrapper beside the fields of a bare event is a DecodeError, on both paths (found with FUZZ_SEED=7)', () => {
    const cases = [
      { task, ...statusUpdate },
      { statusUpdate, ...task },
      { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] }, taskId: 't', artifact: { artifactId: 'a', parts: [] } },
      { artifactUpdate: { taskId: 't', artifact: { artifactId: 'a', parts: [] } }, messageId: 'm', role: 'agent' },
    ];
    for (const value of cases) {
      for (const dialect of DIALECTS) {
        expect(() => decodeStreamEvent(value, dialect), JSON.stringify(value)).toThrow(/both .* and the fields of/);
        expect(() => decodeStreamEventWithSchemas(value, dialect)).toThrow(/both .* and the fields of/);
      }
    }
    // A wrapper beside unknown fields is still one event.
    expect(decodeStreamEvent({ statusUpdate, future: 1 }, 'v1').kind).toBe('status-update');
  });

  it('a wrapper whose inner kind names another event is a DecodeError, on both paths (found in review)', () => {
    const cases = [
      { message: { kind: 'task', messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      { task: { kind: 'status-update', id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
      { statusUpdate: { kind: 'artifact-update', taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } },
      { artifactUpdate: { kind: 'message', taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [] } } },
    ];
    for (const value of cases) {
      expect(() => decodeStreamEvent(value, 'v1'), JSON.stringify(value)).toThrow(/kind "[a-z-]+" inside/);
      expect(() => decodeStreamEventWithSchemas(value, 'v1')).toThrow(/kind "[a-z-]+" inside/);
    }
    // The kind that agrees is fine.
    expect(decodeStreamEvent({ task: { kind: 'task', id: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }, 'v1').kind).toBe('task');
  });

  it('a push config name that is not a resource name is a DecodeError, not dropped with its task and id (found in review)', () => {
    expect(() => decodePushConfig({ name: 'projects/p/tasks/OTHER/pushNotificationConfigs/c9', pushNotificationConfig: { url: 'https://h/' } }, 't1')).toThrow(
      /pushConfig\.name: .*tasks\/\{taskId\}/,
    );
    expect(decodePushConfig({ name: 'tasks/t1/pushNotificationConfigs/c9', pushNotificationConfig: { url: 'https://h/' } })).toMatchObject({ taskId: 't1', id: 'c9' });
  });

  it('a bare object without kind that reads as two events is a DecodeError', () => {
    const cases = [
      { messageId: 'm', role: 'agent', parts: [], ...task },
      { ...statusUpdate, artifact: { artifactId: 'a', parts: [] } },
      { ...task, taskId: 't' },
    ];
    for (const value of cases) {
      for (const dialect of DIALECTS) expect(() => decodeStreamEvent(value, dialect), JSON.stringify(value)).toThrow(/reads as both/);
    }
    // One reading: fine.
    expect(decodeStreamEvent({ ...statusUpdate }, 'v03').kind).toBe('status-update');
    expect(decodeStreamEvent({ ...task }, 'v03').kind).toBe('task');
  });
});

describe('what is not ambiguous keeps decoding', () => {
  it("file: {uri: '', fileWithUri: 'http://f'} is a file at http://f (an empty string is unset)", () => {
    for (const decoded of decodeEverywhere(msg([{ file: { uri: '', fileWithUri: 'http://f' } }]), 'v03-proto')) {
      expect(JSON.stringify(decoded)).toContain('{"kind":"file","uri":"http://f"}');
    }
    const bytes = decodeMessage(msg([{ file: { bytes: '', fileWithBytes: 'AAEC', mimeType: 'image/png' } }]), 'v03-proto');
    expect(bytes.parts).toEqual([{ kind: 'file', bytes: 'AAEC', mediaType: 'image/png' }]);
  });

  it('empty strings and nulls beside the one real member, the same value under both names, an empty list beside a full one', () => {
    expect(decodeMessage(msg([{ text: '', data: { x: 1 } }]), 'v1').parts).toEqual([{ kind: 'data', data: { x: 1 } }]);
    expect(decodeMessage(msg([{ text: 'a', data: null, url: '' }]), 'v1').parts).toEqual([{ kind: 'text', text: 'a' }]);
    expect(decodeMessage(msg([{ file: { uri: 'https://f', fileWithUri: 'https://f', mimeType: 'a/b', mediaType: 'a/b' } }]), 'v03').parts).toEqual([
      { kind: 'file', uri: 'https://f', mediaType: 'a/b' },
    ]);
    expect(decodeMessage({ messageId: 'm', role: 'ROLE_AGENT', parts: [], content: [] }, 'v03-proto').parts).toEqual([]);
    expect(decodeMessage({ messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'p' }], content: [] }, 'v03-proto').parts).toEqual([{ kind: 'text', text: 'p' }]);
    expect(decodeMessage(msg([{ data: { data: { x: 1 } } }]), 'v03-proto').parts).toEqual([{ kind: 'data', data: { x: 1 } }]);
    expect(decodeMessage(msg([{ data: { x: 1 } }]), 'v03-proto').parts).toEqual([{ kind: 'data', data: { x: 1 } }]);
    expect(decodeMessage(msg([{ data: null }]), 'v1').parts).toEqual([{ kind: 'data', data: null }]);
  });
});

describe('error messages show a bounded part of the agent text', () => {
  const huge = 'x'.repeat(1 << 20);

  it('a 1 MB role, part kind, stream kind or key is cut in the DecodeError', () => {
    const messages = [
      () => decodeMessage({ messageId: 'm', role: huge, parts: [] }, 'v1'),
      () => decodeMessage({ messageId: 'm', role: 'agent', parts: [{ kind: huge }] }, 'v03'),
      () => decodeStreamEvent({ kind: huge }, 'v03'),
      () => decodeStreamEvent({ [huge]: 1 }, 'v1'),
    ].map((run) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(DecodeError);
        return (error as Error).message;
      }
      throw new Error('expected a DecodeError');
    });
    for (const message of messages) expect(message.length).toBeLessThan(300);
  });

  it('a card with a 1 MB URL or name, or 10,000 interfaces, makes a short CARD_INVALID or NO_COMPATIBLE_INTERFACE', () => {
    expect(() => normalizeCard({ name: 'a', url: `http://[${huge}` })).toThrow(TetherError);
    try {
      normalizeCard({ name: 'a', url: `http://[${huge}` });
    } catch (error) {
      expect((error as TetherError).code).toBe('CARD_INVALID');
      expect((error as TetherError).message.length).toBeLessThan(500);
    }
    const interfaces = Array.from({ length: 10_000 }, (_, i) => ({ url: `https://a.example/${i}/${'y'.repeat(100)}`, protocolBinding: 'GRPC' }));
    try {
      negotiate(normalizeCard({ name: huge, supportedInterfaces: interfaces }));
      throw new Error('expected NO_COMPATIBLE_INTERFACE');
    } catch (error) {
      expect((error as TetherError).code).toBe('NO_COMPATIBLE_INTERFACE');
      expect((error as TetherError).message.length).toBeLessThan(2_000);
    }
  });
});

describe('the protocol entry throws nothing but TetherErrors', () => {
  it('every function of @a2a-tether/core/protocol, given anything at all (a DecodeError is a TetherError: INVALID_RESPONSE)', async () => {
    const entry = (await import('../src/protocol-entry.js')) as Record<string, unknown>;
    const functions = Object.entries(entry).filter(([name, value]) => typeof value === 'function' && /^[a-z]/.test(name));
    expect(functions.map(([name]) => name).sort()).toEqual(
      [
        'a2aCodeForReason',
        'cardCandidates',
        'dataOf',
        'decodeMessage',
        'decodePushConfig',
        'decodePushConfigList',
        'decodeSendResult',
        'decodeStreamEvent',
        'decodeTask',
        'decodeTaskPage',
        'encodeMessage',
        'encodePushConfig',
        'encodeSendParams',
        'endsStream',
        'eventFeed',
        'generationMismatch',
        'majorMinor',
        'negotiate',
        'normalizeCard',
        'parseRetryAfter',
        'taskPages',
      ],
    );
    const values: unknown[] = [
      undefined,
      null,
      {},
      [],
      '',
      'x',
      'http://[',
      1,
      Number.NaN,
      JSON.parse('{"__proto__":{"polluted":1},"kind":"task"}'),
      { kind: 'x' },
      { messageId: 'm', role: 'agent', parts: null },
      { messageId: 'm', role: 'agent', parts: [{ kind: 'file', file: null }] },
      { message: null },
      { interfaces: null },
      { interfaces: [null] },
      { kind: 'status-update', status: null },
      JSON.parse(nested(5_000)),
    ];
    const escaped: string[] = [];
    for (const [name, fn] of functions) {
      for (const first of values) {
        for (const second of [undefined, 'v1', 'v03', 'v03-proto', 'v9', ...values]) {
          try {
            const result: unknown = (fn as (a: unknown, b: unknown) => unknown)(first, second);
            if (result instanceof Promise) await result;
          } catch (error) {
            if (!(error instanceof TetherError)) escaped.push(`${name}: ${String(error).slice(0, 80)}`);
          }
        }
      }
    }
    expect([...new Set(escaped)]).toEqual([]);
    const decodeError = (() => {
      try {
        decodeTask(null, 'v1');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(decodeError).toBeInstanceOf(DecodeError);
    expect(decodeError).toBeInstanceOf(TetherError);
    expect((decodeError as TetherError).code).toBe('INVALID_RESPONSE');
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

describe('an echoed credential is redacted before a quote is cut (found in review)', () => {
  it('a token across the 64 KiB cut of a quoted body leaves no part of itself in the message or the snippet', async () => {
    const token = 'sk-live-0123456789abcdefghijklmnopqrstuv';
    const card = v1Card('https://agent.example', {
      securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'bearer' } } },
      securityRequirements: [{ schemes: { b: { list: [] } } }],
    });
    for (const [type, padding] of [
      ['text/html', 64 * 1024 - 30],
      ['application/json', 64 * 1024 - 12],
    ] as const) {
      const fetch = async (_input: string | URL, init?: RequestInit): Promise<Response> => {
        const echoed = (new Headers(init?.headers).get('authorization') ?? '').replace(/^Bearer /, '');
        // A page (or a broken JSON body) that echoes the request's credentials, padded so they straddle the cut.
        return new Response(`${' '.repeat(padding)}${echoed} end`, { status: 200, headers: { 'content-type': type } });
      };
      const client = await connect('https://agent.example/', { card, fetch, auth: { bearer: token }, maxRetries: 0, cardCache: false });
      const error = await client.sendMessage('hi').then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(TetherError);
      const { message, bodySnippet } = error as TetherError;
      for (const text of [message, bodySnippet ?? '']) expect(text, `${type}: ${text.slice(-80)}`).not.toContain(token.slice(0, 8));
    }
  });
});
