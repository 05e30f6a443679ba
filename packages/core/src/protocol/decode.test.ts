import { describe, expect, it } from 'vitest';
import { decodeSendResult, decodeStreamEvent, decodeStreamEventWithSchemas, decodeTask, decodePushConfig, decodePushConfigList, decodeTaskPage, decodeState } from './decode.js';
import { DecodeError } from './decode-error.js';

const v1Task = {
  id: 't1',
  contextId: 'c1',
  status: {
    state: 'TASK_STATE_WORKING',
    message: { messageId: 'm1', role: 'ROLE_AGENT', parts: [{ text: 'step 1' }] },
    timestamp: '2026-01-01T00:00:00.000Z',
  },
  artifacts: [
    {
      artifactId: 'a1',
      name: 'result',
      parts: [{ text: 'chunk-0;' }, { url: 'https://x/y.png', mediaType: 'image/png', filename: 'y.png' }, { raw: 'AAEC' }, { data: [1, 2] }],
    },
  ],
  history: [{ messageId: 'u1', role: 'ROLE_USER', parts: [{ text: 'hi' }], contextId: 'c1', taskId: 't1' }],
};

describe('decode v1.0 ProtoJSON', () => {
  it('decodes a task with every part kind into the normalized model', () => {
    const task = decodeTask(v1Task, 'v1');
    expect(task).toEqual({
      kind: 'task',
      id: 't1',
      contextId: 'c1',
      status: {
        state: 'working',
        timestamp: '2026-01-01T00:00:00.000Z',
        message: { kind: 'message', messageId: 'm1', role: 'agent', parts: [{ kind: 'text', text: 'step 1' }] },
      },
      artifacts: [
        {
          artifactId: 'a1',
          name: 'result',
          parts: [
            { kind: 'text', text: 'chunk-0;' },
            { kind: 'file', uri: 'https://x/y.png', mediaType: 'image/png', filename: 'y.png' },
            { kind: 'file', bytes: 'AAEC' },
            { kind: 'data', data: [1, 2] },
          ],
        },
      ],
      history: [
        { kind: 'message', messageId: 'u1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], contextId: 'c1', taskId: 't1' },
      ],
    });
  });

  it('fills in what ProtoJSON omits (append, lastChunk, artifacts, history)', () => {
    const event = decodeStreamEvent(
      { artifactUpdate: { taskId: 't', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } } },
      'v1',
    );
    expect(event).toMatchObject({ kind: 'artifact-update', append: false, lastChunk: false });
    expect(decodeTask({ id: 't', status: { state: 'TASK_STATE_SUBMITTED' } }, 'v1')).toMatchObject({
      contextId: '',
      artifacts: [],
      history: [],
    });
  });

  it('unwraps each StreamResponse member', () => {
    expect(decodeStreamEvent({ task: v1Task }, 'v1').kind).toBe('task');
    expect(decodeStreamEvent({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } }, 'v1').kind).toBe('message');
    const status = decodeStreamEvent({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } }, 'v1');
    expect(status).toEqual({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'completed' } });
  });

  it('is independent of key order and ignores unknown fields', () => {
    const reordered = JSON.parse(
      '{"history":[],"future":{"x":1},"status":{"timestamp":"t","state":"TASK_STATE_FAILED","extra":true},"contextId":"c","id":"t"}',
    );
    expect(decodeTask(reordered, 'v1')).toEqual({
      kind: 'task',
      id: 't',
      contextId: 'c',
      status: { state: 'failed', timestamp: 't' },
      artifacts: [],
      history: [],
    });
  });

  it('accepts enum numbers and treats unknown states as unknown, not as a failure', () => {
    expect(decodeState(6)).toBe('input-required');
    expect(decodeState(8)).toBe('auth-required');
    expect(decodeState('TASK_STATE_SOMETHING_NEW')).toBe('unknown');
    expect(decodeState(42)).toBe('unknown');
    expect(decodeTask({ id: 't', status: { state: 5 } }, 'v1').status.state).toBe('canceled');
  });

  it('a state named after a prototype member is refused with its path; every real spelling still decodes (issue 16)', () => {
    const probe = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'constructor' } } };
    expect(() => decodeStreamEvent(probe, 'v1')).toThrow(/^statusUpdate\.status\.state: state "constructor" names a prototype member$/);
    const spellings: Record<string, string> = {
      TASK_STATE_WORKING: 'working',
      TASK_STATE_INPUT_REQUIRED: 'input-required',
      TASK_STATE_CANCELLED: 'canceled',
      'input-required': 'input-required',
      'auth-required': 'auth-required',
      cancelled: 'canceled',
      TASK_STATE_SOMETHING_NEW: 'unknown',
    };
    for (const [wire, state] of Object.entries(spellings)) {
      for (const dialect of ['v1', 'v03'] as const) {
        for (const decode of [decodeStreamEvent, decodeStreamEventWithSchemas]) {
          const event = decode({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: wire } } }, dialect);
          expect(event.kind === 'status-update' && event.status.state, `${wire} ${dialect}`).toBe(state);
        }
      }
    }
  });

  it('treats empty strings written by ProtoJSON encoders as absent', () => {
    const message = decodeStreamEvent(
      { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'x', filename: '', mediaType: '' }], contextId: '', taskId: '' } },
      'v1',
    );
    expect(message).toEqual({ kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'text', text: 'x' }] });
  });

  it('decodes a send result wrapper', () => {
    expect(decodeSendResult({ task: v1Task }, 'v1').kind).toBe('task');
    expect(decodeSendResult({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hey' }] } }, 'v1')).toMatchObject({
      kind: 'message',
      parts: [{ kind: 'text', text: 'hey' }],
    });
  });
});

describe('decode v0.3 JSON-RPC (kind discriminators)', () => {
  it('decodes bare kinds, kebab states and file/data parts', () => {
    const task = decodeSendResult(
      {
        kind: 'task',
        id: 't',
        contextId: 'c',
        status: { state: 'input-required', message: { kind: 'message', messageId: 'm', role: 'agent', parts: [{ kind: 'text', text: 'need input' }] } },
        artifacts: [
          {
            artifactId: 'a',
            parts: [
              { kind: 'file', file: { uri: 'https://x/f.pdf', mimeType: 'application/pdf', name: 'f.pdf' } },
              { kind: 'file', file: { bytes: 'AAA=' } },
              { kind: 'data', data: { k: 1 }, metadata: { m: true } },
            ],
          },
        ],
      },
      'v03',
    );
    expect(task).toMatchObject({
      kind: 'task',
      status: { state: 'input-required', message: { role: 'agent', parts: [{ kind: 'text', text: 'need input' }] } },
      artifacts: [
        {
          parts: [
            { kind: 'file', uri: 'https://x/f.pdf', mediaType: 'application/pdf', filename: 'f.pdf' },
            { kind: 'file', bytes: 'AAA=' },
            { kind: 'data', data: { k: 1 }, metadata: { m: true } },
          ],
        },
      ],
    });
  });

  it('keeps `final` on status updates', () => {
    expect(
      decodeStreamEvent({ kind: 'status-update', taskId: 't', contextId: 'c', final: true, status: { state: 'working' } }, 'v03'),
    ).toEqual({ kind: 'status-update', taskId: 't', contextId: 'c', final: true, status: { state: 'working' } });
  });

  it('decodes artifact-update chunk flags', () => {
    const event = decodeStreamEvent(
      { kind: 'artifact-update', taskId: 't', contextId: 'c', append: true, lastChunk: true, artifact: { artifactId: 'a', parts: [{ kind: 'text', text: 'x' }] } },
      'v03',
    );
    expect(event).toMatchObject({ kind: 'artifact-update', append: true, lastChunk: true });
  });
});

describe('decode v0.3 HTTP+JSON (v0.3 proto JSON)', () => {
  it('reads content, ROLE_*, TASK_STATE_CANCELLED, fileWithUri and the double-wrapped data', () => {
    const event = decodeStreamEvent(
      {
        msg: {
          messageId: 'm',
          role: 'ROLE_AGENT',
          content: [{ text: 'hi' }, { file: { fileWithUri: 'https://x/a', mimeType: 'text/plain' } }, { data: { data: { k: 2 } } }],
        },
      },
      'v03-proto',
    );
    expect(event).toEqual({
      kind: 'message',
      messageId: 'm',
      role: 'agent',
      parts: [
        { kind: 'text', text: 'hi' },
        { kind: 'file', uri: 'https://x/a', mediaType: 'text/plain' },
        { kind: 'data', data: { k: 2 } },
      ],
    });
    const task = decodeTask({ id: 't', contextId: 'c', status: { state: 'TASK_STATE_CANCELLED', update: { messageId: 'x', role: 'ROLE_AGENT', content: [{ text: 'bye' }] } } }, 'v03-proto');
    expect(task.status).toEqual({
      state: 'canceled',
      message: { kind: 'message', messageId: 'x', role: 'agent', parts: [{ kind: 'text', text: 'bye' }] },
    });
  });
});

describe('decode errors', () => {
  it('names the path of the first problem', () => {
    expect(() => decodeTask({ id: 't', status: { state: 'TASK_STATE_WORKING', message: { messageId: 3, role: 'ROLE_AGENT' } } }, 'v1')).toThrow(
      /task\.status\.message\.messageId: expected string/,
    );
    expect(() => decodeStreamEvent({ task: { id: 't' } }, 'v1')).toThrow(DecodeError);
  });

  it('rejects ambiguous wrappers, unknown kinds, unknown roles and non-objects', () => {
    expect(() => decodeStreamEvent({ task: v1Task, message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }, 'v1')).toThrow(/more than one/);
    expect(() => decodeStreamEvent({ kind: 'weird' }, 'v03')).toThrow(/unknown kind/);
    expect(() => decodeStreamEvent({ message: { messageId: 'm', role: 'ROLE_ROBOT', parts: [] } }, 'v1')).toThrow(/unknown role/);
    expect(() => decodeStreamEvent('hello', 'v1')).toThrow(/expected an object/);
    expect(() => decodeStreamEvent({ foo: 1 }, 'v1')).toThrow(/not a stream response \(keys: foo\)/);
    expect(() => decodeSendResult({ statusUpdate: { taskId: 't', status: { state: 2 } } }, 'v1')).toThrow(/must answer a task or a message/);
  });

  it('rejects parts it cannot read instead of dropping them', () => {
    expect(() => decodeTask({ id: 't', status: { state: 1 }, artifacts: [{ artifactId: 'a', parts: [{ mystery: 1 }] }] }, 'v1')).toThrow(
      /artifacts\[0\]\.parts\[0\]: unknown part/,
    );
  });
});

describe('push configs and task pages', () => {
  it('decodes every dialect of a push config', () => {
    expect(decodePushConfig({ taskId: 't', id: 'p', url: 'https://h/w', token: 'tok', authentication: { scheme: 'Bearer', credentials: 'x' } })).toEqual({
      taskId: 't',
      id: 'p',
      url: 'https://h/w',
      token: 'tok',
      authentication: { schemes: ['Bearer'], credentials: 'x' },
    });
    expect(decodePushConfig({ taskId: 't', pushNotificationConfig: { id: 'p', url: 'https://h/w', authentication: { schemes: ['Basic'] } } })).toEqual({
      taskId: 't',
      id: 'p',
      url: 'https://h/w',
      authentication: { schemes: ['Basic'] },
    });
    expect(decodePushConfig({ name: 'tasks/t9/pushNotificationConfigs/p9', pushNotificationConfig: { url: 'https://h/w' } })).toEqual({
      taskId: 't9',
      id: 'p9',
      url: 'https://h/w',
    });
  });

  it('decodes push-config lists, bare (v0.3) or wrapped (v1)', () => {
    expect(decodePushConfigList([{ taskId: 't', pushNotificationConfig: { url: 'u' } }], 't')).toHaveLength(1);
    expect(decodePushConfigList({ configs: [{ url: 'u' }, { url: 'v' }], nextPageToken: '' }, 't').map((c) => c.taskId)).toEqual(['t', 't']);
    expect(decodePushConfigList({}, 't')).toEqual([]);
  });

  it('defaults the omitted page fields', () => {
    expect(decodeTaskPage({ tasks: [{ id: 't', status: { state: 'TASK_STATE_COMPLETED' } }] })).toMatchObject({
      nextPageToken: '',
      pageSize: 1,
      totalSize: 0,
    });
  });
});
