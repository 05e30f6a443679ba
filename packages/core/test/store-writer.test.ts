import { ManualScheduler } from '@a2a-tether/testkit';
import { describe, expect, it } from 'vitest';
import { TetherError } from '../src/errors/tether-error.js';
import { MemoryTaskStore } from '../src/store/memory-task-store.js';
import { TASK_RECORD_VERSION, type TaskRecord } from '../src/store/task-store.js';
import { StoreWriter } from '../src/task/store-writer.js';
import { taskKey } from '../src/store/task-key.js';

const record: TaskRecord = { schemaVersion: TASK_RECORD_VERSION, taskId: 't', contextId: 'c', agentUrl: 'a', state: 'working', createdAt: 0, updatedAt: 0 };

/** A memory store whose updates fail with `error` while `down` is true. */
class FlakyStore extends MemoryTaskStore {
  down = false;
  updates = 0;
  constructor(private readonly error: () => TetherError) {
    super();
  }
  override update(taskId: string, change: (current: TaskRecord | undefined) => TaskRecord | undefined): Promise<TaskRecord | undefined> {
    this.updates++;
    if (this.down) return Promise.reject(this.error());
    return super.update(taskId, change);
  }
}

const unavailable = (): TetherError => new TetherError('STORE_UNAVAILABLE', 'Redis is down', { isRetryable: true });

async function writer(store: FlakyStore): Promise<{ w: StoreWriter; clock: ManualScheduler; failures: string[] }> {
  const clock = new ManualScheduler();
  const failures: string[] = [];
  const w = new StoreWriter(store, { agentUrl: 'a', taskId: 't' }, { scheduler: clock, onFailure: (e) => failures.push(e.code) });
  await w.put(record);
  return { w, clock, failures };
}

describe('StoreWriter through a store outage', () => {
  it('a change whose write failed retryably is written once the store is back, with the changes made meanwhile', async () => {
    const store = new FlakyStore(unavailable);
    const { w, clock, failures } = await writer(store);
    store.down = true;
    w.update({ state: 'completed' });
    await clock.advance(0);
    w.update({ outcome: { kind: 'finished', state: 'completed', at: 1 } });
    await clock.advance(2_000);
    expect(store.updates).toBeGreaterThan(1);
    store.down = false;
    await clock.advance(5_000);
    await w.flush();
    expect(await store.get(taskKey('a', 't'))).toMatchObject({ state: 'completed', outcome: { kind: 'finished' } });
    // Told once, when the store first failed; not given up.
    expect(failures).toEqual(['STORE_UNAVAILABLE']);
  });

  it('gives a change up after its retry window (30 s), reporting it, and flush() rejects with it', async () => {
    const store = new FlakyStore(unavailable);
    const { w, clock, failures } = await writer(store);
    store.down = true;
    w.update({ state: 'completed' });
    for (let i = 0; i < 40; i++) await clock.advance(1_000);
    await expect(w.flush()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(failures).toEqual(['STORE_UNAVAILABLE', 'STORE_UNAVAILABLE']);
    const tries = store.updates;
    // Bounded: the backoff doubles to 4 s, so 30 s hold at most about a dozen tries.
    expect(tries).toBeLessThanOrEqual(14);
    await clock.advance(60_000);
    expect(store.updates).toBe(tries);
    expect((await store.get(taskKey('a', 't')))?.state).toBe('working');
  });

  for (const code of ['LEASE_LOST', 'STORE_WRITE_FAILED'] as const) {
    it(`does not retry a write refused for good (${code})`, async () => {
      const store = new FlakyStore(() => new TetherError(code, 'refused'));
      const { w, clock, failures } = await writer(store);
      store.down = true;
      w.update({ state: 'completed' });
      await clock.advance(60_000);
      expect(store.updates).toBe(1);
      expect(failures).toEqual([code]);
      await expect(w.flush()).rejects.toMatchObject({ code });
    });
  }
});
