import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryTaskStore, TetherError, type A2AClient, type LifecycleEvent, type LeasingTaskStore, type StoreLease, type StoreWriteOptions, type TaskRecord } from '../src/index.js';
import { record, rpcResult, startScriptedAgent, T, task, taskFrame, within, type ScriptedAgent } from './helpers/scripted-agent.js';

// Several processes sharing a store that leases tasks (issue 7): the engine drives a task only while it
// holds the task's lease — taken by start() and resume(), renewed, released at the end; resumeAll()
// skips tasks another owner holds; a lost lease stops the follow.

/** The task id of a store key (`taskKey(agentUrl, taskId)`): the tests' stores see one agent, so leases and calls go by it. */
const idOf = (key: string): string => (JSON.parse(key) as [string, string])[1];

/**
 * Memory records plus leases on the test's clock (what the Redis store does with SET NX PX): each
 * acquire gets a new fencing token, and a write fenced with an older token than the current lease's is
 * refused with LEASE_LOST, as the Redis store's Lua compare does.
 */
class LeasingMemoryStore extends MemoryTaskStore implements LeasingTaskStore {
  readonly holders = new Map<string, { owner: string; until: number; fence: number }>();
  /** The fencing token of each task's latest lease. */
  readonly fences = new Map<string, number>();
  /** Every call, in order: `lease <id>`, `put <id> <fence>`, `update <id> <fence>`, `refused <id> <fence>`. */
  readonly calls: string[] = [];
  renewals = 0;
  refuseRenewals = false;
  /** A partition: renewals never answer (a client whose commands wait in an offline queue). */
  hangRenewals = false;
  constructor(
    private readonly now: () => number,
    private readonly ttlMs = 3_000,
  ) {
    super();
  }
  lease(key: string, owner: string): Promise<StoreLease | undefined> {
    const taskId = idOf(key);
    this.calls.push(`lease ${taskId}`);
    const held = this.holders.get(taskId);
    if (held && held.owner !== owner && held.until > this.now()) return Promise.resolve(undefined);
    const fence = (this.fences.get(taskId) ?? 0) + 1;
    this.fences.set(taskId, fence);
    this.holders.set(taskId, { owner, until: this.now() + this.ttlMs, fence });
    const lease: StoreLease = {
      fence,
      ttlMs: this.ttlMs,
      renew: () => {
        this.renewals++;
        if (this.hangRenewals) return new Promise<boolean>(() => undefined);
        const current = this.holders.get(taskId);
        if (this.refuseRenewals || current?.fence !== fence || current.until <= this.now()) return Promise.resolve(false);
        current.until = this.now() + this.ttlMs;
        return Promise.resolve(true);
      },
      release: () => {
        if (this.holders.get(taskId)?.fence === fence) this.holders.delete(taskId);
        return Promise.resolve(true);
      },
    };
    return Promise.resolve(lease);
  }
  leaseHolder(key: string): Promise<string | undefined> {
    const held = this.holders.get(idOf(key));
    return Promise.resolve(held && held.until > this.now() ? held.owner : undefined);
  }
  private fenced(taskId: string, options: StoreWriteOptions | undefined, what: string): void {
    const fence = options?.fence;
    if (fence !== undefined && fence < (this.fences.get(taskId) ?? 0)) {
      this.calls.push(`refused ${taskId} ${fence}`);
      throw new TetherError('LEASE_LOST', `write of ${taskId} with fence ${fence} refused`, { taskId });
    }
    this.calls.push(`${what} ${taskId} ${fence ?? '-'}`);
  }
  override put(record: TaskRecord, options?: StoreWriteOptions): Promise<void> {
    try {
      this.fenced(record.taskId, options, 'put');
    } catch (error) {
      return Promise.reject(error);
    }
    return super.put(record);
  }
  override update(key: string, change: (current: TaskRecord | undefined) => TaskRecord | undefined, options?: StoreWriteOptions): Promise<TaskRecord | undefined> {
    try {
      this.fenced(idOf(key), options, 'update');
    } catch (error) {
      return Promise.reject(error);
    }
    return super.update(key, change);
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
    const a = await agent.client({ store, leaseOwner: 'process-a' });
    const handle = await a.start('go');
    expect(store.holders.get(T)?.owner).toBe('process-a');
    await agent.clock.advance(10_000);
    expect(store.renewals).toBeGreaterThanOrEqual(3); // every quarter of the TTL
    expect(store.holders.get(T)?.owner).toBe('process-a');

    const b = await agent.client({ store, leaseOwner: 'process-b' });
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
    const b = await agent.client({ store, leaseOwner: 'process-b' });
    await store.put({ ...record, agentUrl: b.cardUrl });
    // A dead process's lease: taken, never renewed.
    await store.lease(agent.key(), 'dead-process');
    expect(await b.resumeAll()).toEqual([]);
    await agent.clock.advance(3_001);
    const [taken] = await b.resumeAll();
    expect(taken?.taskId).toBe(T);
    taken?.detach();
  });

  it('a refused renewal stops the follow with LEASE_LOST (the other process drives the task now)', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const a = await agent.client({ store, leaseOwner: 'process-a' });
    const handle = await a.start('go');
    store.refuseRenewals = true;
    const error = await within(agent.clock, handle.done()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'LEASE_LOST', taskId: T });
    const subscribes = agent.count('SubscribeToTask');
    await agent.clock.advance(60_000);
    expect(agent.count('SubscribeToTask')).toBe(subscribes); // nothing more from this process
  });

  it('lifecycle: the lease taken (with its fencing token) and lost (with why) are events of the task', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`), debug: () => undefined };
    const a = await agent.client({ store, leaseOwner: 'process-a', log });
    const events: LifecycleEvent[] = [];
    a.observe((event) => events.push(event));
    await new Promise((resolve) => setTimeout(resolve, 0)); // the observers' code loads with the engine
    const handle = await a.start('go');
    store.refuseRenewals = true;
    await within(agent.clock, handle.done()).catch(() => undefined);
    const leases = events.filter((e): e is Extract<LifecycleEvent, { type: 'lease' }> => e.type === 'lease');
    expect(leases.map((e) => [e.change, e.taskId])).toEqual([
      ['taken', T],
      ['lost', T],
    ]);
    expect(leases[0]?.fence).toBe(store.fences.get(T));
    expect(leases[1]?.reason).toMatch(/lease/i);
    // The debug log says both: taken at info with the token, lost at warn with why.
    expect(lines).toContain(`info [tether] task ${T} lease taken (fence ${String(store.fences.get(T))})`);
    expect(lines.some((l) => l.startsWith(`warn [tether] task ${T} lease lost: `))).toBe(true);
  });

  it('a process cut off from the store (renewals never answer) stops driving within two thirds of the TTL, before another can take the task', async () => {
    let streamClosed = false;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      res.on('close', () => (streamClosed = true));
      agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    };
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const a = await agent.client({ store, leaseOwner: 'process-a' });
    const handle = await a.start('go');
    const startedAt = agent.clock.now();
    store.hangRenewals = true;
    let endedAt: number | undefined;
    const outcome = handle.done().then(
      () => 'done',
      (error: unknown) => {
        endedAt = agent.clock.now();
        return error;
      },
    );
    // Step the clock: the follow must stop on its own (no renewal confirmed), not wait for the store.
    for (let i = 0; i < 40 && endedAt === undefined; i++) await agent.clock.advance(100);
    expect(await outcome).toMatchObject({ code: 'LEASE_LOST', taskId: T, maybeDelivered: false });
    // Stopped before the lease could lapse in the store (one TTL after the last renewal sent).
    expect((endedAt ?? Infinity) - startedAt).toBeLessThan(3_000);
    // Its stream is closed (the agent sees it go), and nothing more comes from this process, nor a write.
    for (let i = 0; i < 100 && !streamClosed; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(streamClosed).toBe(true);
    const requests = agent.calls.length;
    const writes = store.calls.length;
    await agent.clock.advance(60_000);
    expect(agent.calls.length).toBe(requests);
    expect(store.calls.slice(writes)).toEqual([]);
  });

  it('writes carry the lease\'s fencing token: a former holder cannot overwrite its successor\'s record', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const a = await agent.client({ store, leaseOwner: 'process-a' });
    const handle = await a.start('go');
    await agent.clock.advance(10);
    expect(store.calls.filter((c) => c.startsWith('put') || c.startsWith('update')).every((c) => c.endsWith(' 1'))).toBe(true);
    // A pauses (its renewals go nowhere) and B takes the task over once the lease lapsed.
    store.hangRenewals = true;
    const failed = handle.done().catch((error: unknown) => error);
    store.holders.delete(T);
    const b = await agent.client({ store, leaseOwner: 'process-b' });
    const [taken] = await b.resumeAll();
    expect(taken?.taskId).toBe(T);
    expect(store.fences.get(T)).toBe(2);
    // A's late write (a cancel it asked for before noticing) is refused by the store, not applied.
    await handle.cancel({ waitMs: 0 }).catch(() => undefined);
    await agent.clock.advance(5_000);
    expect(await failed).toMatchObject({ code: 'LEASE_LOST' });
    expect(store.calls).toContain(`refused ${T} 1`);
    expect((await store.get(agent.key()))?.cancel).toBeUndefined();
    taken?.detach();
  });

  it('start() takes the lease before the task\'s record is first written (no other process can find the task unleased)', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const a = await agent.client({ store, leaseOwner: 'process-a' });
    const handle = await a.start('go');
    expect(store.calls[0]).toBe(`lease ${T}`);
    expect(store.calls[1]).toBe(`put ${T} 1`);
    handle.detach();
  });

  it('start() fails with LEASE_HELD, writing nothing, when another process already holds the new task\'s lease', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    await store.lease(agent.key(), 'someone-else');
    const a = await agent.client({ store, leaseOwner: 'process-a' });
    await expect(a.start('go')).rejects.toMatchObject({ code: 'LEASE_HELD', taskId: T });
    expect(await store.get(agent.key())).toBeUndefined();
  });

  // Issue 20: a lease taken by hand in this process (as an old docs snippet did) was blamed on
  // "another process". The message names the holder beside this client's owner, and what to do.
  it('LEASE_HELD names the holder and this client, and says what to do', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const a = await agent.client({ store, leaseOwner: 'process-a' });
    await a.start('go');
    await store.lease(agent.key(), 'worker-1:4242'); // refused (A holds it), as would be the app's hand-taken lease
    const b = await agent.client({ store, leaseOwner: 'process-b' });
    const error = await b.resume(T).catch((e: unknown) => e as TetherError);
    expect(error).toMatchObject({ code: 'LEASE_HELD', taskId: T });
    expect(error.message).toMatch(/^task \S+ is leased by owner "process-a", not this client \("process-b"\): the engine leases tasks itself \(never call store\.lease\(\) for it\)/);
    expect(error.message).not.toContain('another process');

    // The hand-taken lease of the old snippet: the engine's own start() is refused, naming it.
    const fresh = new LeasingMemoryStore(() => agent.clock.now());
    await fresh.lease(agent.key(), 'my-app');
    const c = await agent.client({ store: fresh, leaseOwner: 'process-c' });
    await expect(c.start('go')).rejects.toThrow(/leased by owner "my-app", not this client \("process-c"\)/);

    // A store that cannot say who holds the lease.
    const anonymous = new LeasingMemoryStore(() => agent.clock.now());
    Object.defineProperty(anonymous, 'leaseHolder', { value: undefined });
    await anonymous.lease(agent.key(), 'my-app');
    const d = await agent.client({ store: anonymous, leaseOwner: 'process-d' });
    await expect(d.start('go')).rejects.toThrow(/leased by another owner, not this client \("process-d"\)/);
  });

  /**
   * A store holding task T as `working` for client B, whose `list()` returns that record and then — as
   * another process would between the list and B's lease — replaces it with `meanwhile`.
   */
  async function listedThenChanged(meanwhile: Partial<TaskRecord>): Promise<{ store: LeasingMemoryStore; b: A2AClient }> {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const b = await agent.client({ store, leaseOwner: 'process-b' });
    const record: TaskRecord = { schemaVersion: 1, taskId: T, contextId: 'ctx', agentUrl: b.cardUrl, state: 'working', createdAt: 0, updatedAt: 0, delivery: 'stream' };
    await store.put(record);
    const list = store.list.bind(store);
    store.list = async (filter) => {
      const found = await list(filter);
      await store.put({ ...record, ...meanwhile });
      return found;
    };
    return { store, b };
  }

  it('resumeAll() does not follow a task another process finished after the list was read', async () => {
    const { store, b } = await listedThenChanged({ state: 'completed', outcome: { kind: 'finished', state: 'completed', at: 1 } });
    expect(await b.resumeAll()).toEqual([]);
    expect(agent.count('SubscribeToTask') + agent.count('GetTask')).toBe(0);
    expect(store.holders.has(T)).toBe(false);
  });

  it('a task whose driver saw it end but whose outcome write was fenced out gets its outcome from the next holder', async () => {
    // The driver's state write landed; its outcome write did not (it will be refused: B's lease fences it).
    const { store, b } = await listedThenChanged({ state: 'completed' });
    expect(await b.resumeAll()).toEqual([]);
    expect(agent.count('SubscribeToTask') + agent.count('GetTask')).toBe(0);
    expect(await store.get(agent.key())).toMatchObject({ state: 'completed', outcome: { kind: 'finished', state: 'completed' } });
    expect((await store.get(agent.key()))?.expiresAt).toBeGreaterThan(agent.clock.now());
    expect(store.calls).toContain(`update ${T} 1`);
    expect(store.holders.has(T)).toBe(false);
  });

  it('connect() refuses leaseMs: the lease TTL is the store\'s one option', async () => {
    const store = new LeasingMemoryStore(() => agent.clock.now());
    await expect(agent.client({ store, ...({ leaseMs: 3_000 } as object) })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('a task that just ended is not taken again by its own process while its final record is still being written', async () => {
    let stream: ServerResponse | undefined;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      stream = res;
      agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    };
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 2));
    const store = new LeasingMemoryStore(() => agent.clock.now());
    const a = await agent.client({ store, leaseOwner: 'process-a' });
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
    const events = record(handle);
    stream?.end(taskFrame(task('COMPLETED', 2)));
    // The follow ended (done() waits for the final write: issue 16), the record still says "working".
    await within(agent.clock, vi.waitFor(() => expect(events.at(-1)).toEqual({ type: 'connection', state: 'closed' })));
    expect((await store.get(agent.key()))?.outcome).toBeUndefined(); // the final write has not landed yet
    // The process looks for work at once (as a worker's resumeAll() loop does): the task it just
    // finished is not work — it must not follow it (and finish it) a second time.
    const again = await a.resumeAll();
    expect(again.map((h) => h.taskId)).toEqual([]);
    land();
    await within(agent.clock, handle.done());
    expect((await store.get(agent.key()))?.outcome).toMatchObject({ kind: 'finished', state: 'completed' });
  });
});

