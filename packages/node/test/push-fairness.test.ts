import { createHmac } from 'node:crypto';
import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createPushReceiver } from '../src/index.js';
import type { PushReceiver, TaskState } from '../src/index.js';
import { serve, settle, v1Status } from './push/helpers.js';

// Issue 16: the queue limit was global, so one agent flooding its own task while that task's listener
// was slow got the genuine pushes of every other task refused (429) — lost, since official senders
// never retry. Bounds are now per task and sender.

const TOKEN = 'receiver-wide-token';
const SECRET = 'hmac-secret-of-the-fairness-test';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A v1.0 status push whose body differs at every `step` (its timestamp moves 1 ms a step). */
function step(taskId: string, state: TaskState, index: number): string {
  return v1Status(taskId, state, new Date(Date.UTC(2026, 0, 1) + index).toISOString());
}

/** A v1.0 artifact push (no status, so never stale: every one is queued for the listener). */
function chunk(taskId: string, index: number): string {
  return JSON.stringify({ artifactUpdate: { taskId, contextId: 'ctx-1', artifact: { artifactId: 'a', parts: [{ text: `chunk ${index}` }] }, append: true } });
}

/** POSTs over a keep-alive agent; resolves with the status. */
function post(agent: Agent, url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

function count(statuses: Map<number, number>, status: number): void {
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
}

function hmacHeaders(id: string, body: string, nowSec: number): Record<string, string> {
  const signature = createHmac('sha256', SECRET).update(`${id}.${nowSec}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(nowSec), 'webhook-signature': `v1,${signature}` };
}

function send(receiver: PushReceiver, body: string, headers: Record<string, string>): Promise<number> {
  return receiver
    .handle(new Request('http://127.0.0.1/hook', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }))
    .then((response) => response.status);
}

describe('push fairness: a flooding task never gets another task’s genuine push refused', () => {
  it('20,000 pushes for one task with a 5 s listener: every push of 5 other tasks during the flood is accepted', { timeout: 180_000 }, async () => {
    const receiver = createPushReceiver({ token: TOKEN });
    const server = await serve(receiver);
    const agent = new Agent({ keepAlive: true, maxSockets: 40 });
    cleanups.push(() => receiver.close(), server.close, () => agent.destroy());

    // The flooding task shares the receiver-wide token with two of the others (the harder case);
    // three others have their own tokens, as the engine registers them.
    receiver.expect('flooded');
    let slowNotices = 0;
    receiver.subscribe('flooded', async () => {
      slowNotices += 1;
      await new Promise((resolve) => setTimeout(resolve, 5_000));
    });
    const others = ['own-1', 'own-2', 'own-3', 'shared-1', 'shared-2'];
    const tokenOf = (id: string): string => (id.startsWith('own') ? `token-of-${id}` : TOKEN);
    const latest = new Map<string, TaskState | undefined>();
    for (const id of others) {
      receiver.expect(id, id.startsWith('own') ? { token: tokenOf(id) } : {});
      receiver.subscribe(id, (notice) => void latest.set(id, notice.status?.state));
    }

    const FLOOD = 20_000;
    const flood = new Map<number, number>();
    let flooding = true;
    const flooders = Array.from({ length: 32 }, async (_, worker) => {
      for (let i = worker; i < FLOOD; i += 32) count(flood, await post(agent, server.url, chunk('flooded', i), { authorization: `Bearer ${TOKEN}` }));
    });
    // Each other task gets a push every 25 ms while the flood lasts (at most 2,000 each), then a last one.
    const trickle = new Map<number, number>();
    const trickled = new Map<string, number>();
    const tricklers = others.map(async (id) => {
      for (let i = 0; flooding && i < 2_000; i += 1) {
        count(trickle, await post(agent, server.url, step(id, 'working', i), { authorization: `Bearer ${tokenOf(id)}` }));
        trickled.set(id, i + 1);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      count(trickle, await post(agent, server.url, step(id, 'completed', 10_000), { authorization: `Bearer ${tokenOf(id)}` }));
    });
    const started = performance.now();
    await Promise.all(flooders);
    const seconds = (performance.now() - started) / 1000;
    flooding = false;
    await Promise.all(tricklers);
    await settle(10);

    const floodSummary = Object.fromEntries([...flood].sort());
    const trickleSummary = Object.fromEntries([...trickle].sort());
    console.log(
      `push flood: ${FLOOD} pushes for one task in ${seconds.toFixed(1)} s (${Math.round(FLOOD / seconds)}/s), answers ${JSON.stringify(floodSummary)}, ` +
        `${slowNotices} notices to its 5 s listener; ${others.length} other tasks: ${[...trickled.values()].reduce((a, b) => a + b, 0) + others.length} pushes, answers ${JSON.stringify(trickleSummary)}`,
    );
    // The flood ran while the slow listener held its notice: it was refused for its own task only.
    expect(flood.get(429) ?? 0).toBeGreaterThan(0);
    expect([...trickle.keys()]).toEqual([202]);
    for (const id of others) {
      expect(trickled.get(id) ?? 0).toBeGreaterThan(0);
      expect(latest.get(id)).toBe('completed');
    }
    // O(tasks) held whatever the flood: one notice per task at most.
    expect(receiver.stats().heldNotices).toBeLessThanOrEqual(1 + others.length);
  });

  it('on a task without its own token, a flood under one credential leaves room for pushes under another', async () => {
    const nowSec = 1_900_000_000;
    const receiver = createPushReceiver({ token: TOKEN, hmac: { secret: SECRET }, now: () => nowSec * 1000 });
    cleanups.push(() => receiver.close());
    receiver.expect('t');
    let release: () => void = () => {};
    const stuck = new Promise<void>((resolve) => (release = resolve));
    receiver.subscribe('t', () => stuck);
    cleanups.push(() => release());

    const statuses = new Map<number, number>();
    for (let i = 0; i < 1_200; i += 1) count(statuses, await send(receiver, step('t', 'working', i), { authorization: `Bearer ${TOKEN}` }));
    expect(statuses.get(429) ?? 0).toBeGreaterThan(0); // the token's lane of this task is full…
    // … and the HMAC sender's pushes for the same task are still taken.
    for (let i = 0; i < 20; i += 1) {
      const body = step('t', 'working', 5_000 + i);
      expect(await send(receiver, body, hmacHeaders(`hmac-${i}`, body, nowSec))).toBe(202);
    }
  });

  it('webhook ids are remembered per sender: one task filling its share leaves another task’s pushes accepted', async () => {
    const nowSec = 1_900_000_000;
    const receiver = createPushReceiver({ hmac: { secret: SECRET }, replayCacheSize: 20, now: () => nowSec * 1000 });
    cleanups.push(() => receiver.close());
    receiver.expect('a', { token: 'token-of-a' });
    receiver.expect('b', { token: 'token-of-b' });
    for (const id of ['a', 'b']) receiver.subscribe(id, () => {});

    const fromA = new Map<number, number>();
    for (let i = 0; i < 30; i += 1) {
      const body = step('a', 'working', i);
      count(fromA, await send(receiver, body, { ...hmacHeaders(`a-${i}`, body, nowSec), 'x-a2a-notification-token': 'token-of-a' }));
    }
    expect(fromA.get(429)).toBe(10); // a's share of live ids is full
    for (let i = 0; i < 10; i += 1) {
      const body = step('b', 'working', i);
      expect(await send(receiver, body, { ...hmacHeaders(`b-${i}`, body, nowSec), 'x-a2a-notification-token': 'token-of-b' })).toBe(202);
    }
  });
});
