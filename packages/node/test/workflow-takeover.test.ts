// Workflows across orchestrator processes on one Redis (issue 22): a workflow is driven by the process
// holding its lease. When that process is killed (SIGKILL) mid-hop, another replica takes it over once the
// lease lapses and finishes it from its last saved state — every hop's message reaches the agent once. A
// driver cut off from Redis (a partition: alive, but its link dropped) stops by itself, and its writes are
// refused once another process holds the workflow.
import { once } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { TetherError } from '@a2a-tether/core';
import { startTcpProxy, startTestAgent, type ScenarioContext, type TcpProxy, type TestAgent } from '@a2a-tether/testkit';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../src/index.js';
import { resumeWorkflows, startWorkflow, type HopInput, type HopSpec, type WorkflowRecord } from '../src/orchestrate-entry.js';
import { createRedisTaskStore, createRedisWorkflowStore, type RedisTaskStore, type RedisWorkflowStore } from '../src/redis-entry.js';
import { bundleChild } from './helpers/bundle-child.js';
import { spawnLineChild, type LineChild } from './helpers/line-child.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';

requireRedis('the workflow takeover tests');

const LEASE_MS = 1_500;
const WAIT_MS = 30_000;
const answer = (text: string): string => `(${text})`;
const H1 = answer('research otters');
const H2 = answer(`outline ${H1}`);

interface Received {
  node: unknown;
  text: string;
  messageId: string;
  taskId: string;
}

/** The agent: records every message that starts a task; hop 2's task waits until `release()`. */
async function holdingAgent(): Promise<{ agent: TestAgent; received: Received[]; release(): void }> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const received: Received[] = [];
  const run = async (ctx: ScenarioContext): Promise<void> => {
    const node = ctx.userMessage.metadata?.['a2a-tether/node'];
    received.push({ node, text: ctx.text, messageId: ctx.userMessage.messageId, taskId: ctx.task.id });
    ctx.status('working');
    if (node === 'h2') {
      const opened = await Promise.race([gate.then(() => true), ctx.sleep(WAIT_MS).then(() => false)]);
      if (!opened) return ctx.status('failed', 'the test never released hop 2');
    }
    ctx.artifact({ artifactId: 'out', text: answer(ctx.text), lastChunk: true });
    ctx.status('completed');
  };
  return { agent: await startTestAgent({ versions: ['1.0'], scenarios: { echo: run } }), received, release };
}

function resultOf({ results }: HopInput, node: string): string {
  const text = results[node]?.text;
  if (text === undefined) throw new Error(`no result of ${node}`);
  return text;
}
const HOPS: HopSpec[] = [
  { id: 'h1', agent: 'worker', input: ({ revision }) => `research ${revision.text}` },
  { id: 'h2', agent: 'worker', dependsOn: ['h1'], input: (context) => `outline ${resultOf(context, 'h1')}` },
  { id: 'h3', agent: 'worker', dependsOn: ['h2'], input: (context) => `polish ${resultOf(context, 'h2')}` },
];

function expectEachHopOnce(received: Received[]): void {
  expect(received.map((r) => [r.node, r.text])).toEqual([
    ['h1', 'research otters'],
    ['h2', `outline ${H1}`],
    ['h3', `polish ${H2}`],
  ]);
}

describe.skipIf(!available)('workflows across processes on one Redis', () => {
  let redis: { url: string; process: ChildProcess };
  const agents: TestAgent[] = [];
  const children: LineChild[] = [];
  const closers: Array<() => Promise<unknown>> = [];
  let prefixes = 0;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    redis.process.kill('SIGTERM');
    if (redis.process.exitCode === null) await once(redis.process, 'exit');
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => child.kill()));
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    await Promise.all(agents.splice(0).map((agent) => agent.close()));
  });

  let script: Promise<string> | undefined;
  const bundled = (): Promise<string> => (script ??= bundleChild(new URL('./fixtures/workflow-replica-child.ts', import.meta.url)).then(({ script: file }) => file));

  it('a driver killed mid-hop (SIGKILL): another replica takes the workflow over once its lease lapses and finishes it; each hop sent once', async () => {
    const { agent, received, release } = await holdingAgent();
    agents.push(agent);
    const prefix = `takeover${++prefixes}:`;
    const a = spawnLineChild(await bundled(), ['start', agent.origin, redis.url, prefix, 'replica-a', String(LEASE_MS)]);
    const b = spawnLineChild(await bundled(), ['watch', agent.origin, redis.url, prefix, 'replica-b', String(LEASE_MS)]);
    children.push(a, b);
    await b.waitForLine((line) => line === 'ready', WAIT_MS, 'replica B ready');
    const running = await a.waitForLine((line) => /^event h2 running [^-]\S*$/.test(line), WAIT_MS, "hop 2's task id (replica A)");
    const h2Task = running.split(' ')[3];
    expect(received.map((r) => r.node)).toEqual(['h1', 'h2']);

    const store = await createRedisWorkflowStore({ url: redis.url, prefix, leaseMs: LEASE_MS });
    closers.push(() => store.close());
    expect(await store.leaseHolder('takeover')).toBe('replica-a');
    expect(b.lines.filter((l) => l.startsWith('took-over'))).toEqual([]); // B left it alone while A drove it

    const killedAt = Date.now();
    expect((await a.kill()).signal).toBe('SIGKILL');
    await b.waitForLine((line) => line === 'took-over takeover', WAIT_MS, 'replica B taking the workflow over');
    const tookOverAfterMs = Date.now() - killedAt;
    console.info(`replica B took the workflow over ${tookOverAfterMs} ms after replica A was killed (lease ${LEASE_MS} ms, B looks every ${LEASE_MS / 4} ms)`);
    expect(await store.leaseHolder('takeover')).toBe('replica-b');
    // B follows hop 2's task by its id (once the task's lease lapsed too): it sends nothing again.
    await b.waitForLine((line) => line === `event h2 running ${h2Task}`, WAIT_MS, "B following hop 2's task");
    release();
    await b.waitForLine((line) => line === 'done completed', WAIT_MS, 'the workflow completed by B');

    expectEachHopOnce(received);
    expect(received[1]?.taskId).toBe(h2Task);
    const record = (await store.load('takeover')) as WorkflowRecord;
    expect(record.state).toBe('completed');
    expect(Object.values(record.nodes).map((n) => [n.id, n.state, n.attempts.length])).toEqual([
      ['h1', 'completed', 1],
      ['h2', 'completed', 1],
      ['h3', 'completed', 1],
    ]);
    expect(record.ledger.map((e) => [e.node, e.outcome])).toEqual([
      ['h1', 'confirmed-success'],
      ['h2', 'confirmed-success'],
      ['h3', 'confirmed-success'],
    ]);
    // Ended: the lease is given back (once the last save is written).
    let holder = await store.leaseHolder('takeover');
    for (let i = 0; i < 50 && holder !== undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      holder = await store.leaseHolder('takeover');
    }
    expect(holder).toBeUndefined();
  }, 90_000);

  it('a driver cut off from Redis stops by itself (LEASE_LOST); the replica that takes over finishes; the former driver’s writes are refused', async () => {
    const { agent, received, release } = await holdingAgent();
    agents.push(agent);
    const prefix = `partition${++prefixes}:`;
    const port = Number(new URL(redis.url).port);
    const link: TcpProxy = await startTcpProxy({ target: { host: '127.0.0.1', port } });
    closers.push(() => link.close());
    const stores = async (url: string): Promise<{ tasks: RedisTaskStore; workflows: RedisWorkflowStore }> => {
      const tasks = await createRedisTaskStore({ url, prefix, leaseMs: LEASE_MS, commandTimeoutMs: 300 });
      const workflows = await createRedisWorkflowStore({ url, prefix, leaseMs: LEASE_MS, commandTimeoutMs: 300 });
      closers.push(() => tasks.close(), () => workflows.close());
      return { tasks, workflows };
    };
    const cutOff = await stores(`redis://${link.address}`);
    const direct = await stores(redis.url);
    const workerA = await connect(agent.url, { store: cutOff.tasks, leaseOwner: 'replica-a', cardCache: false });
    const workerB = await connect(agent.url, { store: direct.tasks, leaseOwner: 'replica-b', cardCache: false });

    const a = await startWorkflow({ id: 'split', goal: 'otters', hops: HOPS, agents: { worker: workerA }, store: cutOff.workflows, leaseOwner: 'replica-a' });
    // A second driver of the same workflow is refused while A holds it.
    const second = await startWorkflow({ id: 'split', goal: 'otters', hops: HOPS, agents: { worker: workerB }, store: direct.workflows, leaseOwner: 'replica-b' }).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(TetherError);
    expect(second).toMatchObject({ code: 'LEASE_HELD', message: expect.stringContaining('replica-a') as unknown });
    expect(await resumeWorkflows({ store: direct.workflows, leaseOwner: 'replica-b', options: () => ({ goal: 'otters', hops: HOPS, agents: { worker: workerB } }) })).toEqual([]);

    for await (const event of a.events()) if (event.type === 'node' && event.node === 'h2' && event.state === 'running') break;
    // A's lease as Redis has it: `<fence>:<owner>`.
    const raw = createClient({ url: redis.url });
    raw.on('error', () => undefined);
    await raw.connect();
    closers.push(() => raw.close());
    const [aFence, aOwner] = String(await raw.get(`${prefix}workflow-lease:split`)).split(':');
    expect(aOwner).toBe('replica-a');
    const aRecord = a.snapshot;
    link.cutLink('partition');
    // A's renewals go unanswered: it stops driving within two thirds of the TTL, before the lease can pass on.
    const lost = await a.done().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(lost).toMatchObject({ code: 'LEASE_LOST' });

    // B takes it over once the lease lapsed, follows hop 2's task, and finishes.
    let taken: Awaited<ReturnType<typeof resumeWorkflows>> = [];
    for (let i = 0; i < 100 && taken.length === 0; i++) {
      taken = await resumeWorkflows({ store: direct.workflows, leaseOwner: 'replica-b', options: () => ({ goal: 'otters', hops: HOPS, agents: { worker: workerB } }) });
      if (taken.length === 0) await new Promise((resolve) => setTimeout(resolve, LEASE_MS / 4));
    }
    expect(taken.map((w) => w.id)).toEqual(['split']);
    release();
    const summary = await taken[0]?.done();
    expect(summary?.state).toBe('completed');
    expectEachHopOnce(received);

    // The link heals: what A had in flight (held by the partition) arrives late, and A writing now is
    // refused — nothing of B's is overwritten.
    link.heal();
    const refused = await cutOff.workflows.save({ ...aRecord, state: 'failed' }, { fence: Number(aFence) }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'LEASE_LOST' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const record = (await direct.workflows.load('split')) as WorkflowRecord;
    expect(record.state).toBe('completed');
    expect(record.nodes['h3']?.state).toBe('completed');
  }, 90_000);
});
