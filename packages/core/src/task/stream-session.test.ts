import { describe, expect, it } from 'vitest';
import type { EventFeed } from '../transport/event-feed.js';
import type { Scheduler } from '../util/scheduler.js';
import type { EngineClient } from './follow-context.js';
import { RESILIENCE_DEFAULTS } from './resilience.js';
import { RetryBudget } from './retry-budget.js';
import { StreamSession, type SessionHost } from './stream-session.js';
import { RequestLimiter } from './request-limiter.js';
import { StreamSlots } from './stream-slots.js';

/** Timers that never fire: these tests are about what happens around one opening, not about time. */
const still: Scheduler = { now: () => 0, setTimeout: () => 0, clearTimeout: () => undefined };

/** A session host whose client opens subscriptions with `open`. */
function hostWith(open: EngineClient['openSubscription'], slots = new StreamSlots(1)): SessionHost {
  const client = { agent: { url: 'http://agent.test', streaming: true, listTasks: false, subscribeSnapshot: true, push: false }, openSubscription: open } as unknown as EngineClient;
  return {
    client,
    scheduler: still,
    resilience: { ...RESILIENCE_DEFAULTS },
    streamSlots: slots,
    budget: new RetryBudget({ ...RESILIENCE_DEFAULTS }, still, () => 0.5),
    asker: () => ({ client, limiter: new RequestLimiter(100, 1_000, still), taskId: 't1' }),
    view: { state: 'working', isBehind: () => false },
    healthy: () => undefined,
    caughtUp: () => undefined,
  };
}

describe('StreamSession.subscribe', () => {
  it('a subscription that opens as its step is interrupted is closed at once: its slot is free again', async () => {
    // A reply (or detach) interrupts the step in the moment the subscription's headers arrive: the
    // opening resolves with a feed although the step was stopped. Nothing may keep that stream open.
    const slots = new StreamSlots(1);
    const step = new AbortController();
    let closed = 0;
    const feed = { close: () => closed++ } as unknown as EventFeed;
    const host = hostWith(async () => {
      await Promise.resolve();
      step.abort();
      return feed;
    }, slots);
    const opened = await StreamSession.subscribe(host, 't1', undefined, step.signal);
    expect(opened).toEqual({ type: 'stopped' });
    expect(closed).toBe(1);
    expect(slots.inUse).toBe(0);
  });

  it('a subscription that opens while its step goes on becomes the session, holding its slot', async () => {
    const slots = new StreamSlots(1);
    const feed = { close: () => undefined } as unknown as EventFeed;
    const opened = await StreamSession.subscribe(hostWith(() => Promise.resolve(feed), slots), 't1', undefined, new AbortController().signal);
    expect(opened).toBeInstanceOf(StreamSession);
    expect(slots.inUse).toBe(1);
    (opened as StreamSession).close();
    expect(slots.inUse).toBe(0);
  });
});
