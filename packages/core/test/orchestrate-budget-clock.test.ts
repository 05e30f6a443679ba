import { ManualScheduler } from '@a2a-tether/testkit';
import { describe, expect, it } from 'vitest';
import { BudgetClock, DEADLINE, hopBudget } from '../src/orchestrate/budget-clock.js';
import type { Breach } from '../src/orchestrate-entry.js';

describe('the budget clock', () => {
  it('reports each breach once, on the injected scheduler; a cleared or re-armed budget does not fire early', async () => {
    const scheduler = new ManualScheduler();
    const breaches: Breach[] = [];
    const clock = new BudgetClock(scheduler, (b) => breaches.push(b));
    clock.arm(DEADLINE, 1_000, { kind: 'deadline', budgetMs: 1_000 });
    clock.arm(hopBudget('a', 1), 300, { kind: 'hop-timeout', node: 'a', budgetMs: 300 });
    clock.arm(hopBudget('b', 1), 300, { kind: 'hop-timeout', node: 'b', budgetMs: 300 });
    clock.clear(hopBudget('b', 1));
    await scheduler.advance(299);
    expect(breaches).toEqual([]);
    await scheduler.advance(1);
    expect(breaches.map((b) => b.node ?? b.kind)).toEqual(['a']);
    clock.arm(DEADLINE, 2_000, { kind: 'deadline', budgetMs: 2_000 });
    await scheduler.advance(1_500);
    expect(breaches.map((b) => b.node ?? b.kind)).toEqual(['a']);
    await scheduler.advance(500);
    expect(breaches.map((b) => b.node ?? b.kind)).toEqual(['a', 'deadline']);
    clock.arm(hopBudget('c', 1), 10, { kind: 'hop-timeout', node: 'c', budgetMs: 10 });
    clock.clearAll();
    expect(scheduler.pending).toBe(0);
  });
});
