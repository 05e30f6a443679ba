import type { Message, Part, TaskEvent } from '@a2a-tether/core';
import type { UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { ChunkMapper } from './chunk-mapper.js';

const text = (t: string): Part => ({ kind: 'text', text: t });
const artifact = (parts: Part[], append: boolean, from?: number): TaskEvent => ({
  type: 'artifact',
  artifactId: 'a',
  parts,
  append,
  lastChunk: false,
  ...(from === undefined ? {} : { from }),
});
const agentSays = (t: string): Message => ({ kind: 'message', messageId: 'm1', role: 'agent', parts: [text(t)] });

function mapper(): ChunkMapper {
  return new ChunkMapper('a2a-t1', 't1', () => 'c1');
}

/** All chunks of a sequence of events. */
function run(m: ChunkMapper, events: TaskEvent[]): UIMessageChunk[] {
  return events.flatMap((e) => m.apply(e).chunks);
}

describe('ChunkMapper', () => {
  it('appended chunks become deltas of one text part, id = artifactId', () => {
    const chunks = run(mapper(), [artifact([text('Hel')], false), artifact([text('lo')], true)]);
    expect(chunks).toEqual([
      { type: 'text-start', id: 'a', providerMetadata: { a2a: { artifactId: 'a', revision: 1 } } },
      { type: 'text-delta', id: 'a', delta: 'Hel' },
      { type: 'text-delta', id: 'a', delta: 'lo' },
    ]);
  });

  it('a replacement that extends what was shown sends only the rest; a replay of the same content sends nothing', () => {
    const m = mapper();
    run(m, [artifact([text('Hel')], false)]);
    expect(run(m, [artifact([text('Hel'), text('lo')], false)])).toEqual([{ type: 'text-delta', id: 'a', delta: 'lo' }]);
    expect(run(m, [artifact([text('Hello')], false)])).toEqual([]);
    expect(run(m, [artifact([text('!')], false, 2)])).toEqual([{ type: 'text-delta', id: 'a', delta: '!' }]);
  });

  it('a divergent rewrite ends the shown part and opens the next revision with the whole new text (never a silent duplicate)', () => {
    const m = mapper();
    run(m, [artifact([text('draft one')], false)]);
    expect(run(m, [artifact([text('final')], false)])).toEqual([
      { type: 'text-end', id: 'a' },
      { type: 'text-start', id: 'a#2', providerMetadata: { a2a: { artifactId: 'a', revision: 2 } } },
      { type: 'text-delta', id: 'a#2', delta: 'final' },
    ]);
    expect(m.closeTexts()).toEqual([{ type: 'text-end', id: 'a#2' }]);
  });

  it('data parts keep a stable id and are sent again only when their value changed; files once each', () => {
    const m = mapper();
    const file: Part = { kind: 'file', uri: 'https://x.test/f.png', mediaType: 'image/png' };
    expect(run(m, [artifact([{ kind: 'data', data: { n: 1 } }, file], false)])).toEqual([
      { type: 'data-a2a', id: 'a:0', data: { artifactId: 'a', index: 0, data: { n: 1 } } },
      { type: 'file', url: 'https://x.test/f.png', mediaType: 'image/png' },
    ]);
    expect(run(m, [artifact([{ kind: 'data', data: { n: 1 } }, file], false)])).toEqual([]);
    expect(run(m, [artifact([{ kind: 'data', data: { n: 2 } }, file], false)])).toEqual([
      { type: 'data-a2a', id: 'a:0', data: { artifactId: 'a', index: 0, data: { n: 2 } } },
    ]);
  });

  it('a pause ends the message with its question as the agent\'s text and the pause part; the next message (continueAs) shows only what comes after', () => {
    const m = mapper();
    run(m, [artifact([text('before ')], false)]);
    const pause = m.apply({ type: 'status', state: 'input-required', message: agentSays('which?') });
    expect(pause.end).toBe('paused');
    expect(pause.chunks.slice(-5)).toEqual([
      { type: 'text-start', id: 'pause:m1' },
      { type: 'text-delta', id: 'pause:m1', delta: 'which?' },
      { type: 'text-end', id: 'pause:m1' },
      { type: 'data-a2a-pause', id: 'pause', data: { taskId: 't1', contextId: 'c1', state: 'input-required', text: 'which?' } },
      { type: 'finish', finishReason: 'other' },
    ]);
    expect(pause.chunks[0]).toEqual({ type: 'text-end', id: 'a' });
    const next = m.continueAs('a2a-t1-1');
    expect(next.begin()).toEqual([{ type: 'start', messageId: 'a2a-t1-1' }]);
    // A snapshot after the answer replays the whole artifact: only the new end is shown.
    const after = run(next, [artifact([text('before '), text('after')], false)]);
    expect(after.filter((c) => c.type === 'text-delta')).toEqual([{ type: 'text-delta', id: 'a', delta: 'after' }]);
  });

  it('completed: text-ends and finish; a task without artifact or message answers with its final status text', () => {
    const m = mapper();
    const done = m.apply({ type: 'status', state: 'completed', message: agentSays('all done') });
    expect(done.end).toBe('finished');
    expect(done.chunks.filter((c) => c.type === 'text-delta')).toEqual([{ type: 'text-delta', id: 'message:m1', delta: 'all done' }]);
    expect(done.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it('failed and rejected end with an error chunk carrying the agent\'s reason; working is a status data part, not text', () => {
    const m = mapper();
    expect(m.apply({ type: 'status', state: 'working', message: agentSays('step 1') }).chunks).toEqual([
      { type: 'data-a2a-status', id: 'status', data: { taskId: 't1', contextId: 'c1', state: 'working', text: 'step 1' } },
    ]);
    const failed = m.apply({ type: 'status', state: 'failed', message: agentSays('out of paper') });
    expect(failed.end).toBe('failed');
    expect(failed.chunks.at(-1)).toEqual({ type: 'error', errorText: "the agent's task t1 failed: out of paper" });
  });
});
