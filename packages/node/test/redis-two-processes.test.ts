import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestAgent } from '@a2a-tether/testkit';
import { connect, type Task } from '../src/index.js';
import { bundleChild } from './helpers/bundle-child.js';
import { createRedisTaskStore } from '../src/redis-entry.js';
import { available, requireRedis, startRedis } from './helpers/redis.js';

// Issue 7: two processes sharing Redis resume the same 50 tasks; each task finishes once, driven by one
// process at a time; killing one process mid-run hands its tasks to the other (after its leases lapse).

requireRedis('the two-process Redis test');

const TASKS = 50;
const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function bundledChild(): Promise<string> {
  const { script, dir } = await bundleChild(new URL('./fixtures/redis-worker-child.ts', import.meta.url));
  roots.push(dir);
  return script;
}

interface Line {
  kind: string;
  taskId: string;
  at: number;
  rest: string;
}

function worker(script: string, args: string[]): { child: ChildProcess; lines: Line[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Line[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const [kind = '', taskId = '', time = '0', ...rest] = buffer.slice(0, at).split(' ');
      lines.push({ kind, taskId, at: Number(time), rest: rest.join(' ') });
      buffer = buffer.slice(at + 1);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

const textOf = (task: Task): string => task.artifacts.map((a) => a.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')).join('|');

describe.skipIf(!available)('two processes sharing Redis', () => {
  it(`resume the same ${TASKS} tasks: each finishes once, one driver at a time; a killed process hands its tasks over`, async () => {
    const redis = await startRedis();
    const agent = await startTestAgent({ versions: ['1.0'] });
    const prefix = `two-processes-${Date.now()}:`;
    try {
      // The tasks are started by a third client, which then goes away (releasing their leases).
      const store = await createRedisTaskStore({ url: redis.url, prefix, leaseMs: 3_000 });
      const starter = await connect(agent.origin, { store, cardCache: false, leaseOwner: 'starter' });
      const ids: string[] = [];
      for (let i = 0; i < TASKS; i++) {
        const handle = await starter.start(`slow steps=40 delayMs=100 label=r${i}`);
        ids.push(handle.taskId ?? '');
        handle.detach();
      }
      await new Promise((resolve) => setTimeout(resolve, 100)); // the detached handles release their leases

      const script = await bundledChild();
      // A starts first and B once A drives some tasks: started together, a B that happened to start faster
      // could take every task before A asked, and there would be nothing of A's to hand over.
      const a = worker(script, [agent.origin, redis.url, prefix, 'worker-a']);
      for (let i = 0; i < 750 && a.lines.filter((l) => l.kind === 'follow').length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const b = worker(script, [agent.origin, redis.url, prefix, 'worker-b']);
      // Kill A mid-run.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const killedAt = Date.now();
      a.child.kill('SIGKILL');
      await a.exited;
      expect(await b.exited).toBe(0);

      const followedByA = new Set(a.lines.filter((l) => l.kind === 'follow').map((l) => l.taskId));
      const doneByA = a.lines.filter((l) => l.kind === 'done').map((l) => l.taskId);
      const doneByB = b.lines.filter((l) => l.kind === 'done').map((l) => l.taskId);
      expect(followedByA.size).toBeGreaterThan(0);
      expect(b.lines.filter((l) => l.kind === 'failed')).toEqual([]);
      // Each task finished once: by A before it died, or by B — never by both, none left out.
      expect(doneByA.filter((id) => doneByB.includes(id))).toEqual([]);
      expect([...doneByA, ...doneByB].sort()).toEqual([...ids].sort());
      // One driver at a time: B took a task A held only after A's lease on it lapsed — because A was
      // killed, or (a machine so loaded that A missed its renewals for a whole TTL) because A lost it,
      // which stops A's follow with LEASE_HELD.
      const lostByA = new Set(a.lines.filter((l) => l.kind === 'failed' && l.rest.includes('LEASE_HELD')).map((l) => l.taskId));
      expect(a.lines.filter((l) => l.kind === 'failed' && !l.rest.includes('LEASE_HELD'))).toEqual([]);
      const unfinishedByA = [...followedByA].filter((id) => !doneByA.includes(id));
      expect(unfinishedByA.length).toBeGreaterThan(0);
      for (const id of unfinishedByA) {
        const takenByB = b.lines.find((l) => l.kind === 'follow' && l.taskId === id);
        expect(takenByB, `B never took over ${id}`).toBeDefined();
        if (!lostByA.has(id)) expect(takenByB?.at ?? 0).toBeGreaterThanOrEqual(killedAt);
      }
      // And the agent's view: every task completed with all its chunks, as the records say.
      const direct = await connect(agent.origin, { cardCache: false });
      for (const id of ids) {
        const truth = await direct.getTask(id);
        expect(truth.status.state).toBe('completed');
        expect(truth.artifacts[0]?.parts).toHaveLength(40);
        expect(textOf(truth)).not.toBe('');
        const kept = await store.get(direct.taskKey(id));
        expect(kept?.outcome).toMatchObject({ kind: 'finished', state: 'completed' });
      }
      await store.close();
    } finally {
      await agent.close();
      redis.process.kill();
    }
  }, 90_000);
});
