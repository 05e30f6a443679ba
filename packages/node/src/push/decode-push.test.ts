import { describe, expect, it } from 'vitest';
import { decodePush, foreignMessage, type DecodedPush } from './decode-push.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('decodePush', () => {
  it.each([
    ['not JSON', '{"statusUpdate": '],
    ['not UTF-8', '\u0000'],
    ['not an A2A event', '{"hello":"world"}'],
    ['an event naming no task', JSON.stringify({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } })],
  ])('%s → 400', (_, text) => {
    const raw = text === '\u0000' ? new Uint8Array([0x7b, 0xff, 0x7d]) : bytes(text);
    expect(decodePush(raw)).toMatchObject({ kind: 'refused', status: 400 });
  });

  it('decodes a v1.0 StreamResponse and a v0.3 Task, with the task each names', () => {
    const v1 = decodePush(bytes(JSON.stringify({ statusUpdate: { taskId: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } } }))) as DecodedPush;
    expect([v1.taskId, v1.event.kind]).toEqual(['t1', 'status-update']);
    const v03 = decodePush(bytes(JSON.stringify({ kind: 'task', id: 't2', contextId: 'c', status: { state: 'completed' }, history: [], artifacts: [] }))) as DecodedPush;
    expect([v03.taskId, v03.event.kind]).toEqual(['t2', 'task']);
  });

  it('foreignMessage: 409 for a status or history message of another task, nothing for its own', () => {
    const message = (taskId: string) => ({ kind: 'message', messageId: 'm', role: 'agent', taskId, parts: [{ kind: 'text', text: 'x' }] });
    const task = (taskId: string) => JSON.stringify({ kind: 'task', id: 'A', contextId: 'c', status: { state: 'working' }, history: [message(taskId)] });
    expect(foreignMessage(decodePush(bytes(task('B'))) as DecodedPush)).toMatchObject({ status: 409, taskId: 'A' });
    expect(foreignMessage(decodePush(bytes(task('A'))) as DecodedPush)).toBeUndefined();
    const status = JSON.stringify({ statusUpdate: { taskId: 't1', contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: { messageId: 'm', role: 'ROLE_AGENT', taskId: 't9', parts: [{ text: 'x' }] } } } });
    expect(foreignMessage(decodePush(bytes(status)) as DecodedPush)).toMatchObject({ status: 409 });
  });
});
