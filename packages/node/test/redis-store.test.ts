// The Redis task store against a real redis-server (started here on a free port of 127.0.0.1):
// the store contract, concurrent updates from two clients, and leases — exclusivity, expiry,
// stale owners, and a process that dies holding leases.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { TASK_RECORD_VERSION, taskKey, type TaskRecord } from '@a2a-tether/core';
import { runTaskStoreContract } from '@a2a-tether/testkit';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskStore, type RedisTaskStore } from '../src/redis-entry.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';

requireRedis('the Redis task store tests');

/** The store key of task `taskId` of the agent of {@link record}. */
const key = (taskId: string): string => taskKey('http://agent.test/', taskId);

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

  async function rawClient(): Promise<ReturnType<typeof createClient>> {
    const raw = createClient({ url: redis.url });
    raw.on('error', () => undefined);
    await raw.connect();
    return raw;
  }

  // The contract suite of @a2a-tether/testkit, each case on a store with a prefix of its own; bad
  // records are planted with a client of the test's own, as a person with a Redis shell would.
  let contractStores = 0;
  const reports = new WeakMap<RedisTaskStore, unknown[]>();
  const prefixes = new WeakMap<RedisTaskStore, string>();
  runTaskStoreContract(
    async () => {
      const reported: unknown[] = [];
      const contractPrefix = `contract${++contractStores}:`;
      const created = await createRedisTaskStore({ url: redis.url, prefix: contractPrefix, onCorrupt: (error) => reported.push(error) });
      reports.set(created, reported);
      prefixes.set(created, contractPrefix);
      return created;
    },
    { describe, it },
    {
      dispose: (s) => s.close(),
      concurrentUpdates: 100,
      corruption: {
        async plant(s, k, raw) {
          const client = await rawClient();
          try {
            const p = prefixes.get(s) ?? '';
            await client.set(`${p}task-record:${k}`, raw);
            await client.sAdd(`${p}task-keys`, k);
          } finally {
            await client.close();
          }
        },
        reported: (s) => reports.get(s) ?? [],
      },
    },
  );

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
      expect(await s.get(key('a'))).toEqual(full);
      await s.put(record('l', { outcome: { kind: 'lost', at: 2 } }));
      expect((await s.list({ active: true })).map((r) => r.taskId)).toEqual(['a']);
    });

    it('keeps stores with different prefixes apart', async () => {
      const s = await store();
      const other = await createRedisTaskStore({ url: redis.url, prefix: `${prefix}other:` });
      stores.push(other);
      await s.put(record('p'));
      expect(await other.get(key('p'))).toBeUndefined();
      expect(await other.list()).toEqual([]);
    });

    it('takes a client you created (node-redis v5) and leaves it open', async () => {
      const client = createClient({ url: redis.url });
      client.on('error', () => undefined);
      const s = await createRedisTaskStore({ client, prefix });
      await s.put(record('mine'));
      await s.close();
      expect(client.isOpen).toBe(true);
      expect(await client.exists(`${prefix}task-record:${key('mine')}`)).toBe(1);
      await client.close();
    });
  });

  it('concurrent updates from two clients all land', async () => {
    const [a, b] = [await store(), await store()];
    await a.put({ ...record('n'), ...{ seen: [] as string[] } });
    // Enough that updates racing within one client (not only across the two) would exhaust the retries.
    const PER_CLIENT = 100;
    const bump = (s: RedisTaskStore, who: string, i: number): Promise<TaskRecord | undefined> =>
      s.update(key('n'), (current) => {
        const seen = (current as unknown as { seen: string[] }).seen;
        return { ...(current as TaskRecord), updatedAt: (current?.updatedAt ?? 0) + 1, seen: [...seen, `${who}${i}`] } as TaskRecord;
      });
    await Promise.all(
      Array.from({ length: PER_CLIENT }, (_, i) => [bump(a, 'a', i), bump(b, 'b', i)]).flat(),
    );
    const final = (await b.get(key('n'))) as TaskRecord & { seen: string[] };
    expect(final.updatedAt).toBe(1 + 2 * PER_CLIENT);
    expect(new Set(final.seen).size).toBe(2 * PER_CLIENT);
  });

  describe('leases', () => {
    it('one owner at a time; the holder renews and releases, then another acquires', async () => {
      const [a, b] = [await store(10_000), await store(10_000)];
      const held = await a.lease(key('t'), 'owner-a');
      expect(held).toBeDefined();
      expect(await b.lease(key('t'), 'owner-b')).toBeUndefined();
      // Who holds it, for LEASE_HELD's message (an owner name may contain ':').
      expect(await b.leaseHolder(key('t'))).toBe('owner-a');
      expect(await b.leaseHolder(key('nobody'))).toBeUndefined();
      expect(await b.lease(key('c'), 'host:42:x')).toBeDefined();
      expect(await a.leaseHolder(key('c'))).toBe('host:42:x');
      expect(await held?.renew()).toBe(true);
      // The same owner acquiring again (e.g. after a restart with a stable owner name) gets a new lease
      // with a larger fencing token; the older one can no longer renew or release.
      const again = await a.lease(key('t'), 'owner-a');
      expect(again?.fence).toBeGreaterThan(held?.fence ?? Infinity);
      expect(await held?.renew()).toBe(false);
      expect(await held?.release()).toBe(false);
      expect(await again?.release()).toBe(true);
      const taken = await b.lease(key('t'), 'owner-b');
      expect(taken?.owner).toBe('owner-b');
      expect(taken?.fence).toBeGreaterThan(again?.fence ?? Infinity);
      expect(await again?.release(), 'a released lease cannot be released twice').toBe(false);
      expect(await a.lease(key('t'), 'owner-a')).toBeUndefined();
    });

    it('an expired lease hands over; the old holder (now a non-owner) can neither renew nor release it', async () => {
      const [a, b] = [await store(150), await store(10_000)];
      const stale = await a.lease(key('e'), 'owner-a');
      expect(stale).toBeDefined();
      // Polled, not timed: at most 200 × 25 ms for the TTL to lapse.
      const taken = await eventually(() => b.lease(key('e'), 'owner-b'), (lease) => lease !== undefined, 200);
      expect(taken?.owner).toBe('owner-b');
      expect(await stale?.renew()).toBe(false);
      expect(await stale?.release(), 'a non-owner release does nothing').toBe(false);
      const raw = await rawClient();
      try {
        expect(await raw.get(`${prefix}task-lease:${key('e')}`)).toBe(`${taken?.fence ?? ''}:owner-b`);
      } finally {
        await raw.close();
      }
      expect(await a.lease(key('e'), 'owner-c'), 'owner-b still holds it').toBeUndefined();
      expect(await taken?.renew()).toBe(true);
    });

    it('rejects a TTL that is not a positive whole number of ms, and an empty owner or id', async () => {
      await expect(createRedisTaskStore({ url: redis.url, prefix, leaseMs: 0 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(createRedisTaskStore({ url: redis.url, prefix, leaseMs: 1.5 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      const s = await store();
      await expect(s.lease(key('x'), '')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(s.lease('', 'o')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    });

    it('renew() extends the TTL again (it does not only answer true)', async () => {
      const s = await store(60_000);
      const held = await s.lease(key('r'), 'owner');
      const raw = await rawClient();
      try {
        // As if most of the TTL had passed.
        await raw.pExpire(`${prefix}task-lease:${key('r')}`, 500);
        expect(await raw.pTTL(`${prefix}task-lease:${key('r')}`)).toBeLessThanOrEqual(500);
        expect(await held?.renew()).toBe(true);
        expect(await raw.pTTL(`${prefix}task-lease:${key('r')}`)).toBeGreaterThan(50_000);
      } finally {
        await raw.close();
      }
    });

    it('fences writes: a write with an older lease\'s token is refused with LEASE_LOST and changes nothing', async () => {
      const [a, b] = [await store(150), await store(10_000)];
      const old = await a.lease(key('f'), 'owner-a');
      await a.put(record('f', { state: 'working' }), { fence: old?.fence });
      // A is paused past its TTL; B takes the task and writes.
      const taken = await eventually(() => b.lease(key('f'), 'owner-b'), (lease) => lease !== undefined, 200);
      await b.update(key('f'), (r) => r && { ...r, state: 'input-required' }, { fence: taken?.fence });
      // A wakes up and writes what it had in hand: every form is refused, the record stays B's.
      for (const write of [
        () => a.put(record('f', { state: 'completed' }), { fence: old?.fence }),
        () => a.update(key('f'), (r) => r && { ...r, state: 'completed' }, { fence: old?.fence }),
        () => a.delete(key('f'), { fence: old?.fence }),
      ]) {
        await expect(write()).rejects.toMatchObject({ code: 'LEASE_LOST', taskId: 'f', maybeDelivered: false });
      }
      expect((await b.get(key('f')))?.state).toBe('input-required');
      // The holder's own fenced writes, and unfenced ones (no lease in play), still land.
      await b.put(record('f', { state: 'completed' }), { fence: taken?.fence });
      expect((await a.get(key('f')))?.state).toBe('completed');
      // A deleted task keeps its fence count: a former holder cannot bring the record back.
      await b.delete(key('f'), { fence: taken?.fence });
      await expect(a.put(record('f'), { fence: old?.fence })).rejects.toMatchObject({ code: 'LEASE_LOST' });
      expect(await b.get(key('f'))).toBeUndefined();
    });

    it('a process killed while holding leases loses them after the TTL; another client takes its tasks', async () => {
      const ids = ['k1', 'k2', 'k3'];
      const TTL = 1500;
      const fixture = fileURLToPath(new URL('./fixtures/lease-holder.ts', import.meta.url));
      const survivor = await store(10_000);
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

      const tasks = (await survivor.list({ active: true })).map((r) => r.taskId).sort();
      expect(tasks).toEqual(ids);
      for (const taskId of tasks) expect(await survivor.lease(key(taskId), 'survivor'), `${taskId} is held by the live child`).toBeUndefined();

      child.kill('SIGKILL');
      await once(child, 'exit');
      expect(child.signalCode).toBe('SIGKILL');

      // Polled: each lease lapses within one TTL of the kill (at most 400 × 25 ms here).
      const taken = [];
      for (const taskId of tasks) {
        taken.push(await eventually(() => survivor.lease(key(taskId), 'survivor'), (lease) => lease !== undefined, 400));
      }
      expect(taken.map((lease) => lease?.owner)).toEqual(['survivor', 'survivor', 'survivor']);
    }, 40_000);
  });
});
