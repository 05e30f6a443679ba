import type { StreamEvent } from '@a2a-tether/core';
import { describe, expect, it } from 'vitest';
import type { PushNotice } from './push-notice.js';
import { PushRegistry } from './push-registry.js';

const SHA_A = 'aa'.repeat(32);
const SHA_B = 'bb'.repeat(32);
const event = (taskId: string, state = 'working'): StreamEvent => ({ kind: 'status-update', taskId, contextId: 'c', status: { state }, final: false }) as StreamEvent;
const registry = (): PushRegistry => new PushRegistry({ bodiesPerTask: 4, windowMs: 60_000, maxEarlyPushes: 4, maxEarlyBytes: 4096, onListenerError: () => undefined });
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('PushRegistry', () => {
  it('finds a registration by its token, one without a token by its task, and every one bound to a task', () => {
    const r = registry();
    const [a, b, open] = [r.add(SHA_A, '1'), r.add(SHA_B, '1'), r.add(undefined, '2')];
    expect([r.byToken(SHA_A, '1'), r.byToken(SHA_B, undefined), r.tokenless('2'), r.tokenless('1')]).toEqual([a, b, open, undefined]);
    expect(r.boundTo('1')).toEqual([a, b]);
    r.forget(a, 0);
    expect([r.byToken(SHA_A, '1'), r.boundTo('1'), r.size]).toEqual([undefined, [b], 2]);
  });

  it('a forgotten token is remembered as gone for the window (with its task), then not at all', () => {
    const r = registry();
    r.forget(r.add(SHA_A, 't-9'), 1_000);
    expect(r.gone(SHA_A, 60_999)).toEqual({ taskId: 't-9', untilMs: 61_000 });
    expect(r.gone(SHA_A, 61_000)).toBeUndefined();
    r.forget(r.add(SHA_B, 't-9'), 0);
    r.add(SHA_B, undefined); // registered again: no longer gone
    expect(r.gone(SHA_B, 0)).toBeUndefined();
  });

  it('early pushes: held until bound, then offered in order if they name the task, dropped otherwise', async () => {
    const r = registry();
    const early = r.add(SHA_A, undefined);
    const notices: PushNotice[] = [];
    r.subscribe(early, (notice) => void notices.push(notice));
    expect(r.hold(early, { taskId: 't1', event: event('t1'), sender: 's', bytes: 10 }, 'd1', 0)).toBe('held');
    expect(r.hold(early, { taskId: 't2', event: event('t2'), sender: 's', bytes: 10 }, 'd2', 0)).toBe('held');
    expect(r.hold(early, { taskId: 't1', event: event('t1', 'input-required'), sender: 's', bytes: 10 }, 'd3', 0)).toBe('held');
    expect([r.earlyPushes, r.earlyBytes, r.pendingFrom(early, 's')]).toEqual([3, 30, 3]);
    await tick();
    expect(notices).toEqual([]);
    r.bind(early, 't1', 1);
    for (let i = 0; i < 5; i++) await tick();
    expect(notices.map((n) => [n.taskId, n.pushes, n.status?.state])).toEqual([
      ['t1', 1, 'working'],
      ['t1', 1, 'input-required'],
    ]);
    expect([r.earlyPushes, r.earlyBytes, r.pendingPushes]).toEqual([0, 0, 0]);
  });
});
