// Issue 33, point 5 (G14): a driver cut off from Redis whose wall clock is stepped back 60 s during the
// partition still stops driving within two thirds of the lease's TTL of *monotonic* time — so the process
// that takes the task over never drives it at the same time. Counted on the agent's side: both drivers
// poll the task (each request carries its driver's name), and no request of the cut-off driver may come
// after the first one of the driver that took over. A real redis-server; driver A reaches it through a TCP
// proxy that the test partitions (Redis and A both alive).
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { startTcpProxy, startTestAgent, type TcpProxy, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, realScheduler, type Scheduler, type TaskHandle } from '../src/index.js';
import { createRedisTaskStore, type RedisTaskStore } from '../src/redis-entry.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';

requireRedis('the stepped-clock lease test');

const LEASE_MS = 1_500;
const POLLING = { pollMinMs: 100, pollMaxMs: 100, pollFactor: 1 };

/** The real timers and monotonic clock, and a wall clock the test can step. */
function steppedScheduler(): Scheduler & { stepWall(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    monotonic: () => performance.now(),
    setTimeout: realScheduler.setTimeout,
    clearTimeout: realScheduler.clearTimeout,
    stepWall: (ms) => (offset += ms),
  };
}

/** The times (agent's clock) of the requests about `taskId` each driver made, by the `x-driver` header. */
function requestTimes(agent: TestAgent, driver: string, taskId: string): number[] {
  return agent.requests.filter((r) => r.headers['x-driver'] === driver && JSON.stringify([r.path, r.body]).includes(taskId)).map((r) => r.at);
}

describe.skipIf(!available)('a lease on a clock that does not step (G14)', () => {
  let redis: { url: string; process: ChildProcess };
  const closers: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    redis.process.kill('SIGTERM');
    if (redis.process.exitCode === null) await once(redis.process, 'exit');
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
  });

  it('wall clock stepped back 60 s during a partition: the cut-off driver stops in time, never two drivers (counted on the agent)', async () => {
    const agent = await startTestAgent({ versions: ['1.0'] });
    closers.push(() => agent.close());
    const port = Number(new URL(redis.url).port);
    const link: TcpProxy = await startTcpProxy({ target: { host: '127.0.0.1', port } });
    closers.push(() => link.close());
    const store = async (url: string): Promise<RedisTaskStore> => {
      const s = await createRedisTaskStore({ url, prefix: 'stepped:', leaseMs: LEASE_MS, commandTimeoutMs: 300 });
      closers.push(() => s.close());
      return s;
    };
    const clockA = steppedScheduler();
    const driverA = await connect(agent.url, { store: await store(`redis://${link.address}`), leaseOwner: 'driver-a', scheduler: clockA, headers: { 'x-driver': 'a' }, cardCache: false, resilience: POLLING });
    const driverB = await connect(agent.url, { store: await store(redis.url), leaseOwner: 'driver-b', headers: { 'x-driver': 'b' }, cardCache: false, resilience: POLLING });

    // About 9 s of work, polled by whoever drives it.
    const a = await driverA.start('slow steps=45 delayMs=200', { delivery: 'poll' });
    closers.push(async () => a.detach());
    const taskId = a.taskId as string;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(requestTimes(agent, 'a', taskId).length).toBeGreaterThan(1);

    // A is cut off from Redis (alive, its commands hang), and its wall clock steps back a minute.
    link.cutLink('partition');
    clockA.stepWall(-60_000);
    const partitionedAt = Date.now();
    const aEnded = a.done().then(
      () => undefined,
      (e: unknown) => e,
    );

    // B takes the task over as soon as Redis lets the lease pass.
    let taken: TaskHandle[] = [];
    for (let i = 0; i < 80 && taken.length === 0; i++) {
      taken = await driverB.resumeAll();
      if (taken.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(taken.map((h) => h.taskId)).toEqual([taskId]);
    // Let both run on for a while: a driver that went on would keep polling.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const lastOfA = Math.max(...requestTimes(agent, 'a', taskId));
    const ofB = requestTimes(agent, 'b', taskId);
    expect(ofB.length).toBeGreaterThan(0);
    expect(Math.min(...ofB)).toBeGreaterThanOrEqual(partitionedAt);
    expect(lastOfA, 'A asked the agent after B began driving the task').toBeLessThan(Math.min(...ofB));
    // A stopped by itself within two thirds of the TTL of monotonic time (not 60 s later).
    const lost = await Promise.race([aEnded, new Promise((resolve) => setTimeout(() => resolve('still driving'), 2_000))]);
    expect(lost).toMatchObject({ code: 'LEASE_LOST', taskId });

    const final = await taken[0]?.done();
    expect(final?.status.state).toBe('completed');
    expect(Math.max(...requestTimes(agent, 'a', taskId))).toBe(lastOfA);
    link.heal();
  }, 60_000);
});
