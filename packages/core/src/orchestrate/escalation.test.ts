import { describe, expect, it } from 'vitest';
import { decide, planEscalation, type EscalationPlan } from './escalation.js';
import type { Breach, Escalation } from './workflow-types.js';

const hop: Breach = { kind: 'hop-timeout', node: 'a', taskId: 't', budgetMs: 300 };
const pause: Breach = { kind: 'pause-sla', node: 'a', taskId: 't', budgetMs: 50 };
const deadline: Breach = { kind: 'deadline', budgetMs: 1_000 };

describe('planEscalation', () => {
  it.each<[string, Breach, Escalation, EscalationPlan]>([
    ['a hop timeout, cancel', hop, 'cancel', { kind: 'stop-node', node: 'a', why: 'hop-timeout after 300 ms' }],
    ['a pause SLA, cancel', pause, 'cancel', { kind: 'stop-node', node: 'a', why: 'pause-sla after 50 ms' }],
    ['a hop timeout, extend', hop, { extendMs: 500 }, { kind: 'extend', ms: 500 }],
    ['a pause SLA, extend', pause, { extendMs: 70 }, { kind: 'extend', ms: 70 }],
    ['a hop timeout, hand to b', hop, { handTo: 'b' }, { kind: 'hand-to', node: 'a', agent: 'b', why: 'hop-timeout after 300 ms' }],
    ['a hop timeout, fail', hop, 'fail', { kind: 'stop-all', why: 'hop-timeout after 300 ms', failing: 'hop-timeout after 300 ms: escalation failed the workflow' }],
    ['the deadline, cancel', deadline, 'cancel', { kind: 'stop-all', why: 'deadline after 1000 ms' }],
    ['the deadline, extend', deadline, { extendMs: 2_000 }, { kind: 'extend', ms: 2_000 }],
    ['the deadline, hand to (no node to hand on)', deadline, { handTo: 'b' }, { kind: 'stop-all', why: 'deadline after 1000 ms' }],
    ['the deadline, fail', deadline, 'fail', { kind: 'stop-all', why: 'deadline after 1000 ms', failing: 'deadline after 1000 ms: escalation failed the workflow' }],
  ])('%s', (_name, breach, decision, plan) => {
    expect(planEscalation(breach, decision)).toEqual(plan);
  });

  it('decide: cancel without an escalate function or when it throws', async () => {
    expect(await decide(undefined, hop)).toBe('cancel');
    expect(
      await decide(() => {
        throw new Error('bug');
      }, hop),
    ).toBe('cancel');
    expect(await decide(async () => ({ extendMs: 5 }), hop)).toEqual({ extendMs: 5 });
  });
});
