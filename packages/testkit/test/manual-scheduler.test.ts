import { describe, expect, it } from 'vitest';
import { ManualScheduler } from '../src/index.js';

describe('ManualScheduler', () => {
  it('fires timers in time order only when advanced, and moves the clock', async () => {
    const clock = new ManualScheduler();
    const start = clock.now();
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now() - start}`), 200);
    clock.setTimeout(() => fired.push(`a@${clock.now() - start}`), 100);
    const cancelled = clock.setTimeout(() => fired.push('never'), 150);
    clock.clearTimeout(cancelled);
    await clock.advance(99);
    expect(fired).toEqual([]);
    await clock.advance(200);
    expect(fired).toEqual(['a@100', 'b@200']);
    expect(clock.now() - start).toBe(299);
    expect(clock.pending).toBe(0);
  });

  it('fires timers scheduled by timers within the same advance', async () => {
    const clock = new ManualScheduler();
    let ticks = 0;
    const tick = (): void => {
      ticks++;
      if (ticks < 10) clock.setTimeout(tick, 1_000);
    };
    clock.setTimeout(tick, 1_000);
    await clock.advance(60 * 60_000, 0);
    expect(ticks).toBe(10);
  });
});
