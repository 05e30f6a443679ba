// Pushes that come before the task id is known (issue 33 point 2), and two agents that both name their task
// "1" (point 3), in one process: agents that push as they create a task, before the answer to the send names
// it (as the official servers do), and that name every task "1". With the safety poll at 10 minutes, a task
// completes within the test only through its pushes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, createPushReceiver, type PushNotice, type PushReceiver, type PushReceiverOptions, type Task, type TetherError } from '../src/index.js';
import { startEarlyAgent, type EarlyAgent } from './push/early-agent.js';
import { settle } from './push/helpers.js';

const SAFETY_POLL_MS = 10 * 60_000;
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function hook(): Promise<{ receiver: PushReceiver; url: string; refused: TetherError[] }> {
  const refused: TetherError[] = [];
  const receiver = createPushReceiver({ token: 'receiver-wide-token-no-agent-has', onRefused: (error) => void refused.push(error) });
  const server: Server = createServer(receiver.nodeHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => receiver.close(), () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { receiver, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, refused };
}

async function agent(name: string, completeAfterMs: number): Promise<EarlyAgent> {
  const started = await startEarlyAgent({ taskId: '1', completeAfterMs, name });
  cleanups.push(() => started.close());
  return started;
}

/** `done()`, or a note of what it was still waiting for after `ms` (a bounded wait, not a timing assertion). */
function doneWithin(done: Promise<Task>, ms: number): Promise<Task | string> {
  return Promise.race([done, new Promise<string>((resolve) => setTimeout(() => resolve(`not done within ${ms} ms`), ms).unref())]);
}

const text = (task: Task | string): string => (typeof task === 'string' ? task : `${task.status.state} ${task.artifacts.flatMap((a) => a.parts).map((p) => (p.kind === 'text' ? p.text : '')).join('')}`);

describe('pushes before the task id is known, in one process', () => {
  it('a push that comes before the send is answered is accepted (202), held, and wakes the follow once the id is known', async () => {
    const { receiver, url, refused } = await hook();
    const a = await agent('a', 300);
    const client = await connect(a.cardUrl, { cardCache: false, push: { receiver, url, safetyPollMs: SAFETY_POLL_MS } });
    const handle = await client.start('go', { delivery: 'push' });
    expect(text(await doneWithin(handle.done(), 10_000))).toBe('completed done-a-1');
    expect(a.pushStatuses).toEqual([202, 202]);
    expect(refused.map((error) => error.status)).toEqual([]);
  });
});

describe('two agents that both call their task "1", one receiver', () => {
  it('each task gets its own pushes and none of the other’s; the one that ends first leaves the other registered', async () => {
    const { receiver, url, refused } = await hook();
    const [a, b] = [await agent('a', 200), await agent('b', 800)];
    const push = { receiver, url, safetyPollMs: SAFETY_POLL_MS };
    const [clientA, clientB] = [await connect(a.cardUrl, { cardCache: false, push }), await connect(b.cardUrl, { cardCache: false, push })];
    const [handleA, handleB] = [await clientA.start('go', { delivery: 'push' }), await clientB.start('go', { delivery: 'push' })];
    expect([handleA.taskId, handleB.taskId]).toEqual(['1', '1']);
    const [doneA, doneB] = await Promise.all([doneWithin(handleA.done(), 10_000), doneWithin(handleB.done(), 10_000)]);
    expect([text(doneA), text(doneB)]).toEqual(['completed done-a-1', 'completed done-b-1']);
    expect([a.pushStatuses, b.pushStatuses]).toEqual([
      [202, 202],
      [202, 202],
    ]);
    expect(refused.map((error) => error.status)).toEqual([]);
    expect(receiver.stats().tasks).toBe(0);
  });
});

describe('register(): a token before its task is named', () => {
  let nowMs = 1_900_000_000_000;
  function receiverWith(options: Partial<PushReceiverOptions> = {}): PushReceiver {
    const receiver = createPushReceiver({ token: 'receiver-wide', now: () => nowMs, ...options });
    cleanups.push(() => receiver.close());
    return receiver;
  }
  const send = async (receiver: PushReceiver, token: string, taskId: string, text: string): Promise<number> =>
    (
      await receiver.handle(
        new Request('http://127.0.0.1/hook', {
          method: 'POST',
          headers: { 'content-type': 'application/a2a+json', 'x-a2a-notification-token': token },
          body: JSON.stringify({ statusUpdate: { taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING', message: { messageId: text, role: 'ROLE_AGENT', parts: [{ text }] } } } }),
        }),
      )
    ).status;
  const texts = (notices: PushNotice[]): string[] => notices.map((notice) => notice.status?.message?.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('') ?? '');

  it('a push before bind is held (202) and delivered once when bound; one naming another task is dropped; a repeat is 200', async () => {
    const receiver = receiverWith();
    const registration = receiver.register({ token: 'own-token' });
    await registration.ready;
    const notices: PushNotice[] = [];
    registration.subscribe((notice) => void notices.push(notice));
    expect(await send(receiver, 'own-token', 't-7', 'early')).toBe(202);
    expect(await send(receiver, 'own-token', 't-other', 'not mine')).toBe(202); // which task it names is known once bound
    expect(await send(receiver, 'own-token', 't-7', 'early')).toBe(200); // the same body again
    await settle();
    expect(notices).toEqual([]);
    expect(receiver.stats()).toMatchObject({ tasks: 1, earlyPushes: 2 });
    registration.bind('t-7');
    await settle();
    expect(texts(notices)).toEqual(['early']);
    expect(notices[0]).toMatchObject({ taskId: 't-7', pushes: 1 });
    expect(receiver.stats()).toMatchObject({ earlyPushes: 0, earlyBytes: 0 });
    expect(registration.taskId).toBe('t-7');
    expect(await send(receiver, 'own-token', 't-other', 'after')).toBe(401); // bound: the token opens t-7 only
    expect(await send(receiver, 'own-token', 't-7', 'later')).toBe(202);
    await settle();
    expect(texts(notices)).toEqual(['early', 'later']);
    expect(() => registration.bind('t-8')).toThrow(/already bound/);
  });

  it('bounds: maxEarlyPushes per registration (429), maxEarlyBytes in all (503), windowSec (dropped at bind)', async () => {
    const receiver = receiverWith({ maxEarlyPushes: 2, maxEarlyBytes: 400, windowSec: 60 });
    const [a, b] = [receiver.register({ token: 'token-a' }), receiver.register({ token: 'token-b' })];
    const notices: PushNotice[] = [];
    a.subscribe((notice) => void notices.push(notice));
    expect(await send(receiver, 'token-a', 't-a', 'one')).toBe(202);
    expect(await send(receiver, 'token-a', 't-a', 'two')).toBe(202);
    expect(await send(receiver, 'token-a', 't-a', 'three')).toBe(429); // its count
    expect(receiver.stats().earlyBytes).toBeGreaterThan(400 - 164); // two bodies of ~164 bytes
    expect(await send(receiver, 'token-b', 't-b', 'one')).toBe(503); // the bytes of all
    nowMs += 61_000; // past windowSec: a's pushes expire
    expect(await send(receiver, 'token-b', 't-b', 'two')).toBe(202); // room again: the expired ones were swept
    a.bind('t-a');
    await settle();
    expect(notices).toEqual([]);
    expect(receiver.stats()).toMatchObject({ earlyPushes: 1 });
    b.forget(); // a forgotten registration drops what it held
    expect(receiver.stats()).toMatchObject({ tasks: 1, earlyPushes: 0, earlyBytes: 0 });
    expect(await send(receiver, 'token-b', 't-b', 'late')).toBe(410);
  });

  it('two registrations for task "1" with different tokens: each gets its own pushes; forgetting one leaves the other', async () => {
    const receiver = receiverWith();
    const [a, b] = [receiver.register({ token: 'agent-a', taskId: '1' }), receiver.register({ token: 'agent-b', taskId: '1' })];
    const seen = { a: [] as PushNotice[], b: [] as PushNotice[] };
    a.subscribe((notice) => void seen.a.push(notice));
    b.subscribe((notice) => void seen.b.push(notice));
    expect([await send(receiver, 'agent-a', '1', 'for a'), await send(receiver, 'agent-b', '1', 'for b')]).toEqual([202, 202]);
    a.forget();
    expect([await send(receiver, 'agent-a', '1', 'a again'), await send(receiver, 'agent-b', '1', 'b again')]).toEqual([410, 202]);
    await settle(10);
    expect({ a: texts(seen.a), b: texts(seen.b) }).toEqual({ a: ['for a'], b: ['for b', 'b again'] });
    // The receiver-wide token opens neither: both have a token of their own.
    expect(await send(receiver, 'receiver-wide', '1', 'anyone')).toBe(404);
  });
});
