import { describe, expect, it } from 'vitest';
import { startTestAgent, type ScenarioFn } from '../src/index.js';
import { COMBOS } from './helpers.js';

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('agent.close()', () => {
  it('clears the timers scenarios left behind: a sleep that lost a race does not keep the process alive', async () => {
    // The pattern of a held hop: wait for a gate or a long sleep, whichever comes first, then finish.
    const leave: ScenarioFn = async (ctx) => {
      await Promise.race([Promise.resolve(), ctx.sleep(600_000)]);
      ctx.status('completed');
    };
    const agent = await startTestAgent({ scenarios: { leave } });
    const combo = COMBOS[0]!;
    const before = timers();
    for (let i = 0; i < 40; i++) await combo.send(agent, 'leave');
    expect(agent.tasks.list().filter((t) => t.state === 'completed')).toHaveLength(40);
    // Each finished task's scenario left its 10-minute sleep pending.
    expect(timers()).toBeGreaterThanOrEqual(before + 30);
    await agent.close();
    expect(timers()).toBeLessThan(before + 10);
  });
});
