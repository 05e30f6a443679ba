import { describe, expect, it } from 'vitest';
import type { Scheduler } from '../util/scheduler.js';
import { BudgetClock } from './budget-clock.js';
import { PauseDesk, type OpenPause } from './pause-desk.js';
import type { Breach } from './workflow-types.js';

/** Timers that fire only when the test says so. */
function fakeScheduler(): Scheduler & { fire(): void; armed(): number } {
  const timers = new Map<number, () => void>();
  let seq = 0;
  return {
    now: () => 0,
    setTimeout: (callback) => (timers.set(++seq, callback), seq),
    clearTimeout: (handle) => void timers.delete(handle as number),
    fire: () => {
      const due = [...timers.values()];
      timers.clear();
      for (const callback of due) callback();
    },
    armed: () => timers.size,
  };
}

function pause(id: string, node: string, attempt = 1): OpenPause {
  return { id, node, agent: 'a', taskId: `t-${node}`, state: 'input-required', since: 'then', attempt };
}

describe('the pause desk', () => {
  it('one pause per node: a new one closes the old, with its SLA', () => {
    const scheduler = fakeScheduler();
    const breaches: Breach[] = [];
    const desk = new PauseDesk(new BudgetClock(scheduler, (b) => breaches.push(b)));
    expect(desk.open(pause('p1', 'a'), 1_000)).toEqual({ id: 'p1', node: 'a', agent: 'a', taskId: 't-a', state: 'input-required', since: 'then' });
    desk.open(pause('p2', 'a'), 1_000);
    desk.open(pause('p3', 'b'), undefined);
    expect(desk.list().map((p) => p.id)).toEqual(['p2', 'p3']);
    expect(scheduler.armed()).toBe(1);
    scheduler.fire();
    expect(breaches).toEqual([{ kind: 'pause-sla', node: 'a', taskId: 't-a', budgetMs: 1_000 }]);
  });

  it('closes a node’s pauses (of one attempt when given) and their SLAs', () => {
    const scheduler = fakeScheduler();
    const desk = new PauseDesk(new BudgetClock(scheduler, () => undefined));
    desk.open(pause('p1', 'a', 1), 1_000);
    desk.closeNode('a', 2);
    expect(desk.forNode('a')?.id).toBe('p1');
    desk.closeNode('a', 1);
    expect(desk.forNode('a')).toBeUndefined();
    expect(scheduler.armed()).toBe(0);
  });

  it('an answer closes its pause once the reply went out; an unknown pause or a failed reply fails alone', async () => {
    const desk = new PauseDesk(new BudgetClock(fakeScheduler(), () => undefined));
    desk.open(pause('p1', 'a'), undefined);
    desk.open(pause('p2', 'b'), undefined);
    const replies: string[] = [];
    const reply = async (p: OpenPause, input: unknown): Promise<void> => {
      if (p.node === 'b') throw new Error('task gone');
      replies.push(`${p.id}:${String(input)}`);
    };
    expect(await desk.answer({ pause: 'p1', input: 'yes' }, reply)).toEqual({ pause: 'p1', node: 'a', ok: true });
    expect(await desk.answer({ pause: 'p2', input: 'no' }, reply)).toMatchObject({ pause: 'p2', node: 'b', ok: false, error: { message: 'task gone' } });
    expect(await desk.answer({ pause: 'p1', input: 'again' }, reply)).toMatchObject({ pause: 'p1', node: undefined, ok: false, error: { code: 'INVALID_ARGUMENT' } });
    expect(replies).toEqual(['p1:yes']);
    expect(desk.list().map((p) => p.id)).toEqual(['p2']);
  });
});
