import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestAgent, type ScenarioContext, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createFileWorkflowStore, type WorkflowRecord, type WorkflowSummary } from '../src/orchestrate-entry.js';
import { bundleChild } from './helpers/bundle-child.js';
import { spawnLineChild, type LineChild } from './helpers/line-child.js';

// Must-show: an orchestrator process killed (SIGKILL) after hop 2 of 3 and restarted does not re-run
// hops 1–2. The orchestrator runs in a child process (fixtures/orchestrator-child.ts) with file task
// and workflow stores; the agent runs here and records every message that starts a task.

const WORKFLOW = 'kill-restart';
/** Every wait of this test (a line, an exit) is bounded by this. */
const WAIT_MS = 20_000;
/** What the agent answers to a message: its text in parentheses, so each hop's result shows the previous one. */
const answer = (text: string): string => `(${text})`;
const H1 = answer('research otters');
const H2 = answer(`outline ${H1}`);
const H3 = answer(`polish ${H2}`);

const roots: string[] = [];
const children: LineChild[] = [];
const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

let script: Promise<string> | undefined;
function bundled(): Promise<string> {
  script ??= bundleChild(new URL('./fixtures/orchestrator-child.ts', import.meta.url)).then(({ script: file, dir }) => {
    roots.push(dir);
    return file;
  });
  return script;
}

/** One message that started a task at the agent. */
interface Received {
  node: unknown;
  text: string;
  messageId: string;
  taskId: string;
}

/** The agent, recording every message that starts a task; hop 3's task waits until `release()`. */
async function holdingAgent(): Promise<{ agent: TestAgent; received: Received[]; release(): void }> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const received: Received[] = [];
  const run = async (ctx: ScenarioContext): Promise<void> => {
    const node = ctx.userMessage.metadata?.['a2a-tether/node'];
    received.push({ node, text: ctx.text, messageId: ctx.userMessage.messageId, taskId: ctx.task.id });
    ctx.status('working');
    if (node === 'h3') {
      // ctx.sleep bounds the hold (and rejects when the task is canceled or the agent closes).
      const opened = await Promise.race([gate.then(() => true), ctx.sleep(WAIT_MS).then(() => false)]);
      if (!opened) return ctx.status('failed', 'the test never released hop 3');
    }
    ctx.artifact({ artifactId: 'out', text: answer(ctx.text), lastChunk: true });
    ctx.status('completed');
  };
  const agent = await startTestAgent({ versions: ['1.0'], scenarios: { echo: run } });
  agents.push(agent);
  return { agent, received, release };
}

/** Fresh task and workflow directories. */
async function directories(): Promise<{ tasks: string; workflows: string }> {
  const root = await mkdtemp(join(tmpdir(), 'tether-workflow-kill-'));
  roots.push(root);
  return { tasks: join(root, 'tasks'), workflows: join(root, 'workflows') };
}

async function child(mode: 'run' | 'hold-input' | 'restart', agent: TestAgent, dirs: { tasks: string; workflows: string }): Promise<LineChild> {
  const started = spawnLineChild(await bundled(), [mode, agent.origin, dirs.tasks, dirs.workflows]);
  children.push(started);
  return started;
}

async function killed(orchestrator: LineChild): Promise<void> {
  expect((await orchestrator.kill()).signal).toBe('SIGKILL');
}

/** Restarts the orchestrator, releases hop 3 once it is up, and returns its summary and printed lines. */
async function restart(agent: TestAgent, dirs: { tasks: string; workflows: string }, release: () => void): Promise<{ summary: WorkflowSummary; lines: readonly string[] }> {
  const second = await child('restart', agent, dirs);
  await second.waitForLine((line) => line === 'booted', WAIT_MS, 'booted');
  release();
  const line = await second.waitForLine((l) => l.startsWith('summary '), WAIT_MS, 'the summary');
  expect(await second.exit(WAIT_MS)).toEqual({ code: 0, signal: null });
  return { summary: JSON.parse(line.slice('summary '.length)) as WorkflowSummary, lines: second.lines };
}

const loadRecord = async (dir: string): Promise<WorkflowRecord | undefined> => createFileWorkflowStore(dir).load(WORKFLOW);

const resultText = (summary: WorkflowSummary, node: string): string | undefined =>
  summary.results
    .find((r) => r.node === node)
    ?.artifacts.flatMap((a) => a.artifact.parts)
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('');

/** What must hold at the end of either case: three messages in all, one per hop; the workflow completed on them. */
async function expectCompletedOnce(summary: WorkflowSummary, received: Received[], workflows: string): Promise<void> {
  expect(received.map((r) => [r.node, r.text])).toEqual([
    ['h1', 'research otters'],
    ['h2', `outline ${H1}`],
    ['h3', `polish ${H2}`],
  ]);
  expect(summary.state).toBe('completed');
  expect(resultText(summary, 'h1')).toBe(H1);
  expect(resultText(summary, 'h2')).toBe(H2);
  expect(resultText(summary, 'h3')).toBe(H3);
  // One attempt per hop, on the task the agent made for that hop's one message.
  for (const [i, node] of ['h1', 'h2', 'h3'].entries()) {
    const attempts = summary.record.nodes[node]?.attempts ?? [];
    expect(attempts.map((a) => [a.state, a.adopted, a.taskId, a.messageId])).toEqual([['completed', true, received[i]?.taskId, received[i]?.messageId]]);
  }
  expect(summary.record.ledger.map((e) => [e.operation, e.node, e.key, e.outcome])).toEqual(received.map((r) => ['SendMessage', r.node, r.messageId, 'confirmed-success']));
  // The record on disk says the same.
  const stored = await loadRecord(workflows);
  expect(stored?.state).toBe('completed');
  expect(stored).toEqual(summary.record);
}

describe('an orchestrator process killed after hop 2 of 3 and restarted', () => {
  it('while hop 3 runs: hops 1–2 are not run again and hop 3 is followed by its task id, not sent again', async () => {
    const { agent, received, release } = await holdingAgent();
    const dirs = await directories();

    const first = await child('run', agent, dirs);
    const running = await first.waitForLine((line) => /^event h3 running [^-]\S*$/.test(line), WAIT_MS, "hop 3's task id");
    const h3Task = running.split(' ')[3];
    expect(received.map((r) => r.node)).toEqual(['h1', 'h2', 'h3']);
    expect(received[2]?.taskId).toBe(h3Task);
    expect(agent.tasks.get(h3Task ?? '')?.state).toBe('working'); // held
    await killed(first);

    // What the restart has to go on: hops 1–2 checkpointed, hop 3 running with its task id, three confirmed sends.
    const before = await loadRecord(dirs.workflows);
    expect(before?.state).toBe('running');
    expect(Object.values(before?.nodes ?? {}).map((n) => [n.id, n.state])).toEqual([
      ['h1', 'completed'],
      ['h2', 'completed'],
      ['h3', 'running'],
    ]);
    expect(before?.nodes['h3']?.attempts.map((a) => a.taskId)).toEqual([h3Task]);
    expect(before?.checkpoints.map((c) => c.reason)).toEqual(['node h1 completed', 'node h2 completed']);
    expect(before?.ledger.map((e) => e.outcome)).toEqual(['confirmed-success', 'confirmed-success', 'confirmed-success']);

    const { summary, lines } = await restart(agent, dirs, release);
    await expectCompletedOnce(summary, received, dirs.workflows);
    expect(summary.record.nodes['h3']?.attempts[0]?.taskId).toBe(h3Task);
    // The restarted process built no message, left hops 1–2 alone, and saw hop 3's one task complete.
    expect(lines.filter((l) => l.startsWith('input '))).toEqual([]);
    expect(lines.filter((l) => /^event h[12] /.test(l))).toEqual([]);
    expect(lines.filter((l) => l.startsWith('event h3 ')).at(-1)).toBe(`event h3 completed ${h3Task}`);
  }, 60_000);

  it('after hop 2’s checkpoint was stored but before hop 3 was sent: hop 3 is sent once, hops 1–2 are not run again', async () => {
    const { agent, received, release } = await holdingAgent();
    release(); // hop 3 is not held in this case
    const dirs = await directories();

    // The child blocks inside hop 3's input function: hop 2's checkpoint is saved, nothing of hop 3 is.
    const first = await child('hold-input', agent, dirs);
    await first.waitForLine((line) => line === 'input h3', WAIT_MS, "hop 3's input function");
    await killed(first);
    expect(received.map((r) => r.node)).toEqual(['h1', 'h2']);
    expect(first.lines.filter((l) => l.startsWith('input '))).toEqual(['input h1', 'input h2', 'input h3']);

    const before = await loadRecord(dirs.workflows);
    expect(Object.values(before?.nodes ?? {}).map((n) => [n.id, n.state, n.attempts.length])).toEqual([
      ['h1', 'completed', 1],
      ['h2', 'completed', 1],
      ['h3', 'pending', 0],
    ]);
    expect(before?.checkpoints.map((c) => c.reason)).toEqual(['node h1 completed', 'node h2 completed']);
    expect(before?.ledger.map((e) => [e.node, e.outcome])).toEqual([
      ['h1', 'confirmed-success'],
      ['h2', 'confirmed-success'],
    ]);

    const { summary, lines } = await restart(agent, dirs, () => undefined);
    await expectCompletedOnce(summary, received, dirs.workflows);
    // Only hop 3's message was built, once, from hop 2's stored result.
    expect(lines.filter((l) => l.startsWith('input '))).toEqual(['input h3']);
    expect(lines.filter((l) => /^event h[12] /.test(l))).toEqual([]);
  }, 60_000);
});
