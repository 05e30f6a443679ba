import { describe, expect, it } from 'vitest';
import type { Message } from '../model/types.js';
import { TetherError } from '../errors/tether-error.js';
import { decodeMessage } from './decode.js';
import type { Dialect } from './dialect.js';
import { encodeMessage, encodePushConfig, encodeSendParams } from './encode.js';

const message: Message = {
  kind: 'message',
  messageId: 'm1',
  role: 'user',
  contextId: 'c1',
  taskId: 't1',
  parts: [
    { kind: 'text', text: 'hello' },
    { kind: 'file', uri: 'https://x/f.pdf', mediaType: 'application/pdf', filename: 'f.pdf' },
    { kind: 'file', bytes: 'AAEC', mediaType: 'image/png' },
    { kind: 'data', data: { k: [1, 2] } },
  ],
};

describe('encodeMessage', () => {
  it('writes v1.0 ProtoJSON', () => {
    expect(encodeMessage(message, 'v1')).toEqual({
      messageId: 'm1',
      role: 'ROLE_USER',
      contextId: 'c1',
      taskId: 't1',
      parts: [
        { text: 'hello' },
        { url: 'https://x/f.pdf', mediaType: 'application/pdf', filename: 'f.pdf' },
        { raw: 'AAEC', mediaType: 'image/png' },
        { data: { k: [1, 2] } },
      ],
    });
  });

  it('writes v0.3 JSON-RPC shapes with kind discriminators', () => {
    expect(encodeMessage(message, 'v03')).toEqual({
      kind: 'message',
      messageId: 'm1',
      role: 'user',
      contextId: 'c1',
      taskId: 't1',
      parts: [
        { kind: 'text', text: 'hello' },
        { kind: 'file', file: { uri: 'https://x/f.pdf', mimeType: 'application/pdf', name: 'f.pdf' } },
        { kind: 'file', file: { bytes: 'AAEC', mimeType: 'image/png' } },
        { kind: 'data', data: { k: [1, 2] } },
      ],
    });
  });

  it('writes v0.3 proto JSON (content, fileWithUri, data wrapped twice)', () => {
    expect(encodeMessage(message, 'v03-proto')).toEqual({
      messageId: 'm1',
      role: 'ROLE_USER',
      contextId: 'c1',
      taskId: 't1',
      content: [
        { text: 'hello' },
        { file: { fileWithUri: 'https://x/f.pdf', mimeType: 'application/pdf' } },
        { file: { fileWithBytes: 'AAEC', mimeType: 'image/png' } },
        { data: { data: { k: [1, 2] } } },
      ],
    });
  });

  it.each<Dialect>(['v1', 'v03', 'v03-proto'])('round-trips through the decoder in %s', (dialect) => {
    const back = decodeMessage(encodeMessage(message, dialect), dialect);
    const expected = dialect === 'v03-proto'
      ? { ...message, parts: message.parts.map((p) => (p.kind === 'file' ? { ...p, filename: undefined } : p)) }
      : message;
    expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('refuses non-object data for v0.3 instead of reshaping it', () => {
    const bad: Message = { ...message, parts: [{ kind: 'data', data: [1, 2] }] };
    expect(() => encodeMessage(bad, 'v03')).toThrow(TetherError);
    expect(() => encodeMessage(bad, 'v03')).toThrow(/only accept objects/);
    expect(encodeMessage(bad, 'v1')).toMatchObject({ parts: [{ data: [1, 2] }] });
  });
});

describe('encodeSendParams', () => {
  it('v1: returnImmediately is the inverse of blocking and always explicit', () => {
    expect(encodeSendParams({ message, blocking: true }, 'v1')).toMatchObject({ configuration: { returnImmediately: false } });
    expect(
      encodeSendParams(
        { message, blocking: false, historyLength: 3, acceptedOutputModes: ['text/plain'], pushNotification: { url: 'https://h/w', token: 'tok', authentication: { schemes: ['Bearer'], credentials: 'c' } } },
        'v1',
      ),
    ).toEqual({
      message: encodeMessage(message, 'v1'),
      configuration: {
        returnImmediately: true,
        historyLength: 3,
        acceptedOutputModes: ['text/plain'],
        taskPushNotificationConfig: { url: 'https://h/w', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'c' } },
      },
    });
  });

  it('v0.3: blocking is always sent; push config field names per dialect', () => {
    const jsonrpc = encodeSendParams({ message, blocking: true, pushNotification: { url: 'u' } }, 'v03');
    expect(jsonrpc['configuration']).toEqual({ blocking: true, pushNotificationConfig: { url: 'u' } });
    const proto = encodeSendParams({ message, blocking: false, pushNotification: { url: 'u' }, metadata: { a: 1 } }, 'v03-proto');
    expect(proto).toMatchObject({ configuration: { blocking: false, pushNotification: { url: 'u' } }, metadata: { a: 1 } });
  });
});

describe('encodePushConfig', () => {
  const config = { taskId: 't1', id: 'p1', url: 'https://h/w', token: 'tok' };
  it('writes the three shapes', () => {
    expect(encodePushConfig(config, 'v1')).toEqual({ taskId: 't1', id: 'p1', url: 'https://h/w', token: 'tok' });
    expect(encodePushConfig(config, 'v03')).toEqual({ taskId: 't1', pushNotificationConfig: { id: 'p1', url: 'https://h/w', token: 'tok' } });
    expect(encodePushConfig(config, 'v03-proto')).toEqual({
      parent: 'tasks/t1',
      configId: 'p1',
      config: { name: 'tasks/t1/pushNotificationConfigs/p1', pushNotificationConfig: { id: 'p1', url: 'https://h/w', token: 'tok' } },
    });
  });
});
