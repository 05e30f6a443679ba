import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryTaskStore, type LeasingTaskStore, type StoreLease, type TaskRecord } from '../src/index.js';
import { rpcResult, startScriptedAgent, T, task, taskFrame, within, type ScriptedAgent } from './helpers/scripted-agent.js';

// Several processes sharing a store that leases tasks (issue 7): the engine drives a task only while it
// holds the task's lease — taken by start() and resume(), renewed, released at the end; resumeAll()
// skips tasks another owner holds; a lost lease stops the follow.

/** Memory records plus leases on the test's clock (what the Redis store does with SET NX PX). */
class LeasingMemoryStore extends MemoryTaskStore implements LeasingTaskStore {
  readonly holders = new Map<string, { owner: string; until: number }>();
  renewals = 0;
  refuseRenewals = false;
  constructor(private readonly now: () => number) {
    super();
  }
  lease(taskId: string, owner: string, ttlMs = 30_000): Promise<StoreLease | undefined> {
    const held = this.holders.get(taskId);
    if (held && held.owner !== owner && held.until > this.now()) return Promise.resolve(undefined);
    this.holders.set(taskId, { owner, until: this.now() + ttlMs });
    const lease: StoreLease = {
      renew: (ttl = ttlMs) => {
        this.renewals++;
        const current = this.holders.get(taskId);
        if (this.refuseRenewals || current?.owner !== owner || current.until <= this.now()) return Promise.resolve(false);
        current.until = this.now() + ttl;
        return Promise.resolve(true);
      },
      release: () => {
        if (this.holders.get(taskId)?.owner === owner) this.holders.delete(taskId);
        return Promise.resolve(true);
      },
    };
    return Promise.resolve(lease);
  }
}

let agent: ScriptedAgent;
beforeEach(async () => {
  agent = await startScriptedAgent();
  agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], false);
  agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 2))], false);
  agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 2));
});
afterEach(async () => {
  await agent.close();
});

describe('leases: one process drives a task', () => {
  it('start() takes the lease and renews it; another client skips the task, and resume() says LEASE_HELD', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const a = await agent.client({ store, leaseOwner: 'process-a', leaseMs: 3_000 });
    const handle = await a.start('go');
    expect(store.holders.get(T)?.owner).toBe('process-a');
    await agent.clock.advance(10_000);
    expect(store.renewals).toBeGreaterThanOrEqual(3); // every third of the TTL
    expect(store.holders.get(T)?.owner).toBe('process-a');

    const b = await agent.client({ store, leaseOwner: 'process-b', leaseMs: 3_000 });
    expect(await b.resumeAll()).toEqual([]);
    await expect(b.resume(T)).rejects.toMatchObject({ code: 'LEASE_HELD', taskId: T, maybeDelivered: false });
    // resumeAll() in the process that drives it does not follow it twice.
    expect(await a.resumeAll()).toEqual([]);

    // A stops (detach, or a clean shutdown): the lease is released and B takes the task over.
    handle.detach();
    await agent.clock.advance(10);
    expect(store.holders.has(T)).toBe(false);
    const [taken] = await b.resumeAll();
    expect(taken?.taskId).toBe(T);
    expect(store.holders.get(T)?.owner).toBe('process-b');
    taken?.detach();
  });

  it('a process that stops renewing (dead) loses the task after one TTL; another takes it', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const record: TaskRecord = { schemaVersion: 1, taskId: T, contextId: 'ctx', agentUrl: '', state: 'working', createdAt: 0, updatedAt: 0, delivery: 'stream' };
    const b = await agent.client({ store, leaseOwner: 'process-b', leaseMs: 3_000 });
    await store.put({ ...record, agentUrl: b.cardUrl });
    // A dead process's lease: taken, never renewed.
    await store.lease(T, 'dead-process', 3_000);
    expect(await b.resumeAll()).toEqual([]);
    await agent.clock.advance(3_001);
    const [taken] = await b.resumeAll();
    expect(taken?.taskId).toBe(T);
    taken?.detach();
  });

  it('a lost lease stops the follow with LEASE_HELD (the other process drives the task now)', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const a = await agent.client({ store, leaseOwner: 'process-a', leaseMs: 3_000 });
    const handle = await a.start('go');
    store.refuseRenewals = true;
    const error = await within(agent.clock, handle.done()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LEASE_HELD', taskId: T });
    const subscribes = agent.count('SubscribeToTask');
    await agent.clock.advance(60_000);
    expect(agent.count('SubscribeToTask')).toBe(subscribes); // nothing more from this process
  });

  it('a task that just ended is not taken again by its own process while its final record is still being written', async () => {
    let stream: ServerResponse | undefined;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      stream = res;
      agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    };
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 2));
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const a = await agent.client({ store, leaseOwner: 'process-a', leaseMs: 3_000 });
    const handle = await a.start('go');
    // From here on the shared store writes slowly (a loaded Redis): the record still says "working"
    // for a while after the follow ended.
    let land!: () => void;
    const landed = new Promise<void>((resolve) => (land = resolve));
    const update = store.update.bind(store);
    store.update = async (taskId, change) => {
      await landed;
      return update(taskId, change);
    };
    stream?.end(taskFrame(task('COMPLETED', 2)));
    await within(agent.clock, handle.done());
    expect((await store.get(T))?.outcome).toBeUndefined(); // the final write has not landed yet
    // The process looks for work at once (as a worker's resumeAll() loop does): the task it just
    // finished is not work — it must not follow it (and finish it) a second time.
    const again = await a.resumeAll();
    expect(again.map((h) => h.taskId)).toEqual([]);
    land();
    await handle.flush();
    expect((await store.get(T))?.outcome).toMatchObject({ kind: 'finished', state: 'completed' });
  });
});

