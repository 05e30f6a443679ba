import { describe, expect, it, vi } from 'vitest';
import {
  A2AError,
  createA2AError,
  InternalError,
  TaskNotCancelableError,
  TaskNotFoundError,
  VersionNotSupportedError,
} from './a2a-errors.js';
import { parseAgentError } from './error-body.js';
import { TetherError } from './tether-error.js';

describe('TetherError', () => {
  it('names operation, method, URL and status in the message', () => {
    const error = new TetherError('HTTP_STATUS', 'Bad Gateway: nginx', {
      operation: 'GetTask',
      method: 'GET',
      url: 'https://a/tasks/1',
      status: 502,
    });
    expect(error.message).toBe('GetTask GET https://a/tasks/1 → HTTP 502: Bad Gateway: nginx');
    expect(error.isRetryable).toBe(true);
    expect(error.name).toBe('TetherError');
  });

  it('classifies retryability by code and status', () => {
    expect(new TetherError('HTTP_STATUS', 'x', { status: 429 }).isRetryable).toBe(true);
    expect(new TetherError('HTTP_STATUS', 'x', { status: 404 }).isRetryable).toBe(false);
    expect(new TetherError('HTTP_STATUS', 'x', { status: 400 }).isRetryable).toBe(false);
    expect(new TetherError('NETWORK', 'x').isRetryable).toBe(true);
    expect(new TetherError('CARD_INVALID', 'x').isRetryable).toBe(false);
    expect(createA2AError(-32603, 'boom').isRetryable).toBe(false);
  });

  it('maps every A2A code to its own class, and unknown codes to A2AError', () => {
    const codes = [-32700, -32600, -32601, -32602, -32603, -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009];
    const names = codes.map((c) => createA2AError(c, 'm').name);
    expect(new Set(names).size).toBe(codes.length);
    expect(createA2AError(-32001, 'gone')).toBeInstanceOf(TaskNotFoundError);
    expect(createA2AError(-32001, 'gone')).toBeInstanceOf(A2AError);
    expect(createA2AError(-32001, 'gone')).toBeInstanceOf(TetherError);
    expect(createA2AError(-32001, 'gone')).not.toBeInstanceOf(TaskNotCancelableError);
    const unknown = createA2AError(-32050, 'custom');
    expect(unknown.constructor).toBe(A2AError);
    expect(unknown.a2aCode).toBe(-32050);
    expect(createA2AError(-32009, 'v', { inStream: true }).message).toBe('VersionNotSupportedError -32009 (in stream): v');
  });

  it('keeps instanceof working across two copies of the package', async () => {
    vi.resetModules();
    // A query string makes the module loader create a second, independent copy.
    const copy = (await import('./a2a-errors.js?copy' as string)) as { TaskNotFoundError: typeof TaskNotFoundError };
    const copyTether = (await import('./tether-error.js?copy' as string)) as { TetherError: typeof TetherError };
    const foreign = new copy.TaskNotFoundError(-32001, 'other copy');
    expect(copy.TaskNotFoundError).not.toBe(TaskNotFoundError);
    expect(foreign).toBeInstanceOf(TaskNotFoundError);
    expect(foreign).toBeInstanceOf(A2AError);
    expect(foreign).toBeInstanceOf(TetherError);
    expect(foreign).not.toBeInstanceOf(InternalError);
    expect(new TaskNotFoundError(-32001, 'x')).toBeInstanceOf(copyTether.TetherError);
    expect({ message: 'x' }).not.toBeInstanceOf(TetherError);
    expect(new Error('x')).not.toBeInstanceOf(TetherError);
  });
});

describe('parseAgentError', () => {
  it('reads a JSON-RPC error envelope', () => {
    expect(parseAgentError({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'Task not found', data: { taskId: 'x' } } })).toEqual({
      a2aCode: -32001,
      message: 'Task not found',
      data: { taskId: 'x' },
    });
  });

  it('reads google.rpc.Status with ErrorInfo (the reason decides, statuses are shared)', () => {
    const body = {
      error: {
        code: 400,
        status: 'FAILED_PRECONDITION',
        message: 'not cancelable',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_CANCELABLE', domain: 'a2a-protocol.org' }],
      },
    };
    expect(parseAgentError(body)).toMatchObject({ a2aCode: -32002, reason: 'TASK_NOT_CANCELABLE', message: 'not cancelable' });
  });

  it('reads v0.3 REST `{code, message}` and problem+json', () => {
    expect(parseAgentError({ code: -32004, message: 'nope' })).toMatchObject({ a2aCode: -32004 });
    expect(parseAgentError({ type: 'https://a2a-protocol.org/errors/task-not-found', title: 'Task not found', status: 404 })).toMatchObject({
      a2aCode: -32001,
      message: 'Task not found',
    });
    expect(parseAgentError({ type: 'about:blank', title: 'Oops', status: 500 })).toBeUndefined();
  });

  it('does not invent A2A errors from plain HTTP bodies', () => {
    expect(parseAgentError({ error: { code: 404, status: 'NOT_FOUND', message: 'no route' } })).toBeUndefined();
    expect(parseAgentError({ error: 'Failed to retrieve agent card' })).toBeUndefined();
    expect(parseAgentError('<html>')).toBeUndefined();
    expect(parseAgentError(null)).toBeUndefined();
  });

  it('yields the VersionNotSupported class for -32009', () => {
    const parsed = parseAgentError({ error: { code: -32009, message: 'A2A-Version missing' } });
    expect(parsed && createA2AError(parsed.a2aCode, parsed.message)).toBeInstanceOf(VersionNotSupportedError);
  });
});

describe('hostile error bodies and huge values (issue 10)', () => {
  it('keeps a message bounded, saying how long it was, whatever the detail quotes', () => {
    const error = new TetherError('INVALID_RESPONSE', `bad: ${'x'.repeat(6_300_000)}`, { operation: 'GetTask', method: 'GET', url: 'https://a/t' });
    expect(error.message.length).toBeLessThan(4_200);
    expect(error.message.startsWith('GetTask GET https://a/t: bad: xxx')).toBe(true);
    expect(error.message).toMatch(/… \(6300030 characters\)$/);
    expect(new TetherError('INVALID_RESPONSE', 'short').message).toBe('short');
  });

  it('does not cut a message inside a surrogate pair', () => {
    const message = new TetherError('INVALID_RESPONSE', `a${'😀'.repeat(5_000)}`).message;
    expect(message).toMatch(/^a(😀)+… \(10001 characters\)$/u);
  });

  it('bounds an agent’s huge error message but keeps it whole in agentMessage', () => {
    const error = createA2AError(-32603, 'y'.repeat(1_000_000), { inStream: true });
    expect(error.message.length).toBeLessThan(4_200);
    expect(error.agentMessage).toHaveLength(1_000_000);
  });

  // Regression: `String(d['@type'])` threw TypeError ("Cannot convert object to primitive value").
  it('reads details whose @type is not a string without throwing', () => {
    const body = { error: { code: 400, message: 'gone', details: [{ '@type': { toString: 1 }, reason: 'TASK_NOT_FOUND' }] } };
    expect(parseAgentError(body)).toMatchObject({ a2aCode: -32001, reason: 'TASK_NOT_FOUND' });
    const nullProto = Object.assign(Object.create(null) as object, { reason: 'TASK_NOT_FOUND' });
    expect(parseAgentError({ error: { code: 400, details: [Object.assign(Object.create(null) as object, { '@type': nullProto })] } })).toBeUndefined();
  });
});
