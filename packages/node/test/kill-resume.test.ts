import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestAgent } from '@a2a-tether/testkit';
import { connect, createFileTaskStore, type Task } from '../src/index.js';
import { bundleChild } from './helpers/bundle-child.js';

// Issue 7: `kill -9` of a client process in the middle of 50 running tasks (file store); a new
// process's `resumeAll()` finishes all 50 with exactly the agent's artifacts.

const TASKS = 50;
const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function bundledChild(): Promise<string> {
  const { script, dir } = await bundleChild(new URL('./fixtures/kill-resume-child.ts', import.meta.url));
  roots.push(dir);
  return script;
}

const textOf = (task: Task): string => task.artifacts.map((a) => a.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('')).join('|');

describe('kill -9 mid-run, then resumeAll() in a new process', () => {
  it(`${TASKS} of ${TASKS} tasks finish with the agent's artifacts`, async () => {
    const agent = await startTestAgent({ versions: ['1.0'] });
    const root = await mkdtemp(join(tmpdir(), 'tether-kill-store-'));
    roots.push(root);
    const dir = join(root, 'tasks');
    try {
      const child = spawn(process.execPath, [await bundledChild(), agent.origin, dir, String(TASKS)], { stdio: ['ignore', 'pipe', 'inherit'] });
      const started: string[] = [];
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${started.length} tasks started within 30 s`)), 30_000);
        let buffer = '';
        child.stdout.on('data', (chunk: Buffer) => {
          buffer += chunk.toString('utf8');
          for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
            const line = buffer.slice(0, at);
            buffer = buffer.slice(at + 1);
            if (line.startsWith('started ')) started.push(line.slice(8));
            if (line === 'all-started') {
              clearTimeout(timer);
              resolve();
            }
          }
        });
      });
      // Mid-run: every task started (and stored), none finished yet (each runs ~4 s).
      const direct = await connect(agent.origin, { cardCache: false });
      const before = await Promise.all(started.map((id) => direct.getTask(id)));
      expect(before.filter((t) => t.status.state === 'completed').length).toBeLessThan(TASKS);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      // A new process (here: a new client on the same directory) takes over.
      const store = createFileTaskStore(dir);
      const corrupt: unknown[] = [];
      const records = await createFileTaskStore(dir, { onCorrupt: (error) => void corrupt.push(error) }).list({ active: true });
      expect(corrupt).toEqual([]);
      expect(records.map((r) => r.taskId).sort()).toEqual([...started].sort());
      const client = await connect(agent.origin, { store, cardCache: false });
      const handles = await client.resumeAll();
      expect(handles).toHaveLength(TASKS);
      const finals = await Promise.all(handles.map((h) => h.done()));
      for (const final of finals) {
        const truth = await direct.getTask(final.id);
        expect(final.status.state).toBe('completed');
        expect(textOf(final)).toBe(textOf(truth));
        expect(final.artifacts[0]?.parts.length).toBe(40); // one chunk per step, none lost or doubled
      }
      expect(new Set(finals.map((f) => f.id)).size).toBe(TASKS);
      expect(await store.list({ active: true })).toEqual([]);
    } finally {
      await agent.close();
    }
  }, 90_000);
});
