// The Redis task store when Redis is down or out of reach (issue 16): every call fails fast with a typed,
// retryable STORE_UNAVAILABLE (never waits out the outage), creating a store against a closed port
// rejects, start() rejects instead of hanging, and the store works again once Redis is back.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { TASK_RECORD_VERSION, taskKey, TetherError, type TaskRecord } from '@a2a-tether/core';

const key = (taskId: string): string => taskKey('http://agent.test/', taskId);
import { freePort, startTcpProxy, startTestAgent, type TcpProxy } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../src/index.js';
import { createRedisTaskStore, type RedisTaskStore } from '../src/redis-entry.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';

requireRedis('the Redis outage tests');

const record = (taskId: string): TaskRecord => ({
  schemaVersion: TASK_RECORD_VERSION,
  taskId,
  contextId: 'ctx',
  agentUrl: 'http://agent.test/',
  state: 'working',
  createdAt: 1,
  updatedAt: 1,
});

/** What a call settled with: the error's code and retryability, or 'resolved'. */
async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'resolved';
  } catch (error) {
    if (!(error instanceof TetherError)) return `untyped ${String(error)}`;
    return `${error.code}${error.isRetryable ? ' retryable' : ''}`;
  }
}

/** Every store call, each as a thunk, on a store that holds task `held` and its lease. */
async function everyCall(store: RedisTaskStore): Promise<Record<string, () => Promise<unknown>>> {
  await store.put(record('held'));
  const lease = await store.lease(key('held'), 'owner');
  if (!lease) throw new Error('no lease');
  return {
    get: () => store.get(key('held')),
    put: () => store.put(record('new')),
    update: () => store.update(key('held'), (r) => r),
    list: () => store.list(),
    'list active': () => store.list({ active: true }),
    delete: () => store.delete(key('held')),
    lease: () => store.lease(key('other'), 'owner'),
    renew: () => lease.renew(),
    release: () => lease.release(),
  };
}

describe.skipIf(!available)('the Redis task store when Redis is unreachable', () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  const killRedis = async (child: ChildProcess): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  };

  it('createRedisTaskStore() against a closed port rejects with STORE_UNAVAILABLE (it used to never settle)', async () => {
    const port = await freePort(); // nothing listens there
    const error = await createRedisTaskStore({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 800 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', isRetryable: true });
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
  }, 20_000);

  it('with Redis killed, every call fails with a retryable STORE_UNAVAILABLE; once Redis is back, calls work again', async () => {
    const redis = await startRedis();
    cleanup.push(() => killRedis(redis.process));
    const store = await createRedisTaskStore({ url: redis.url, prefix: 'killed:', commandTimeoutMs: 500 });
    cleanup.push(() => store.close());
    const calls = await everyCall(store);
    await killRedis(redis.process);
    const seen: Record<string, string> = {};
    for (const [name, call] of Object.entries(calls)) seen[name] = await outcome(call);
    expect(seen).toEqual(Object.fromEntries(Object.keys(calls).map((name) => [name, 'STORE_UNAVAILABLE retryable'])));

    // Back on the same port: the store reconnects by itself (polled, at most 100 × 50 ms).
    const port = Number(new URL(redis.url).port);
    const again = await startRedis(port);
    cleanup.push(() => killRedis(again.process));
    let result = 'not tried';
    for (let i = 0; i < 100 && result !== 'resolved'; i++) {
      result = await outcome(() => store.put(record('after')));
      if (result !== 'resolved') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(result).toBe('resolved');
    expect(await store.get(key('after'))).toEqual(record('after'));
  }, 30_000);

  for (const how of ['partition', 'reset'] as const) {
    it(`cut off from Redis by a ${how} (Redis and the process alive), every call fails with a retryable STORE_UNAVAILABLE`, async () => {
      const redis = await startRedis();
      cleanup.push(() => killRedis(redis.process));
      const proxy: TcpProxy = await startTcpProxy({ target: { host: '127.0.0.1', port: Number(new URL(redis.url).port) } });
      cleanup.push(() => proxy.close());
      const store = await createRedisTaskStore({ url: `redis://${proxy.address}`, prefix: `${how}:`, commandTimeoutMs: 500 });
      cleanup.push(() => store.close());
      const calls = await everyCall(store);
      proxy.cutLink(how);
      const seen: Record<string, string> = {};
      for (const [name, call] of Object.entries(calls)) seen[name] = await outcome(call);
      expect(seen).toEqual(Object.fromEntries(Object.keys(calls).map((name) => [name, 'STORE_UNAVAILABLE retryable'])));
      proxy.heal();
      let result = 'not tried';
      for (let i = 0; i < 100 && result !== 'resolved'; i++) {
        result = await outcome(() => store.get(key('held')));
        if (result !== 'resolved') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(result).toBe('resolved');
    }, 30_000);
  }

  it('start() rejects with STORE_UNAVAILABLE, naming the task, instead of hanging while Redis is down', async () => {
    const redis = await startRedis();
    cleanup.push(() => killRedis(redis.process));
    const agent = await startTestAgent({ versions: ['1.0'] });
    cleanup.push(() => agent.close());
    const store = await createRedisTaskStore({ url: redis.url, prefix: 'start:', commandTimeoutMs: 500 });
    cleanup.push(() => store.close());
    const client = await connect(agent.origin, { store, cardCache: false });
    await killRedis(redis.process);
    const error = await client.start('slow steps=20 delayMs=50').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'STORE_UNAVAILABLE', isRetryable: true });
    // The task runs on at the agent: the error names it, so the app can resume or cancel it later.
    const taskId = (error as TetherError).taskId;
    expect(taskId).toBeTruthy();
    expect(agent.tasks.get(taskId ?? '')).toBeDefined();
  }, 30_000);
});
