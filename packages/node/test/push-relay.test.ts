// The push relay (issue 22): receivers of several replicas sharing one Redis. A push that reaches a replica
// that does not follow its task is verified there against the task's token hash (never the token: Redis
// holds only its SHA-256), handed to the replica that follows it, and acknowledged only once stored; a
// wrong token, an unknown or forgotten task, and a Redis out of reach are refused, and nothing is handed over.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { startTcpProxy, type TcpProxy } from '@a2a-tether/testkit';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPushReceiver, type PushNotice, type PushReceiver } from '../src/index.js';
import { createRedisTaskStore, type RedisTaskStore } from '../src/redis-entry.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';

requireRedis('the push relay tests');

const TOKEN = 'task-token-3f9c1a77e2';
const body = (taskId: string, state = 'TASK_STATE_WORKING'): string => JSON.stringify({ statusUpdate: { taskId, contextId: 'c-1', status: { state } } });

describe.skipIf(!available)('pushes handed between replicas through Redis', () => {
  let redis: { url: string; process: ChildProcess };
  const closers: Array<() => Promise<unknown> | void> = [];
  let count = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    redis.process.kill('SIGTERM');
    if (redis.process.exitCode === null) await once(redis.process, 'exit');
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** A replica's receiver on 127.0.0.1, sharing `prefix` on Redis at `url`. */
  async function replica(prefix: string, url = redis.url): Promise<{ receiver: PushReceiver; store: RedisTaskStore; post(body: string, token?: string): Promise<number> }> {
    const store = await createRedisTaskStore({ url, prefix, commandTimeoutMs: 300 });
    const receiver = createPushReceiver({ token: 'receiver-wide', relay: store.pushRelay() });
    const server: Server = createServer(receiver.nodeHandler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => store.close(), () => receiver.close(), () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      receiver,
      store,
      post: async (text, token) =>
        (await fetch(`${origin}/hook`, { method: 'POST', body: text, headers: { 'content-type': 'application/json', ...(token ? { 'x-a2a-notification-token': token } : {}) } })).status,
    };
  }

  it('a push for another replica’s task is verified here, handed over, and delivered there', async () => {
    const prefix = `relay${++count}:`;
    const [a, b] = [await replica(prefix), await replica(prefix)];
    a.receiver.expect('t-1', { token: TOKEN });
    const notices: PushNotice[] = [];
    a.receiver.subscribe('t-1', (notice) => void notices.push(notice));
    await new Promise((resolve) => setTimeout(resolve, 100)); // the registration is written in the background
    expect(await b.post(body('t-1'), TOKEN)).toBe(202);
    for (let i = 0; i < 100 && notices.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(notices.map((n) => n.status?.state)).toEqual(['working']);
    expect([b.receiver.stats().handedOver, a.receiver.stats().relayedIn]).toEqual([1, 1]);

    // Redis holds the token's SHA-256 (the key), never the token.
    const raw = createClient({ url: redis.url });
    raw.on('error', () => undefined);
    await raw.connect();
    closers.push(() => raw.close());
    const keys = await raw.keys(`${prefix}*`);
    expect(keys).toContain(`${prefix}push-token:${createHash('sha256').update(TOKEN).digest('hex')}`);
    for (const key of keys) expect(`${key} ${(await raw.type(key)) === 'string' ? String(await raw.get(key)) : ''}`).not.toContain(TOKEN);
  });

  it('a wrong token, an unknown task, a forgotten task: refused, nothing handed over', async () => {
    const prefix = `relay${++count}:`;
    const [a, b] = [await replica(prefix), await replica(prefix)];
    a.receiver.expect('t-1', { token: TOKEN });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await b.post(body('t-1'), 'not-the-token')).toBe(401);
    expect(await b.post(body('t-1'))).toBe(401);
    expect(await b.post(body('t-2'), TOKEN)).toBe(401); // t-1's token does not open t-2
    expect(await b.post(body('t-2'), 'receiver-wide')).toBe(404);
    a.receiver.forget('t-1');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await b.post(body('t-1'), TOKEN)).toBe(410); // its follow ended: told so, unread
    expect(b.receiver.stats().handedOver).toBe(0);
  });

  it('Redis out of reach: 503 (the agent may retry), never a 2xx for a push that was not stored', async () => {
    const prefix = `relay${++count}:`;
    const port = Number(new URL(redis.url).port);
    const link: TcpProxy = await startTcpProxy({ target: { host: '127.0.0.1', port } });
    closers.push(() => link.close());
    const a = await replica(prefix);
    const b = await replica(prefix, `redis://${link.address}`);
    a.receiver.expect('t-1', { token: TOKEN });
    await new Promise((resolve) => setTimeout(resolve, 100));
    link.cutLink('reset');
    expect(await b.post(body('t-1'), TOKEN)).toBe(503);
    link.heal();
    expect(b.receiver.stats().handedOver).toBe(0);
  });
});
