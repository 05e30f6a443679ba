import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox, type Sandbox } from './run-tether.js';

// Task ids belong to their agent (issue 33, point 3): two agents that both name their task "1" leave two
// records in the CLI's local store, and each is followed to its end by `task resume`.

let agents: TestAgent[] = [];
let box: Sandbox;
beforeAll(async () => {
  agents = [await startTestAgent({ taskId: () => '1' }), await startTestAgent({ taskId: () => '1' })];
  box = sandbox();
});
afterAll(async () => {
  for (const agent of agents) await agent.close();
  box?.remove();
});

interface Row {
  taskId: string;
  agentUrl: string;
  state: string;
  outcome?: { kind: string };
}

describe('two agents that both name their task "1": the CLI’s local store', () => {
  it('send --async of each leaves two records; task resume -a follows each to its end; without -a it asks which', async () => {
    for (const agent of agents) {
      const sent = await box.run(['send', '-a', agent.origin, '--text', 'slow steps=3 delayMs=100', '--async', '-o', 'json']);
      expect(sent.code, sent.stderr).toBe(0);
    }
    const listed = await box.run(['task', 'list', '--local', '-o', 'json']);
    const rows = (JSON.parse(listed.stdout) as Row[]).map((r) => [r.taskId, new URL(r.agentUrl).origin]).sort();
    expect(rows).toEqual(agents.map((a) => ['1', a.origin]).sort());

    const ambiguous = await box.run(['task', 'resume', '1', '-o', 'json']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stdout + ambiguous.stderr).toMatch(/task 1 is in the local store for 2 agents/);

    for (const agent of agents) {
      const resumed = await box.run(['task', 'resume', '1', '-a', agent.origin, '-o', 'json']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const { task } = JSON.parse(resumed.stdout) as { task: { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] } };
      expect([task.id, task.status.state, task.artifacts[0]?.parts.map((p) => p.text).join('')]).toEqual(['1', 'TASK_STATE_COMPLETED', 'chunk-1;chunk-2;chunk-3;']);
    }
    const after = (JSON.parse((await box.run(['task', 'list', '--local', '-o', 'json'])).stdout) as Row[]).map((r) => [new URL(r.agentUrl).origin, r.state, r.outcome?.kind]).sort();
    expect(after).toEqual(agents.map((a) => [a.origin, 'completed', 'finished']).sort());
  });

  it('a record an earlier version left (named after the task id) moves to its key and is resumed', async () => {
    const own = sandbox();
    try {
      const agent = agents[0] as TestAgent;
      const sent = await box.run(['send', '-a', agent.origin, '--text', 'slow steps=2 delayMs=50', '--async', '-o', 'json']);
      expect(sent.code, sent.stderr).toBe(0);
      const { contextId } = (JSON.parse(sent.stdout) as { task: { contextId: string } }).task;
      const record = { schemaVersion: 1, taskId: '1', contextId, agentUrl: `${agent.origin}/.well-known/agent-card.json`, state: 'working', createdAt: 1, updatedAt: 1, delivery: 'stream' };
      mkdirSync(own.store, { recursive: true });
      writeFileSync(join(own.store, `id-${Buffer.from('1').toString('hex')}.json`), JSON.stringify(record));
      const resumed = await own.run(['task', 'resume', '1', '-o', 'json']);
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect((JSON.parse(resumed.stdout) as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(readdirSync(own.store).filter((name) => name.endsWith('.json'))).toEqual([expect.stringMatching(/^task-[0-9a-f]{64}\.json$/)]);
    } finally {
      own.remove();
    }
  });
});
