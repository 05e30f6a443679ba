import { describe, expect, it } from 'vitest';
import { EventQueue } from './event-queue.js';
import { compactEvents } from './event-merge.js';
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

  it('merge (a follow that keeps no artifact parts): past capacity, each artifact’s events are merged, nothing is lost', async () => {
    const queue = new EventQueue(10, () => {
      throw new Error('a merging queue never asks for the view');
    }, compactEvents);
    const other = (i: number): TaskEvent => ({ type: 'artifact', artifactId: 'b', parts: [{ kind: 'text', text: `b${i}` }], append: i > 0, lastChunk: false });
    for (let i = 0; i < 1_000; i++) {
      queue.push([chunk(i), other(i)]);
      if (i % 100 === 0) queue.push([{ type: 'status', state: 'working', timestamp: String(i) }]);
    }
    // A replay diverged after 500 parts of `a`: the parts from there on are replaced.
    queue.push([{ type: 'artifact', artifactId: 'a', parts: [{ kind: 'text', text: 'x' }], append: false, lastChunk: true, from: 500, recovered: true }]);
    queue.push([{ type: 'status', state: 'completed' }]);
    queue.close();
    const read = await drain(queue.read());
    expect(read.length).toBeLessThanOrEqual(10);
    const texts = (id: string): string[] =>
      read.filter((e) => e.type === 'artifact' && e.artifactId === id).flatMap((e) => (e.type === 'artifact' ? e.parts.map((p) => (p.kind === 'text' ? p.text : '')) : []));
    expect(texts('a')).toEqual([...Array.from({ length: 500 }, (_, i) => `c${i}`), 'x']);
    expect(texts('b')).toEqual(Array.from({ length: 1_000 }, (_, i) => `b${i}`));
    expect(read.find((e) => e.type === 'artifact' && e.artifactId === 'a')).toMatchObject({ append: false, lastChunk: true });
    expect(read.filter((e) => e.type === 'status')).toEqual([{ type: 'status', state: 'completed' }]);
  });

  it('merge: a replace from an index after appends it cannot place stays a separate event', async () => {
    const queue = new EventQueue(2, () => [], compactEvents);
    const append = (t: string): TaskEvent => ({ type: 'artifact', artifactId: 'a', parts: [{ kind: 'text', text: t }], append: true, lastChunk: false });
    queue.push([append('p'), append('q')]);
    queue.push([{ type: 'artifact', artifactId: 'a', parts: [{ kind: 'text', text: 'r' }], append: false, lastChunk: false, from: 7 }]);
    queue.push([append('s'), append('t'), append('u')]); // compacts again at twice what the last compaction left
    queue.close();
    const read = await drain(queue.read());
    expect(read).toEqual([
      { type: 'artifact', artifactId: 'a', parts: [{ kind: 'text', text: 'p' }, { kind: 'text', text: 'q' }], append: true, lastChunk: false },
      { type: 'artifact', artifactId: 'a', parts: ['r', 's', 't', 'u'].map((text) => ({ kind: 'text', text })), append: false, lastChunk: false, from: 7 },
    ]);
  });
});

