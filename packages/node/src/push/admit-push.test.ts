import type { StreamEvent } from '@a2a-tether/core';
import { describe, expect, it } from 'vitest';
import { admitPush, type AdmitState, type AdmittedPush } from './admit-push.js';
import { PushRegistry, type Registration } from './push-registry.js';
import { ReplayCache } from './replay-cache.js';

const NOW = 1_900_000_000_000;
const status = (state: 'working' | 'completed', taskId = 't1'): StreamEvent => ({ kind: 'status-update', taskId, contextId: 'c', status: { state }, final: false }) as StreamEvent;

function setup(maxPendingPerTask = 2, replayCacheSize = 10, early = { maxEarlyPushes: 3, maxEarlyBytes: 1000 }): AdmitState {
  const registry = new PushRegistry({ bodiesPerTask: 16, windowMs: 300_000, ...early, onListenerError: (error) => {
    throw error;
  } });
  return { registry, replays: new ReplayCache(replayCacheSize), maxPendingPerTask, replayCacheSize, retryAfterSec: 1 };
}

const push = (digest: string, extra: Partial<AdmittedPush> = {}): AdmittedPush => ({ taskId: 't1', event: status('working'), bodyDigest: digest, bytes: 100, sender: 'token', replay: undefined, ...extra });

describe('admitPush', () => {
  it('queues (202), a repeat body is 200, an older state is 200 stale', () => {
    const state = setup(10);
    const one: Registration = state.registry.add(undefined, 't1');
    expect(admitPush(state, one, push('a'), NOW)).toMatchObject({ status: 202, outcome: 'accepted' });
    expect(admitPush(state, one, push('a'), NOW)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(admitPush(state, one, push('b', { event: status('completed') }), NOW)).toMatchObject({ status: 202 });
    expect(admitPush(state, one, push('c'), NOW)).toMatchObject({ status: 200, outcome: 'stale' });
  });

  it("429 once a sender has maxPendingPerTask pushes waiting; another sender's room is its own", () => {
    const state = setup(2);
    const one = state.registry.add(undefined, 't1');
    expect(admitPush(state, one, push('a'), NOW).status).toBe(202);
    expect(admitPush(state, one, push('b'), NOW).status).toBe(202);
    expect(admitPush(state, one, push('c'), NOW)).toMatchObject({ kind: 'refused', status: 429, retryAfterSec: 1, taskId: 't1' });
    expect(admitPush(state, one, push('d', { sender: 'hmac' }), NOW).status).toBe(202);
  });

  it('replay ids: the same body again is 200, another body is the id reused (401 or 409), a full share is 429', () => {
    const state = setup(10, 2);
    const one = state.registry.add(undefined, 't1');
    const replay = (key: string, reuse: 401 | 409 = 401) => ({ key, expiresAtMs: NOW + 1000, reuse });
    expect(admitPush(state, one, push('a', { replay: replay('jwt::1') }), NOW).status).toBe(202);
    expect(admitPush(state, one, push('x', { replay: replay('jwt::1') }), NOW)).toMatchObject({ status: 401 });
    expect(admitPush(state, one, push('y', { replay: replay('hmac:1', 409) }), NOW).status).toBe(202);
    expect(admitPush(state, one, push('z', { replay: replay('hmac:1', 409) }), NOW)).toMatchObject({ status: 409 });
    expect(admitPush(state, one, push('w', { replay: replay('jwt::3') }), NOW)).toMatchObject({ status: 429, retryAfterSec: 1 });
    expect(state.replays.size).toBe(2);
  });

  it('a registration whose task is not named yet holds its pushes (202) within its count and the bytes of all; its replay ids are spent', () => {
    const state = setup(10, 10, { maxEarlyPushes: 2, maxEarlyBytes: 250 });
    const early = state.registry.add('ab'.repeat(32), undefined);
    const other = state.registry.add('cd'.repeat(32), undefined);
    expect(admitPush(state, early, push('a', { replay: { key: 'jwt::1', expiresAtMs: NOW + 1000, reuse: 401 } }), NOW)).toMatchObject({ status: 202 });
    expect(admitPush(state, early, push('a'), NOW)).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(admitPush(state, early, push('b'), NOW)).toMatchObject({ status: 202 });
    expect(admitPush(state, early, push('c'), NOW)).toMatchObject({ status: 429, retryAfterSec: 1 }); // its count
    expect(admitPush(state, other, push('d'), NOW)).toMatchObject({ status: 503, retryAfterSec: 1 }); // 200 of 250 bytes held
    expect(admitPush(state, other, push('e', { bytes: 50 }), NOW)).toMatchObject({ status: 202 });
    expect([state.registry.earlyPushes, state.registry.earlyBytes, state.replays.size]).toEqual([3, 250, 1]);
  });
});
