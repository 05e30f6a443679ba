import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS, MemoryTaskStore, taskKey, TaskNotFoundError, TetherError, type TaskEvent, type TaskRecord, type TaskStore } from '../src/index.js';
import {
  chunkFrame,
  record,
  rpcError,
  rpcResult,
  startScriptedAgent,
  statusFrame,
  T,
  task,
  taskFrame,
  within,
  type ScriptedAgent,
} from './helpers/scripted-agent.js';

// Records outlive their task (issue 7): a finished task keeps its record — final state, outcome, the
// cancel asked for and what was seen — until its retention ends; a lost task is marked lost; a store
// write that fails is surfaced; a record carries the principal that started it.

let agent: ScriptedAgent;
beforeEach(async () => {
  agent = await startScriptedAgent();
});
afterEach(async () => {
  await agent.close();
});

/** A store that fails the writes `failing` says, and passes the rest to memory. */
function flakyStore(failing: { put?: boolean; update?: boolean }): TaskStore & { records: MemoryTaskStore } {
  const records = new MemoryTaskStore();
  return {
    records,
    get: (id) => records.get(id),
    put: (r: TaskRecord) => (failing.put ? Promise.reject(new Error('disk full')) : records.put(r)),
    update: (id, change) => (failing.update ? Promise.reject(new Error('disk full')) : records.update(id, change)),
    list: (filter) => records.list(filter),
    delete: (id) => records.delete(id),
  };
}

describe('records outlive their task', () => {
  it('a finished task keeps its record (final state, outcome) until its retention ends', async () => {
    const store = new MemoryTaskStore();
    agent.handlers['SendStreamingMessage'] = (_rpc, res) =>
      agent.sse(res, [taskFrame(task('WORKING', 1)), chunkFrame('done', false, true), statusFrame('COMPLETED', 2)], true);
    const client = await agent.client({ store, retentionMs: 60_000 });
    const handle = await client.start('go');
    await within(agent.clock, handle.done());
    await handle.flush();
    const kept = await store.get(agent.key());
    expect(kept).toMatchObject({ taskId: T, state: 'completed', outcome: { kind: 'finished', state: 'completed' } });
    expect(kept?.expiresAt).toBe((kept?.outcome?.at ?? Number.NaN) + 60_000);
    // Listed (not active), and not resumed by resumeAll().
    expect((await client.tasks()).map((r) => r.taskId)).toEqual([T]);
    expect(await store.list({ active: true })).toEqual([]);
    expect(await client.resumeAll()).toEqual([]);
    // Past its retention the record goes.
    await agent.clock.advance(60_001);
    expect(await client.tasks()).toEqual([]);
    expect(await store.get(agent.key())).toBeUndefined();
  });

  it('the default retention is documented in DEFAULTS (7 days)', () => {
    expect(DEFAULTS.retentionMs).toBe(7 * 24 * 60 * 60_000);
  });

  it('a cancel is recorded: who, why, when, requested and what was then seen', async () => {
    const store = new MemoryTaskStore();
    let stream: ServerResponse | undefined;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      stream = res;
      agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    };
    agent.handlers['CancelTask'] = (rpc, res) => {
      rpcResult(res, rpc, task('CANCELED', 2));
      // The open stream shows the cancellation too: only that confirms it.
      stream?.end(statusFrame('CANCELED', 2));
    };
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('CANCELED', 2));
    const client = await agent.client({ store, principal: 'alice' });
    const handle = await client.start('go');
    const outcome = await within(agent.clock, handle.cancel({ reason: 'user left' }));
    expect(outcome).toEqual({ requested: true, confirmed: true, state: 'canceled' });
    await handle.flush();
    const kept = await store.get(agent.key());
    expect(kept?.cancel).toMatchObject({ reason: 'user left', by: 'alice', confirmed: true, seenState: 'canceled' });
    expect(typeof kept?.cancel?.requestedAt).toBe('number');
    expect(kept?.outcome).toMatchObject({ kind: 'finished', state: 'canceled' });
  });

  it('a task the agent no longer knows is marked lost, not left working', async () => {
    const store = new MemoryTaskStore();
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], true);
    agent.handlers['SubscribeToTask'] = (rpc, res) => rpcError(res, rpc, -32001, 'no such task');
    agent.handlers['GetTask'] = (rpc, res) => rpcError(res, rpc, -32001, 'no such task');
    const client = await agent.client({ store });
    const handle = await client.start('go');
    const error = await within(agent.clock, handle.done()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TaskNotFoundError);
    await handle.flush();
    expect(await store.get(agent.key())).toMatchObject({ state: 'working', outcome: { kind: 'lost' } });
    expect(await store.list({ active: true })).toEqual([]);
    expect(await client.resumeAll()).toEqual([]);
  });

  it('a task that gave up stays active (resumable), with the error recorded', async () => {
    const store = new MemoryTaskStore();
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], true);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => res.destroy();
    agent.handlers['GetTask'] = (_rpc, res) => res.destroy();
    const client = await agent.client({ store, resilience: { maxAttempts: 2 } });
    const handle = await client.start('go');
    const error = await within(agent.clock, handle.done()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RETRY_EXHAUSTED' });
    await handle.flush();
    const kept = await store.get(agent.key());
    expect(kept?.outcome).toBeUndefined();
    expect(kept?.lastError).toMatchObject({ code: 'RETRY_EXHAUSTED' });
    expect((await store.list({ active: true })).map((r) => r.taskId)).toEqual([T]);
  });
});

describe('store failures are surfaced, never swallowed', () => {
  it('the write start() waits on (G1) fails: start() rejects with STORE_WRITE_FAILED naming the task', async () => {
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    const client = await agent.client({ store: flakyStore({ put: true }) });
    const error = await within(agent.clock, client.start('go')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'STORE_WRITE_FAILED', taskId: T, maybeDelivered: true });
    expect((error as TetherError).message).toContain('disk full');
  });

  it('a later write fails: a store-error event, flush() rejects, and the follow goes on', async () => {
    const store = flakyStore({ update: true });
    let stream: ServerResponse | undefined;
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => {
      stream = res;
      agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    };
    const client = await agent.client({ store });
    const handle = await client.start('go');
    const events: TaskEvent[] = record(handle);
    // `working` is written after the first record: that write fails.
    await vi.waitFor(() => expect(events.some((e) => e.type === 'store-error')).toBe(true));
    stream?.end(chunkFrame('done', false, true) + statusFrame('COMPLETED', 2));
    const final = await within(agent.clock, handle.done());
    expect(final.status.state).toBe('completed');
    expect(events.find((e) => e.type === 'store-error')).toMatchObject({ type: 'store-error', error: { code: 'STORE_WRITE_FAILED', taskId: T } });
    await expect(handle.flush()).rejects.toMatchObject({ code: 'STORE_WRITE_FAILED' });
  });
});

describe('principals', () => {
  it('a record keeps the principal that started it; another principal cannot resume it', async () => {
    const store = new MemoryTaskStore();
    agent.handlers['SendStreamingMessage'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 1))], false);
    agent.handlers['SubscribeToTask'] = (_rpc, res) => agent.sse(res, [taskFrame(task('WORKING', 2)), chunkFrame('ok', false, true), statusFrame('COMPLETED', 3)], true);
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, task('COMPLETED', 3, { chunks: ['ok'] }));
    const alice = await agent.client({ store, principal: 'alice' });
    const handle = await alice.start('go');
    handle.detach();
    expect(await store.get(agent.key())).toMatchObject({ principal: 'alice' });

    const bob = await agent.client({ store, principal: 'bob' });
    const error = await bob.resume(T).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PRINCIPAL_MISMATCH', taskId: T, maybeDelivered: false });
    expect(await bob.resumeAll()).toEqual([]);
    expect(await bob.tasks()).toEqual([]);

    const again = await agent.client({ store, principal: 'alice' });
    const [resumed] = await again.resumeAll();
    expect(resumed?.taskId).toBe(T);
    expect((await within(agent.clock, resumed!.done())).status.state).toBe('completed');
  });
});

describe('a store that is not one', () => {
  it('connect() refuses it at once, and says when it is an un-awaited promise', async () => {
    const pending = Promise.resolve(new MemoryTaskStore());
    const error = await agent.client({ store: pending as unknown as TaskStore }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', maybeDelivered: false });
    expect((error as Error).message).toContain('await the store factory');
  });
});

describe('the memory store stays bounded', () => {
  it('keeps at most maxFinishedRecords finished records (oldest go first); live ones are never evicted', async () => {
    const store = new MemoryTaskStore({ maxFinishedRecords: 3 });
    const base = { schemaVersion: 1, contextId: 'c', agentUrl: 'a', createdAt: 0, updatedAt: 0 };
    await store.put({ ...base, taskId: 'live', state: 'working' });
    for (let i = 0; i < 6; i++) await store.put({ ...base, taskId: `done-${i}`, state: 'completed', outcome: { kind: 'finished', state: 'completed', at: i } });
    expect((await store.list()).map((r) => r.taskId).sort()).toEqual(['done-3', 'done-4', 'done-5', 'live']);
    // A record that finishes later counts from then.
    await store.update(taskKey('a', 'live'), (r) => (r ? { ...r, state: 'completed' } : r));
    expect((await store.list()).map((r) => r.taskId).sort()).toEqual(['done-4', 'done-5', 'live']);
  });
});
