import type { StreamEvent } from '@a2a-tether/core';
import { describe, expect, it } from 'vitest';
import { admitPush, type AdmitState, type AdmittedPush } from './admit-push.js';
import { ReplayCache } from './replay-cache.js';
import { TaskMailboxes } from './task-mailboxes.js';

const NOW = 1_900_000_000_000;
const status = (state: 'working' | 'completed', timestamp?: string): StreamEvent =>
  ({ kind: 'status-update', taskId: 't1', contextId: 'c', status: { state, ...(timestamp === undefined ? {} : { timestamp }) }, final: false }) as StreamEvent;

function setup(maxPendingPerTask = 2, replayCacheSize = 10): AdmitState {
  const mailboxes = new TaskMailboxes(16, 300_000, (error) => {
    throw error;
  });
  mailboxes.expect('t1', undefined);
  return { mailboxes, replays: new ReplayCache(replayCacheSize), maxPendingPerTask, replayCacheSize, retryAfterSec: 1 };
}

const push = (digest: string, extra: Partial<AdmittedPush> = {}): AdmittedPush => ({ taskId: 't1', event: status('working'), bodyDigest: digest, sender: 'token', replay: undefined, ...extra });

describe('admitPush', () => {
  it('queues (202), a repeat body is 200, an older state is 200 stale', () => {
    const state = setup(10);
    expect(admitPush(state, push('a'), NOW)).toMatchObject({ status: 202, outcome: 'accepted' });
    expect(admitPush(state, push('a'), NOW)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(admitPush(state, push('b', { event: status('completed') }), NOW)).toMatchObject({ status: 202 });
    expect(admitPush(state, push('c'), NOW)).toMatchObject({ status: 200, outcome: 'stale' });
  });

  it("429 once a sender has maxPendingPerTask pushes waiting; another sender's room is its own", () => {
    const state = setup(2);
    expect(admitPush(state, push('a'), NOW).status).toBe(202);
    expect(admitPush(state, push('b'), NOW).status).toBe(202);
    expect(admitPush(state, push('c'), NOW)).toMatchObject({ kind: 'refused', status: 429, retryAfterSec: 1, taskId: 't1' });
    expect(admitPush(state, push('d', { sender: 'hmac' }), NOW).status).toBe(202);
  });

  it('replay ids: the same body again is 200, another body is the id reused (401 or 409), a full share is 429', () => {
    const state = setup(10, 2);
    const replay = (key: string, reuse: 401 | 409 = 401) => ({ key, expiresAtMs: NOW + 1000, reuse });
    expect(admitPush(state, push('a', { replay: replay('jwt::1') }), NOW).status).toBe(202);
    expect(admitPush(state, push('x', { replay: replay('jwt::1') }), NOW)).toMatchObject({ status: 401 });
    expect(admitPush(state, push('y', { replay: replay('hmac:1', 409) }), NOW).status).toBe(202);
    expect(admitPush(state, push('z', { replay: replay('hmac:1', 409) }), NOW)).toMatchObject({ status: 409 });
    expect(admitPush(state, push('w', { replay: replay('jwt::3') }), NOW)).toMatchObject({ status: 429, retryAfterSec: 1 });
    expect(state.replays.size).toBe(2);
  });
});
