import { startFaultProxy, startTestAgent, type FaultProxy, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from './run-tether.js';

// The Tether extensions: send and task resume follow a task through cut streams with the engine, and
// the local store (--store) carries a task from one process to the next.

let agent: TestAgent;
let proxy: FaultProxy;
let box: Sandbox;
/** Lets the `gated` scenario finish: called by the test once it saw what it waits for. */
let release: () => void = () => undefined;

beforeAll(async () => {
  agent = await startTestAgent({
    scenarios: {
      // Three chunks, then waits for the test; then nine more and completed.
      gated: async (ctx) => {
        const gate = new Promise<void>((resolve) => (release = resolve));
        ctx.status('working');
        for (let i = 1; i <= 12; i++) {
          if (i === 4) await gate;
          ctx.artifact({ artifactId: 'result', name: 'result', text: `chunk-${i};`, append: i > 1, lastChunk: i === 12 });
        }
        ctx.status('completed');
      },
    },
  });
  proxy = await startFaultProxy({ target: agent.origin, seed: 11 });
  box = sandbox();
});
afterAll(async () => {
  await proxy?.close();
  await agent?.close();
  box?.remove();
});

const chunks = (n: number): string => Array.from({ length: n }, (_, i) => `chunk-${i + 1};`).join('');

interface JsonTask {
  id: string;
  status: { state: string };
  artifacts?: { parts: { text: string }[] }[];
}

describe('through cut streams', () => {
  it('send follows the task through two cuts and ends with exactly the agent\'s artifact', async () => {
    proxy.clearFaults();
    proxy.addFault({ kind: 'cut', afterEvents: 3, mode: 'reset', match: { sse: true }, times: 2 });
    const before = proxy.stats.cuts.reset;
    const run = await box.run(['send', '-a', proxy.url, '--text', 'stream updates=4 chunks=10 delayMs=10', '-o', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(proxy.stats.cuts.reset - before).toBe(2);
    const { task } = JSON.parse(run.stdout) as { task: JsonTask };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts?.[0]?.parts.map((p) => p.text).join('')).toBe(chunks(10));
    expect(task.artifacts?.[0]?.parts.map((p) => p.text).join('')).toBe(agent.tasks.get(task.id)?.artifacts[0]?.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''));
  });

  it('send --async records the task; task resume (another process, no -a) follows it through two cuts to the end', async () => {
    proxy.clearFaults();
    const sent = await box.run(['send', '-a', proxy.url, '--text', 'gated', '--async', '-o', 'json']);
    expect(sent.code, sent.stderr).toBe(0);
    const { task } = JSON.parse(sent.stdout) as { task: JsonTask };
    // Every subscription is cut before its first event, twice; the task cannot end before the test lets it.
    proxy.addFault({ kind: 'cut', afterEvents: 0, mode: 'reset', match: { sse: true }, times: 2 });
    const before = proxy.stats.cuts.reset;
    const resumed = box.run(['task', 'resume', task.id, '--stream', '-o', 'json']);
    while (proxy.stats.cuts.reset - before < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    const run = await resumed;
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, { status?: { state: string }; artifact?: { parts: { text: string }[] } }>);
    expect(Object.keys(lines[0] ?? {})).toEqual(['task']);
    expect(lines.at(-1)?.['statusUpdate']?.status?.state).toBe('TASK_STATE_COMPLETED');
    const streamed = lines.flatMap((l) => l['artifactUpdate']?.artifact?.parts ?? []).map((p) => p.text).join('');
    expect(streamed).toBe(chunks(12));
    // And the final result, read once more from the store's record by a third process.
    const final = await box.run(['task', 'resume', task.id, '-o', 'json']);
    const body = JSON.parse(final.stdout) as { task: JsonTask };
    expect(body.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(body.task.artifacts?.[0]?.parts.map((p) => p.text).join('')).toBe(chunks(12));
  });

  it('task resume of a task the store does not know, without -a: usage error naming --store', async () => {
    const run = await box.run(['task', 'resume', 'unknown-task']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('not in the local store');
  });
});

describe('task list --local', () => {
  it('lists the store\'s records: id, state, outcome; a paused task is resumable', async () => {
    proxy.clearFaults();
    const paused = await box.run(['send', '-a', agent.url, '--text', 'input', '-o', 'json']);
    expect(paused.code).toBe(0);
    const { task } = JSON.parse(paused.stdout) as { task: JsonTask };
    const text = await box.run(['task', 'list', '--local']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Task ID: ${task.id}\n`);
    expect(text.stdout).toMatch(new RegExp(`Task ID: ${task.id}\\nContext ID: \\S+\\nState: input-required\\nAgent: \\S+\\nOutcome: none \\(resumable\\)\\n`));
    expect(text.stdout).toMatch(/State: completed\nAgent: \S+\nOutcome: finished completed\n/);
    const json = await box.run(['task', 'list', '--local', '-o', 'json']);
    const records = JSON.parse(json.stdout) as { taskId: string; state: string }[];
    expect(records.find((r) => r.taskId === task.id)?.state).toBe('input-required');
    // Another store directory is another list.
    const empty = await box.run(['task', 'list', '--local', '--store', `${box.home}/other-store`, '-o', 'json']);
    expect(JSON.parse(empty.stdout)).toEqual([]);
  });
});
