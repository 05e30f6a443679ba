// Task ids belong to their agent (issue 33 point 3, G11): two agents that both name their task "1" get two
// records in every store of this package — both followed to the end, both taken up by resumeAll(), both
// tasks' pushes delivered — and records of the layout before (filed by the task id alone) move to the new
// key when the store opens or lists.
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFileTaskStore, taskKey, TASK_RECORD_VERSION, type TaskRecord } from '../src/index.js';
import { createRedisTaskStore, type RedisTaskStore } from '../src/redis-entry.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';
import { bothTasksThroughOneStore, pushHook, twoNaiveAgents, type Cleanups } from './helpers/two-agents.js';

requireRedis('the Redis store’s two agents with one task id');

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});
async function freshDir(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tether-task-keys-'));
  roots.push(root);
  return join(root, 'tasks');
}

describe('two agents that both name their task "1": the file store', () => {
  it('two records, both followed to the end and taken up by resumeAll()', async () => {
    const agents = await twoNaiveAgents(cleanups);
    await bothTasksThroughOneStore(agents, createFileTaskStore(await freshDir()));
  });

  it('followed by push: both tasks’ pushes delivered', async () => {
    const agents = await twoNaiveAgents(cleanups);
    await bothTasksThroughOneStore(agents, createFileTaskStore(await freshDir()), await pushHook(cleanups));
  });
});

describe.skipIf(!available)('two agents that both name their task "1": the Redis store', () => {
  let redis: { url: string; process: ChildProcess };
  let count = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    redis.process.kill('SIGTERM');
    if (redis.process.exitCode === null) await once(redis.process, 'exit');
  });
  async function store(prefix: string): Promise<RedisTaskStore> {
    const created = await createRedisTaskStore({ url: redis.url, prefix });
    cleanups.push(() => created.close());
    return created;
  }

  it('two records and two leases, both followed to the end and taken up by resumeAll()', async () => {
    const agents = await twoNaiveAgents(cleanups);
    await bothTasksThroughOneStore(agents, await store(`keys${++count}:`));
  });

  it('followed by push (the store’s relay wired to the receiver): both tasks’ pushes delivered', async () => {
    const agents = await twoNaiveAgents(cleanups);
    await bothTasksThroughOneStore(agents, await store(`keys${++count}:`), await pushHook(cleanups));
  });

  it('moves records of the layout before (task:{id}, with their fence counts) under their keys: on creation, and on list()', async () => {
    const prefix = `keys${++count}:`;
    const agent = 'http://127.0.0.1:4000/.well-known/agent-card.json';
    const other = 'http://127.0.0.1:4001/.well-known/agent-card.json';
    const record = (taskId: string, agentUrl = agent, state: TaskRecord['state'] = 'working'): TaskRecord => ({
      schemaVersion: TASK_RECORD_VERSION, taskId, contextId: `ctx-${taskId}`, agentUrl, state, createdAt: 1, updatedAt: 1,
    });
    const raw = createClient({ url: redis.url });
    raw.on('error', () => undefined);
    await raw.connect();
    cleanups.push(() => raw.close());
    await raw.set(`${prefix}task:1`, JSON.stringify(record('1', agent, 'input-required')));
    await raw.set(`${prefix}fence:1`, '5');
    await raw.set(`${prefix}task:bad`, '{"schemaVersion":1,"taskId":"ba');
    await raw.sAdd(`${prefix}tasks`, ['1', 'bad', 'gone']);
    const reported: unknown[] = [];
    const s = await createRedisTaskStore({ url: redis.url, prefix, onCorrupt: (error) => reported.push(error) });
    cleanups.push(() => s.close());
    expect(await s.get(taskKey(agent, '1'))).toEqual(record('1', agent, 'input-required'));
    expect(await raw.exists(`${prefix}task:1`)).toBe(0);
    expect(await raw.sMembers(`${prefix}tasks`)).toEqual(['bad']); // a bad record stays, and is said; a gone one is dropped
    expect(reported).toHaveLength(1);
    // The fence count came along: the next lease is newer than any taken before the move.
    expect((await s.lease(taskKey(agent, '1'), 'me'))?.fence).toBe(6);
    // Another agent's "1" beside it; an old record written later moves on list(), unless its key has one.
    await s.put(record('1', other));
    await raw.set(`${prefix}task:1`, JSON.stringify(record('1', agent, 'failed')));
    await raw.set(`${prefix}task:late`, JSON.stringify(record('late')));
    await raw.sAdd(`${prefix}tasks`, ['1', 'late']);
    const listed = (await s.list()).map((r) => [r.taskId, r.agentUrl, r.state]).sort();
    expect(listed).toEqual([
      ['1', agent, 'input-required'],
      ['1', other, 'working'],
      ['late', agent, 'working'],
    ]);
    expect((await raw.keys(`${prefix}task:*`)).sort()).toEqual([`${prefix}task:bad`]);
    expect((await raw.sMembers(`${prefix}task-keys`)).sort()).toEqual([taskKey(agent, '1'), taskKey(agent, 'late'), taskKey(other, '1')].sort());
  });
});
