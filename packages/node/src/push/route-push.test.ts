import { describe, expect, it } from 'vitest';
import { ACCEPTED, DUPLICATE, refusal, type Verdict } from './push-answer.js';
import { PushRegistry } from './push-registry.js';
import type { PushRelay, RelayedPush, TokenEntry } from './push-relay.js';
import { findToken, routePush, type Router } from './route-push.js';

const SHA = 'ab'.repeat(32);
const push = (extra: Partial<RelayedPush> = {}): RelayedPush => ({ tokenSha256: undefined, taskId: 't1', receiverToken: true, jwt: undefined, hmac: undefined, body: '{}', ...extra });

/** A relay whose other replicas answer from `verdicts` (by inbox; `undefined`: nobody answers). */
function fakeRelay(tokens: Record<string, TokenEntry>, tasks: Record<string, string[]>, verdicts: Record<string, Verdict | undefined>, failing = false): PushRelay & { handed: string[] } {
  const handed: string[] = [];
  const fail = (): Promise<never> => Promise.reject(new Error('connection refused'));
  return {
    inbox: 'me',
    handed,
    register: () => Promise.resolve(),
    unregister: () => Promise.resolve(),
    findToken: (sha) => (failing ? fail() : Promise.resolve(tokens[sha])),
    findTask: (taskId) => (failing ? fail() : Promise.resolve(tasks[taskId] ?? [])),
    handOver: (inbox) => {
      handed.push(inbox);
      return Promise.resolve(verdicts[inbox]);
    },
    serve: () => undefined,
    close: () => Promise.resolve(),
  };
}

function router(relay: PushRelay | undefined, here: Verdict = ACCEPTED): Router & { registry: PushRegistry; admitted: RelayedPush[] } {
  const registry = new PushRegistry({ bodiesPerTask: 4, windowMs: 60_000, maxEarlyPushes: 4, maxEarlyBytes: 1024, onListenerError: () => undefined });
  const admitted: RelayedPush[] = [];
  return { registry, relay, retryAfterSec: 1, admitted, admitHere: (p) => (admitted.push(p), here), handedOver: () => undefined };
}

describe('findToken', () => {
  it('here, gone here, there, gone there, nowhere; an unreachable relay is 503', async () => {
    const local = router(fakeRelay({ [SHA]: { inbox: 'other', taskId: 't1' }, ['cd'.repeat(32)]: { gone: true, taskId: 't2' } }, {}, {}));
    const registration = local.registry.add(SHA, undefined);
    expect(await findToken(local, SHA, 0)).toEqual({ here: registration });
    local.registry.forget(registration, 0);
    expect(await findToken(local, SHA, 0)).toEqual({ gone: { gone: true, taskId: undefined } });
    expect(await findToken(local, SHA, 61_000)).toEqual({ there: { inbox: 'other', taskId: 't1' } }); // the local memory of it lapsed
    expect(await findToken(local, 'cd'.repeat(32), 0)).toEqual({ gone: { gone: true, taskId: 't2' } });
    expect(await findToken(local, 'ef'.repeat(32), 0)).toBeUndefined();
    expect(await findToken(router(undefined), SHA, 0)).toBeUndefined();
    expect(await findToken(router(fakeRelay({}, {}, {}, true)), SHA, 0)).toMatchObject({ kind: 'refused', status: 503, retryAfterSec: 1 });
  });

  it('an entry naming this replica that it no longer holds is gone', async () => {
    expect(await findToken(router(fakeRelay({ [SHA]: { inbox: 'me', taskId: 't1' } }, {}, {})), SHA, 0)).toEqual({ gone: { gone: true, taskId: 't1' } });
  });
});

describe('routePush', () => {
  it("a token's registration decides: here, or the replica holding it; no answer is 503", async () => {
    const relay = fakeRelay({}, {}, { other: DUPLICATE });
    const local = router(relay);
    const registration = local.registry.add(SHA, 't1');
    expect(await routePush(local, push({ tokenSha256: SHA }), { here: registration })).toBe(ACCEPTED);
    expect(await routePush(local, push({ tokenSha256: SHA }), { there: { inbox: 'other', taskId: 't1' } })).toBe(DUPLICATE);
    expect(await routePush(local, push({ tokenSha256: SHA }), { there: { inbox: 'dead', taskId: 't1' } })).toMatchObject({ status: 503, retryAfterSec: 1 });
    expect(relay.handed).toEqual(['other', 'dead']);
  });

  it('registrations without a token: every replica holding one for the task decides; accepted when any accepted; none is 404', async () => {
    const relay = fakeRelay({}, { t1: ['me', 'a', 'b'], t2: ['a'] }, { a: refusal(429, 'busy', { taskId: 't1' }), b: ACCEPTED });
    const local = router(relay, DUPLICATE);
    local.registry.add(undefined, 't1');
    expect(await routePush(local, push())).toBe(ACCEPTED);
    expect([local.admitted.length, relay.handed]).toEqual([1, ['a', 'b']]); // itself once, here
    expect(await routePush(local, push({ taskId: 't2' }))).toMatchObject({ status: 429 });
    expect(await routePush(local, push({ taskId: 't3' }))).toMatchObject({ status: 404, taskId: 't3' });
  });

  it('an unreachable relay: the registration here still decides; without one, 503', async () => {
    const local = router(fakeRelay({}, {}, {}, true));
    local.registry.add(undefined, 't1');
    expect(await routePush(local, push())).toBe(ACCEPTED);
    expect(await routePush(local, push({ taskId: 't2' }))).toMatchObject({ status: 503 });
  });
});
