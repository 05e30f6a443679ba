import { describe, expect, it } from 'vitest';
import { TetherError } from '../errors/tether-error.js';
import { SseReader, type SseEvent } from './sse-reader.js';

/** Feeds the chunks like a body would and returns the events; throws the reader's failure after the events before it. */
function read(chunks: (string | Uint8Array)[], maxEventSize = 1_000, context = {}): { events: SseEvent[]; failure: TetherError | undefined } {
  const encoder = new TextEncoder();
  const reader = new SseReader(maxEventSize, context);
  const events: SseEvent[] = [];
  for (const c of chunks) {
    events.push(...reader.push(typeof c === 'string' ? encoder.encode(c) : c));
    if (reader.failure) return { events, failure: reader.failure };
  }
  events.push(...reader.end());
  return { events, failure: reader.failure };
}

async function collect(chunks: (string | Uint8Array)[], maxEventSize = 1_000): Promise<SseEvent[]> {
  const { events, failure } = read(chunks, maxEventSize);
  if (failure) throw failure;
  return events;
}

describe('SseReader', () => {
  it('handles LF, CRLF and bare CR line ends', async () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const events = await collect([`data: {"a":1}${eol}${eol}data: {"a":2}${eol}${eol}`]);
      expect(events.map((e) => e.data)).toEqual(['{"a":1}', '{"a":2}']);
    }
  });

  it('handles a CRLF split across chunks and a CR at the end of a chunk', async () => {
    const events = await collect(['data: one\r', '\n\r', '\ndata: two\r\n\r\n']);
    expect(events.map((e) => e.data)).toEqual(['one', 'two']);
  });

  it('joins multi-line data, keeps event names and ids, ignores comments', async () => {
    const events = await collect([': keep-alive\n', 'event: error\nid: 7\ndata: {\ndata:  "x": 1\ndata: }\n\n']);
    expect(events).toEqual([{ data: '{\n "x": 1\n}', event: 'error', id: '7' }]);
  });

  it('reassembles a UTF-8 character split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: {"t":"héllo ✓"}\n\n');
    const cut = bytes.indexOf(0xc3) + 1; // inside "é"
    const events = await collect([bytes.slice(0, cut), bytes.slice(cut)]);
    expect(JSON.parse(events[0]?.data ?? '')).toEqual({ t: 'héllo ✓' });
  });

  it('drops an incomplete trailing event (no blank line before the end)', async () => {
    expect((await collect(['data: complete\n\n', 'data: {"cut":'])).map((e) => e.data)).toEqual(['complete']);
    expect((await collect(['data: complete\r\r', 'data: half\r'])).map((e) => e.data)).toEqual(['complete']);
    expect((await collect(['data: complete\n\n', 'data: half\n'])).map((e) => e.data)).toEqual(['complete']);
  });

  it('fails with EVENT_TOO_LARGE on an oversized event, after yielding the earlier ones', () => {
    const big = 'x'.repeat(200);
    const { events, failure } = read(['data: small\n\n', `data: ${big}\n\n`], 100, { operation: 'Op', url: 'http://a/x' });
    expect(events.map((e) => e.data)).toEqual(['small']);
    expect(failure).toBeInstanceOf(TetherError);
    expect(failure?.code).toBe('EVENT_TOO_LARGE');
    expect(failure?.message).toContain('Op http://a/x');
  });

  it('returns every event one chunk completes, in one call', () => {
    const reader = new SseReader(1_000, {});
    const batch = reader.push(new TextEncoder().encode('data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4'));
    expect(batch.map((e) => e.data)).toEqual(['1', '2', '3']);
    expect(reader.push(new TextEncoder().encode('\n\n')).map((e) => e.data)).toEqual(['4']);
    expect(reader.end()).toEqual([]);
  });

  it('fails with EVENT_TOO_LARGE on an unterminated flood, without buffering it all', async () => {
    const flood = Array.from({ length: 50 }, () => 'y'.repeat(100));
    await expect(collect(['data: ', ...flood], 1_000)).rejects.toMatchObject({ code: 'EVENT_TOO_LARGE' });
  });
});
