// The Redis task store against a real redis-server (started here on a free port of 127.0.0.1):
// the store contract, concurrent updates from two clients, and leases — exclusivity, expiry,
// stale owners, and a process that dies holding leases.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { TASK_RECORD_VERSION, type TaskRecord } from '@a2a-tether/core';
import { runTaskStoreContract } from '@a2a-tether/testkit';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskStore, type RedisTaskStore } from '../src/redis-entry.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';

requireRedis('the Redis task store tests');

function record(taskId: string, patch: Partial<TaskRecord> = {}): TaskRecord {
  return {
    schemaVersion: TASK_RECORD_VERSION,
    taskId,
    contextId: `ctx-${taskId}`,
    agentUrl: 'http://agent.test/',
    state: 'working',
    createdAt: 1,
    updatedAt: 1,
    ...patch,
  };
}

/** Polls `probe` every 25 ms, at most `attempts` times; the last value. */
async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, attempts: number): Promise<T> {
  let value = await probe();
  for (let i = 1; i < attempts && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    value = await probe();
  }
  return value;
}

describe.skipIf(!available)('Redis task store (real redis-server)', () => {
  let redis: { url: string; process: ChildProcess };
  const stores: RedisTaskStore[] = [];
  const children: ChildProcess[] = [];
  let prefixCount = 0;
  let prefix = '';

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    redis.process.kill('SIGTERM');
    if (redis.process.exitCode === null) await once(redis.process, 'exit');
  });
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(stores.splice(0).map((store) => store.close()));
    prefix = `t${++prefixCount}:`;
  });
  beforeAll(() => {
    prefix = `t${++prefixCount}:`;
  });

  async function store(leaseMs?: number): Promise<RedisTaskStore> {
    const created = await createRedisTaskStore({ url: redis.url, prefix, ...(leaseMs === undefined ? {} : { leaseMs }) });
    stores.push(created);
    return created;
  }

  // The contract suite of @a2a-tether/testkit, each case on a store with a prefix of its own.
  let contractStores = 0;
  runTaskStoreContract(() => createRedisTaskStore({ url: redis.url, prefix: `contract${++contractStores}:` }), { describe, it }, {
    dispose: (s) => s.close(),
    concurrentUpdates: 100,
  });

  describe('beyond the contract', () => {
    it('round-trips a TaskRecord with every optional field, and a lost task is not active', async () => {
      const s = await store();
      const full = record('a', {
        lastEventId: '7',
        delivery: 'stream',
        cancel: { requestedAt: 5, reason: 'user', by: 'p1', confirmed: true, seenState: 'canceled' },
        principal: 'p1',
        lastError: { code: 'RETRY_EXHAUSTED', message: 'gave up', at: 9 },
      });
      await s.put(full);
      expect(await s.get('a')).toEqual(full);
      await s.put(record('l', { outcome: { kind: 'lost', at: 2 } }));
      expect((await s.list({ active: true })).map((r) => r.taskId)).toEqual(['a']);
    });

    it('keeps stores with different prefixes apart', async () => {
      const s = await store();
      const other = await createRedisTaskStore({ url: redis.url, prefix: `${prefix}other:` });
      stores.push(other);
      await s.put(record('p'));
      expect(await other.get('p')).toBeUndefined();
      expect(await other.list()).toEqual([]);
    });

    it('takes a client you created (node-redis v5) and leaves it open', async () => {
      const client = createClient({ url: redis.url });
      client.on('error', () => undefined);
      const s = await createRedisTaskStore({ client, prefix });
      await s.put(record('mine'));
      await s.close();
      expect(client.isOpen).toBe(true);
      expect(await client.exists(`${prefix}task:mine`)).toBe(1);
      await client.close();
    });
  });

  it('concurrent updates from two clients all land', async () => {
    const [a, b] = [await store(), await store()];
    await a.put({ ...record('n'), ...{ seen: [] as string[] } });
    // Enough that updates racing within one client (not only across the two) would exhaust the retries.
    const PER_CLIENT = 100;
    const bump = (s: RedisTaskStore, who: string, i: number): Promise<TaskRecord | undefined> =>
      s.update('n', (current) => {
        const seen = (current as unknown as { seen: string[] }).seen;
        return { ...(current as TaskRecord), updatedAt: (current?.updatedAt ?? 0) + 1, seen: [...seen, `${who}${i}`] } as TaskRecord;
      });
    await Promise.all(
      Array.from({ length: PER_CLIENT }, (_, i) => [bump(a, 'a', i), bump(b, 'b', i)]).flat(),
    );
    const final = (await b.get('n')) as TaskRecord & { seen: string[] };
    expect(final.updatedAt).toBe(1 + 2 * PER_CLIENT);
    expect(new Set(final.seen).size).toBe(2 * PER_CLIENT);
  });

  describe('leases', () => {
    it('one owner at a time; the holder renews and releases, then another acquires', async () => {
      const [a, b] = [await store(), await store()];
      const held = await a.lease('t', 'owner-a', 10_000);
      expect(held).toBeDefined();
      expect(await b.lease('t', 'owner-b', 10_000)).toBeUndefined();
      expect(await held?.renew()).toBe(true);
      // The same owner acquiring again (e.g. after a restart with a stable owner name) gets it back.
      expect(await a.lease('t', 'owner-a', 10_000)).toBeDefined();
      expect(await held?.release()).toBe(true);
      const taken = await b.lease('t', 'owner-b', 10_000);
      expect(taken?.owner).toBe('owner-b');
      expect(await held?.release(), 'a released lease cannot be released twice').toBe(false);
      expect(await a.lease('t', 'owner-a', 10_000)).toBeUndefined();
    });

    it('an expired lease hands over; the old holder (now a non-owner) can neither renew nor release it', async () => {
      const [a, b] = [await store(), await store()];
      const stale = await a.lease('e', 'owner-a', 150);
      expect(stale).toBeDefined();
      // Polled, not timed: at most 200 × 25 ms for the TTL to lapse.
      const taken = await eventually(() => b.lease('e', 'owner-b', 10_000), (lease) => lease !== undefined, 200);
      expect(taken?.owner).toBe('owner-b');
      expect(await stale?.renew()).toBe(false);
      expect(await stale?.release(), 'a non-owner release does nothing').toBe(false);
      const raw = createClient({ url: redis.url });
      raw.on('error', () => undefined);
      await raw.connect();
      try {
        expect(await raw.get(`${prefix}lease:e`)).toBe('owner-b');
      } finally {
        await raw.close();
      }
      expect(await a.lease('e', 'owner-c', 10_000), 'owner-b still holds it').toBeUndefined();
      expect(await taken?.renew()).toBe(true);
    });

    it('rejects a TTL that is not a positive whole number of ms', async () => {
      const s = await store();
      await expect(s.lease('x', 'o', 0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(s.lease('x', 'o', 1.5)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(s.lease('x', '', 100)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('a process killed while holding leases loses them after the TTL; another client takes its tasks', async () => {
      const ids = ['k1', 'k2', 'k3'];
      const TTL = 1500;
      const fixture = fileURLToPath(new URL('./fixtures/lease-holder.ts', import.meta.url));
      const child = spawn(process.execPath, ['--conditions=@a2a-tether/source', '--import', 'tsx', fixture, redis.url, prefix, String(TTL), ...ids], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let output = '';
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const ready = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`lease-holder not ready within 20 s:\n${output}`)), 20_000);
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const line = /ready (\S+)/.exec(output);
          if (line) {
            clearTimeout(timer);
            resolve(line[1] as string);
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`lease-holder exited with ${code}:\n${output}`));
        });
      });
      expect(ready).toBe(`lease-holder-${child.pid}`);

      const survivor = await store();
      const tasks = (await survivor.list({ active: true })).map((r) => r.taskId).sort();
      expect(tasks).toEqual(ids);
      for (const taskId of tasks) expect(await survivor.lease(taskId, 'survivor', 10_000), `${taskId} is held by the live child`).toBeUndefined();

      child.kill('SIGKILL');
      await once(child, 'exit');
      expect(child.signalCode).toBe('SIGKILL');

      // Polled: each lease lapses within one TTL of the kill (at most 400 × 25 ms here).
      const taken = [];
      for (const taskId of tasks) {
        taken.push(await eventually(() => survivor.lease(taskId, 'survivor', 10_000), (lease) => lease !== undefined, 400));
      }
      expect(taken.map((lease) => lease?.owner)).toEqual(['survivor', 'survivor', 'survivor']);
    }, 40_000);
  });
});
