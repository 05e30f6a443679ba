import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectWithParts, MemoryTaskStore, type LeasingTaskStore, type PushChannel, type StoreLease } from '../src/index.js';
import { rpcResult, startScriptedAgent, T, task, within, type ScriptedAgent } from './helpers/scripted-agent.js';

// The engine's push and lease runners are parts `connect()` hands the engine (issue 17): core's and
// Node's connect hand both; the browser's hands neither (so its bundle holds neither), and then
// refuses, with a clear error, the options that would need them — it never follows a task half-armed.

const receiver: PushChannel = { expect: () => undefined, forget: () => undefined, subscribe: () => () => undefined };

/** A store that says it leases tasks (only `lease` matters here). */
class LeasingStore extends MemoryTaskStore implements LeasingTaskStore {
  lease(): Promise<StoreLease | undefined> {
    return Promise.resolve({ fence: 1, ttlMs: 30_000, renew: () => Promise.resolve(true), release: () => Promise.resolve(true) });
  }
}

let agent: ScriptedAgent;
beforeEach(async () => {
  agent = await startScriptedAgent();
});
afterEach(async () => {
  await agent.close();
});

describe('engine parts', () => {
  it('without the push part, connect refuses push delivery with a clear error', async () => {
    const refused = connectWithParts({}, agent.server.url, { push: { receiver, url: 'https://me.example/hook' } });
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('@a2a-tether/node') });
  });

  it('without the lease part, connect refuses a store that leases tasks', async () => {
    const refused = connectWithParts({}, agent.server.url, { store: new LeasingStore() });
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('leases') });
  });

  it('without either part, a task is followed to its end as usual', async () => {
    agent.handlers['SendMessage'] = (rpc, res) => rpcResult(res, rpc, task('WORKING', 1));
    let gets = 0;
    agent.handlers['GetTask'] = (rpc, res) => rpcResult(res, rpc, ++gets >= 2 ? task('COMPLETED', 3) : task('WORKING', 1));
    const client = await connectWithParts({}, agent.server.url, { cardCache: false, scheduler: agent.clock, random: () => 0.5 });
    const handle = await client.start('hi', { delivery: 'poll' });
    expect((await within(agent.clock, handle.done())).status.state).toBe('completed');
    expect(agent.count('GetTask')).toBe(2);
    expect(handle.taskId).toBe(T);
  });
});
