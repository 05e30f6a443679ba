// @a2a-tether/core/zod (issue 21): the wire schemas, published for apps that validate cards or write agents.
// They accept the cards and tasks real agents serve (both versions here, the official servers' in the
// oracle tests) and refuse what is not one, through zod and through the Standard Schema interface.
import { startTestAgent } from '@a2a-tether/testkit';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { connect } from '../src/index.js';
import { dataOf } from '../src/protocol-entry.js';
import { agentCardSchema, artifactUpdateSchema, messageSchema, taskSchema } from '../src/zod-entry.js';

describe('@a2a-tether/core/zod', () => {
  it('accepts the cards an agent serves in both shapes, and refuses one without a name', async () => {
    const agent = await startTestAgent({ versions: ['1.0', '0.3'] });
    try {
      for (const version of ['1.0', '0.3']) {
        const card = (await (await fetch(agent.cardUrl, { headers: { 'A2A-Version': version } })).json()) as Record<string, unknown>;
        const parsed = agentCardSchema.safeParse(card);
        expect(parsed.success).toBe(true);
        expect(parsed.data?.name).toBe('Tether Test Agent');
        const { name: _name, ...nameless } = card;
        const refused = agentCardSchema.safeParse(nameless);
        expect(refused.success).toBe(false);
        expect(refused.error?.issues[0]?.path).toEqual(['name']);
      }
    } finally {
      await agent.close();
    }
  });

  it('checks a task and its parts as an agent writes them (v1.0 ProtoJSON and v0.3)', () => {
    const v1 = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'a', parts: [{ data: { x: 1 } }] }] };
    const v03 = { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' }, artifacts: [{ artifactId: 'a', parts: [{ kind: 'data', data: { x: 1 } }] }] };
    expect(taskSchema.safeParse(v1).success).toBe(true);
    expect(taskSchema.safeParse(v03).success).toBe(true);
    expect(taskSchema.safeParse({ ...v1, id: 7 }).error?.issues[0]?.path).toEqual(['id']);
    expect(messageSchema.safeParse({ messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] }).success).toBe(true);
    expect(artifactUpdateSchema.safeParse({ taskId: 't1', artifact: { artifactId: 'a' } }).success).toBe(false); // parts are required
  });

  it('is a Standard Schema too: handle.data() and dataOf() take it', async () => {
    const agent = await startTestAgent({
      scenarios: {
        card: async (ctx) => {
          ctx.status('working');
          ctx.artifact({ artifactId: 'card', parts: [{ kind: 'data', data: { name: 'Found agent', url: 'https://found.example' } }], lastChunk: true });
          ctx.status('completed');
        },
      },
    });
    try {
      const task = await (await connect(agent.url)).start('card');
      const card = await task.data(agentCardSchema);
      expect(card.name).toBe('Found agent');
      const strict = z.object({ name: z.string(), skills: z.array(z.string()) });
      const error = (await dataOf(await task.done(), strict).catch((e: unknown) => e)) as { code: string };
      expect(error.code).toBe('SCHEMA_MISMATCH');
    } finally {
      await agent.close();
    }
  });
});
