import { describe, expect, it } from 'vitest';
import { statusAgentError } from './status-error.js';

describe('statusAgentError: a google.rpc.Status without ErrorInfo (issue 33)', () => {
  it('reads the status name, else the HTTP code, as the A2A code it stands for; anything else is -32603', () => {
    const of = (error: unknown) => statusAgentError({ error })?.a2aCode;
    expect(of({ code: 404, status: 'NOT_FOUND', message: 'gone', details: [] })).toBe(-32001);
    expect(of({ code: 400, status: 'INVALID_ARGUMENT' })).toBe(-32602);
    expect(of({ code: 400, status: 'FAILED_PRECONDITION' })).toBe(-32004);
    expect(of({ status: 'UNIMPLEMENTED' })).toBe(-32004);
    expect(of({ code: 501 })).toBe(-32004);
    expect(of({ code: 404 })).toBe(-32001);
    expect(of({ code: 500, status: 'INTERNAL' })).toBe(-32603);
    expect(of({ code: 503, status: 'UNAVAILABLE' })).toBe(-32603);
    expect(statusAgentError({ error: { code: 404, status: 'NOT_FOUND', message: 'gone' } })).toEqual({ a2aCode: -32001, message: 'gone' });
    expect(statusAgentError({ error: { status: 'NOT_FOUND' } })?.message).toBe('NOT_FOUND');
    expect(statusAgentError({ error: {} })).toEqual({ a2aCode: -32603, message: 'error' });
  });

  it('no error object: undefined (a malformed event)', () => {
    for (const body of [undefined, 'x', {}, { error: 'boom' }, { error: null }, { status: 'NOT_FOUND' }]) expect(statusAgentError(body)).toBeUndefined();
  });
});
