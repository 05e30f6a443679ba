import { describe, expect, it } from 'vitest';
import { EventQueue } from './event-queue.js';
import type { TaskEvent } from './task-event.js';

const chunk = (i: number): TaskEvent => ({ type: 'artifact', artifactId: 'a', parts: [{ kind: 'text', text: `c${i}` }], append: i > 0, lastChunk: false });

async function drain(iterator: AsyncIterator<TaskEvent>): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done) return out;
    out.push(next.value);
  }
}

describe('EventQueue', () => {
  it('keeps at most `capacity` events while no one reads; a late reader first gets a resync of the view', async () => {
    const view: TaskEvent[] = [{ type: 'artifact', artifactId: 'a', parts: [{ kind: 'text', text: 'all of it' }], append: false, lastChunk: false, recovered: true }];
    const queue = new EventQueue(10, () => view);
    for (let i = 0; i < 1_000; i++) queue.push([chunk(i)]);
    queue.push([{ type: 'message', message: { kind: 'message', messageId: 'm', role: 'agent', parts: [] } }]);
    queue.close();
    const read = await drain(queue.read());
    expect(read[0]).toEqual(view[0]);
    expect(read.filter((e) => e.type === 'artifact')).toHaveLength(1); // nothing stale after the resync
    expect(read.filter((e) => e.type === 'message')).toHaveLength(1); // messages are not in the view: kept
    expect(read.length).toBeLessThanOrEqual(11);
  });

  it('hands a reader every event in order while it reads; break and a new reader continue without repeats', async () => {
    const queue = new EventQueue(10, () => []);
    queue.push([chunk(0), chunk(1), chunk(2)]);
    const first = queue.read();
    expect((await first.next()).value).toEqual(chunk(0));
    await first.return?.();
    queue.push([chunk(3)]);
    queue.close();
    expect(await drain(queue.read())).toEqual([chunk(1), chunk(2), chunk(3)]);
  });

  it('one reader at a time', () => {
    const queue = new EventQueue(10, () => []);
    queue.read();
    expect(() => queue.read()).toThrow(/already being read/);
  });
});
