import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { alignAppends } from '../src/task/coordinator.js';
import { collect, FakeTabs, streamsOpened } from './helpers/fake-tabs.js';
import {
  connect,
  MemoryTaskStore,
  type A2AClient,
  type NetworkSignals,
  type Part,
  type TaskEvent,
  type TaskHandle,
} from '../src/index.js';

// Several clients sharing a store and a coordinator (browser tabs; issue 8): one drives each task — the
// only one with a stream — and the others mirror it; when the driver goes, a mirror takes over from what
// it mirrored. `@a2a-tether/browser` implements the coordinator with Web Locks and a BroadcastChannel;
// here an in-memory one with the same semantics (asynchronous, ordered delivery; a FIFO lock per task).

const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

const text = (parts: Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

function rebuild(events: TaskEvent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of events) if (e.type === 'artifact') out[e.artifactId] = (e.append ? (out[e.artifactId] ?? '') : '') + text(e.parts);
  return out;
}

async function tabs(count: number): Promise<{ agent: TestAgent; hub: FakeTabs; store: MemoryTaskStore; tab: A2AClient[] }> {
  const agent = await startTestAgent();
  agents.push(agent);
  const hub = new FakeTabs();
  const store = new MemoryTaskStore();
  const tab: A2AClient[] = [];
  for (let i = 0; i < count; i++) {
    tab.push(await connect(agent.url, { cardCache: false, store, coordinator: hub.coordinator(i), preferredBindings: ['JSONRPC'] }));
  }
  return { agent, hub, store, tab };
}

const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('tabs: one client drives a task, the others mirror it', () => {
  it('keepArtifacts: false is refused under a coordinator (a tab that joins late is sent the kept artifacts)', async () => {
    const { agent, tab } = await tabs(1);
    const a = tab[0] as A2AClient;
    await expect(a.start('stream updates=1 chunks=2', { keepArtifacts: false })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    await expect(a.resume('any-task', { keepArtifacts: false })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(agent.requests.filter((r) => r.path !== '/.well-known/agent-card.json')).toEqual([]); // nothing was sent
  });

  it('three clients on one task: one stream at the agent; the mirrors see the same events and the same result', async () => {
    const { agent, tab, hub } = await tabs(3);
    // Messages take longer than a lock handover (as a BroadcastChannel may, beside Web Locks): when the
    // driver finishes, a mirror gets the lock before the driver's "finished" — it must not subscribe.
    hub.latency = () => 20;
    const [a, b, c] = tab as [A2AClient, A2AClient, A2AClient];
    const driver = await a.start('stream updates=2 chunks=40 delayMs=15');
    const fromA = collect(driver);
    await settle(60);
    const [mb] = await b.resumeAll();
    const [mc] = await c.resumeAll();
    expect(mb?.taskId).toBe(driver.taskId);
    expect(mc?.taskId).toBe(driver.taskId);
    const fromB = collect(mb as TaskHandle);
    const fromC = collect(mc as TaskHandle);
    const [ta, tb, tc] = await Promise.all([driver.done(), mb?.done(), mc?.done()]);
    await Promise.all([fromA.ended, fromB.ended, fromC.ended]);

    const expected = Array.from({ length: 40 }, (_, i) => `chunk-${i + 1};`).join('');
    expect(text(ta.artifacts[0]?.parts ?? [])).toBe(expected);
    expect(tb).toEqual(ta);
    expect(tc).toEqual(ta);
    for (const seen of [fromA, fromB, fromC]) {
      expect(rebuild(seen.events)).toEqual({ result: expected });
      expect(seen.events.filter((e) => e.type === 'status' && e.state === 'completed')).toHaveLength(1);
    }
    // The agent saw exactly one stream: the driver's send. The mirrors opened nothing.
    expect(streamsOpened(agent)).toBe(1);
    // A mirror's events after its snapshot are the driver's, in the same order (status and artifact events).
    const tail = (events: TaskEvent[]): string[] =>
      events.filter((e) => e.type === 'artifact' || e.type === 'status').map((e) => (e.type === 'artifact' ? `a:${e.append ? '+' : '='}${text(e.parts)}` : `s:${e.state}`));
    const ofA = tail(fromA.events);
    const ofB = tail(fromB.events);
    const lastOfB = ofB.slice(-10);
    expect(ofA.slice(-10)).toEqual(lastOfB);
  });

  it('the driver goes away mid-task: a mirror takes over from what it mirrored — nothing lost, nothing twice', async () => {
    const { agent, tab } = await tabs(2);
    const [a, b] = tab as [A2AClient, A2AClient];
    const driver = await a.start('stream updates=1 chunks=40 delayMs=20');
    const fromA = collect(driver);
    const [mirror] = await b.resumeAll();
    const fromB = collect(mirror as TaskHandle);
    await settle(300);
    expect(mirror?.view.artifacts[0]?.parts.length ?? 0).toBeGreaterThan(0);
    expect(streamsOpened(agent)).toBe(1); // while the driver lives, only its stream
    driver.detach(); // the tab closes: its claim is released
    const final = await (mirror as TaskHandle).done();
    await fromB.ended;
    await fromA.ended;
    const expected = Array.from({ length: 40 }, (_, i) => `chunk-${i + 1};`).join('');
    expect(text(final.artifacts[0]?.parts ?? [])).toBe(expected);
    // Rebuilt from the mirror's events alone: complete, and no chunk twice (a replace would restart it).
    expect(rebuild(fromB.events)).toEqual({ result: expected });
    const replaces = fromB.events.filter((e) => e.type === 'artifact' && !e.append);
    expect(replaces.length).toBeLessThanOrEqual(1); // at most the first snapshot's
    // Two streams in all: the driver's send, then the new driver's subscription.
    expect(streamsOpened(agent)).toBe(2);
  });

  it("a mirror's reply is sent by the driver: one send reaches the agent, both see the task complete", async () => {
    const { agent, tab } = await tabs(2);
    const [a, b] = tab as [A2AClient, A2AClient];
    const driver = await a.start('input');
    const [mirror] = await b.resumeAll();
    for (let i = 0; i < 100 && mirror?.view.state !== 'input-required'; i++) await settle(20);
    expect(mirror?.view.state).toBe('input-required');
    const sendsBefore = agent.requests.filter((r) => /SendMessage|SendStreamingMessage|message\/s/.test(String((r.body as { method?: string })?.method))).length;
    await mirror?.reply('yes');
    const [ta, tb] = await Promise.all([driver.done(), mirror?.done()]);
    expect(ta.status.state).toBe('completed');
    expect(tb).toEqual(ta);
    const sends = agent.requests.filter((r) => /SendMessage|SendStreamingMessage|message\/s/.test(String((r.body as { method?: string })?.method))).length;
    expect(sends - sendsBefore).toBe(1);
  });

  it("the driver's cancel ends the mirrors with the same final task", async () => {
    const { tab } = await tabs(2);
    const [a, b] = tab as [A2AClient, A2AClient];
    const driver = await a.start('slow steps=200 delayMs=20');
    const [mirror] = await b.resumeAll();
    for (let i = 0; i < 100 && mirror?.view.state !== 'working'; i++) await settle(20);
    const outcome = await driver.cancel({ waitMs: 3_000 });
    expect(outcome.confirmed).toBe(true);
    await expect(driver.done()).resolves.toMatchObject({ status: { state: 'canceled' } });
    await expect(mirror?.done()).resolves.toMatchObject({ status: { state: 'canceled' } });
  });
});

describe('tabs: the driver ends the follow', () => {
  it('an error in the stream ends every client the same way, even when the lock changes hands before the message arrives', async () => {
    const { agent, tab, hub } = await tabs(2);
    hub.latency = () => 20; // slower than a lock handover
    const [a, b] = tab as [A2AClient, A2AClient];
    const driver = await a.start('stream updates=3 chunks=20 delayMs=30 misbehave=streamError');
    const [mirror] = await b.resumeAll();
    const [fromDriver, fromMirror] = await Promise.allSettled([driver.done(), (mirror as TaskHandle).done()]);
    expect(fromDriver).toMatchObject({ status: 'rejected', reason: { code: 'A2A_ERROR' } });
    expect(fromMirror).toMatchObject({ status: 'rejected', reason: { code: 'A2A_ERROR' } });
    expect((fromMirror as PromiseRejectedResult).reason.message).toBe((fromDriver as PromiseRejectedResult).reason.message);
    // The mirror opened nothing: the only stream is the driver's send.
    expect(streamsOpened(agent)).toBe(1);
  });
});

describe('tabs: a mirror acts on the task', () => {
  it('a mirror cancels: both see it canceled, each exactly once, and the mirror reports it confirmed', async () => {
    const { tab, hub } = await tabs(2);
    const [a, b] = tab as [A2AClient, A2AClient];
    const driver = await a.start('slow steps=200 delayMs=20');
    const fromA = collect(driver);
    // The driver's news arrives after the mirror's own look at the task (GetTask after its cancel).
    hub.latency = () => 150;
    hub.handOver = false;
    const [mirror] = await b.resumeAll();
    const fromB = collect(mirror as TaskHandle);
    for (let i = 0; i < 100 && mirror?.view.state !== 'working'; i++) await settle(20);
    const outcome = await (mirror as TaskHandle).cancel({ waitMs: 3_000 });
    expect(outcome).toEqual({ requested: true, confirmed: true, state: 'canceled' });
    await Promise.all([driver.done(), mirror?.done(), fromA.ended, fromB.ended]);
    for (const seen of [fromA, fromB]) {
      expect(seen.events.filter((e) => e.type === 'status' && e.state === 'canceled')).toHaveLength(1);
      const last = seen.events.findIndex((e) => e.type === 'status' && e.state === 'canceled');
      // Nothing but the link closing after the end.
      expect(seen.events.slice(last + 1).every((e) => e.type === 'connection' && e.state === 'closed')).toBe(true);
    }
  });
});

describe('network signals: no attempts while offline; a wake retries at once', () => {
  it('offline: the engine waits instead of failing attempts; online: it resumes and completes', async () => {
    const agent = await startTestAgent();
    agents.push(agent);
    let online = true;
    const wakes = new Set<() => void>();
    const network: NetworkSignals = {
      online: () => online,
      onWake: (listener) => {
        wakes.add(listener);
        return () => wakes.delete(listener);
      },
    };
    let calls = 0;
    const fetch: typeof globalThis.fetch = (input, init) => {
      calls++;
      return globalThis.fetch(input, init);
    };
    const client = await connect(agent.url, { cardCache: false, networkSignals: network, fetch, resilience: { initialDelayMs: 2_000, maxAttempts: 2 } });
    const handle = await client.start('stream updates=1 chunks=30 delayMs=20');
    const events = collect(handle);
    await settle(150);
    // The link drops while the platform says offline: no request is made, however long it lasts.
    online = false;
    await agent.stop();
    await settle(100);
    const before = calls;
    await settle(1_500);
    expect(calls).toBe(before);
    expect(handle.view.connection).not.toBe('closed');
    await agent.start();
    online = true;
    for (const wake of wakes) wake();
    const final = await handle.done();
    await events.ended;
    expect(text(final.artifacts[0]?.parts ?? [])).toBe(Array.from({ length: 30 }, (_, i) => `chunk-${i + 1};`).join(''));
    expect(rebuild(events.events)).toEqual({ result: text(final.artifacts[0]?.parts ?? []) });
  });
});

describe("alignAppends: a driver's appends lined up with what a mirror holds", () => {
  const append = (id: string, ...texts: string[]): TaskEvent => ({ type: 'artifact', artifactId: id, parts: texts.map((t) => ({ kind: 'text', text: t })), append: true, lastChunk: false });
  const replace = (id: string, ...texts: string[]): TaskEvent => ({ ...(append(id, ...texts) as object), append: false }) as TaskEvent;
  const held = (counts: Record<string, number>) => (id: string): number => counts[id] ?? 0;
  const texts = (events: TaskEvent[] | undefined): string[] | undefined => events?.map((e) => (e.type === 'artifact' ? `${e.append ? '+' : '='}${text(e.parts)}` : e.type));

  it('without ends (an older driver), the events pass as they are', () => {
    expect(texts(alignAppends([append('a', 'x')], undefined, held({ a: 9 })))).toEqual(['+x']);
  });
  it('in step: unchanged', () => {
    expect(texts(alignAppends([append('a', '3'), append('a', '4')], { a: 4 }, held({ a: 2 })))).toEqual(['+3', '+4']);
  });
  it('the mirror is ahead (it saw a part of the old driver the new one had not): the parts it holds are skipped', () => {
    expect(texts(alignAppends([append('a', '3', '4', '5')], { a: 5 }, held({ a: 3 })))).toEqual(['+45']);
    expect(texts(alignAppends([append('a', '3'), append('a', '4')], { a: 4 }, held({ a: 3 })))).toEqual(['+4']);
    expect(texts(alignAppends([append('a', '3')], { a: 3 }, held({ a: 3 })))).toEqual([]);
  });
  it('the mirror is behind (parts missing here): undefined — ask for a snapshot', () => {
    expect(alignAppends([append('a', '5')], { a: 5 }, held({ a: 3 }))).toBeUndefined();
  });
  it('a replace settles what came before it in the batch; each artifact on its own', () => {
    expect(texts(alignAppends([append('a', 'old'), replace('a', '1', '2'), append('a', '3'), append('b', 'y')], { a: 3, b: 5 }, held({ a: 7, b: 4 })))).toEqual(['+old', '=12', '+3', '+y']);
  });
});

