import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, TetherError, toMessage, type A2AClient, type MessageInput } from '../src/index.js';
import { json, RPC_ID, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

let server: ScriptedServer;
let client: A2AClient;
beforeEach(async () => {
  server = await startScriptedServer();
  server.on('POST /rpc', (_req, res) =>
    json(res, 200, { jsonrpc: '2.0', id: RPC_ID, result: { message: { messageId: 'r1', role: 'ROLE_AGENT', parts: [{ text: 'ok' }] } } }),
  );
  client = await connect(server.url, { cardCache: false, card: v1Card(server.origin) });
});
afterEach(async () => {
  await server.close();
});

async function failure(promise: Promise<unknown>): Promise<TetherError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    return error as TetherError;
  }
  throw new Error('expected a failure');
}

const empty: [string, MessageInput][] = [
  ["''", ''],
  ['{}', {}],
  ['{ parts: [] }', { parts: [] }],
  ["{ text: '' }", { text: '' }],
  ["one empty text part", { parts: [{ kind: 'text', text: '' }] }],
  ['only empty text parts', { parts: [{ kind: 'text', text: '' }], text: '' }],
];

describe('a message with nothing to say is INVALID_ARGUMENT, and nothing is sent', () => {
  it.each(empty)('sendMessage(%s) rejects', async (_name, input) => {
    const pending = client.sendMessage(input);
    expect(pending).toBeInstanceOf(Promise);
    const error = await failure(pending);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false, isRetryable: false });
    expect(server.requests).toEqual([]);
  });

  it.each(empty)('toMessage(%s) throws', (_name, input) => {
    expect(() => toMessage(input, () => 'm1')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it("streamMessage('') and start('') refuse it too", async () => {
    expect(() => client.streamMessage('')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect((await failure(client.start(''))).code).toBe('INVALID_ARGUMENT');
    expect(server.requests).toEqual([]);
  });
});

describe('anything with content is sent as given', () => {
  it.each([
    ["' ' (whitespace is content)", ' ', [{ kind: 'text', text: ' ' }]],
    ['an empty text part beside a file', { parts: [{ kind: 'text', text: '' }, { kind: 'file', uri: 'https://x.example/f.txt' }] }, [
      { kind: 'text', text: '' },
      { kind: 'file', uri: 'https://x.example/f.txt' },
    ]],
    ['a data part', { parts: [{ kind: 'data', data: { a: 1 } }] }, [{ kind: 'data', data: { a: 1 } }]],
  ] as [string, MessageInput, unknown[]][])('%s', async (_name, input, parts) => {
    expect(toMessage(input, () => 'm1').parts).toEqual(parts);
    await client.sendMessage(input);
    expect(server.requests).toHaveLength(1);
  });
});
