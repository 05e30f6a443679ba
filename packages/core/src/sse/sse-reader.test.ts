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

/** Every split of `text` into two chunks, and the text in one chunk. */
function twoChunkSplits(text: string): string[][] {
  const splits = [[text]];
  for (let cut = 1; cut < text.length; cut++) splits.push([text.slice(0, cut), text.slice(cut)]);
  return splits;
}

/** The outcome of a read, comparable across splits: the events and the failure's code. */
function outcome(chunks: (string | Uint8Array)[], maxEventSize: number): { events: SseEvent[]; code: string | undefined } {
  const { events, failure } = read(chunks, maxEventSize);
  return { events, code: failure?.code };
}

describe('SseReader on hostile input (issue 10)', () => {
  it('delivers an event ended by CR CR as soon as its chunk arrives, not with the next line break', () => {
    const reader = new SseReader(1_000, {});
    expect(reader.push(new TextEncoder().encode('data: 1\r\r')).map((e) => e.data)).toEqual(['1']);
    // The LF of a CRLF split after the CR is not a second line end.
    expect(reader.push(new TextEncoder().encode('\ndata: 2\r\n')).map((e) => e.data)).toEqual([]);
    expect(reader.push(new TextEncoder().encode('\r\n')).map((e) => e.data)).toEqual(['2']);
    expect(reader.end()).toEqual([]);
  });

  it('delivers the final event whatever the split when the stream ends right after its CR', () => {
    const text = 'data: fin\n\rx';
    for (const chunks of twoChunkSplits(text)) {
      expect(outcome(chunks, 1_000), JSON.stringify(chunks)).toEqual({ events: [{ data: 'fin', event: undefined, id: undefined }], code: undefined });
    }
  });

  it('throws nothing but TetherErrors: a full line ended by CR, then a lone 0xE2 and the end', () => {
    for (const length of [99, 100]) {
      const line = new TextEncoder().encode(`data: ${'x'.repeat(length - 6)}\r`);
      for (const chunks of [[line, new Uint8Array([0xe2])], [Uint8Array.of(...line, 0xe2)]]) {
        let result: ReturnType<typeof read> | undefined;
        expect(() => (result = read(chunks, 100))).not.toThrow();
        expect(result?.events).toEqual([]);
        expect(result?.failure).toBeUndefined();
      }
    }
  });

  it.each([
    ['a comment', ': '],
    ['an id: line', 'id: '],
    ['a retry: line', 'retry: '],
    ['an unknown field', 'foo: '],
  ])('fails with EVENT_TOO_LARGE on an oversized %s whatever the split', (_name, prefix) => {
    const text = `${prefix}${'c'.repeat(150)}\ndata: after\n\n`;
    const expected = { events: [], code: 'EVENT_TOO_LARGE' };
    expect(outcome([text], 100)).toEqual(expected);
    for (const chunks of twoChunkSplits(text)) expect(outcome(chunks, 100), JSON.stringify(chunks)).toEqual(expected);
  });

  it('looks for a CR once per CR in a chunk, not once per line (no rescanning the rest of the chunk per line)', () => {
    // 256 Ki lines after one CR: the old reader searched for the next CR from every line, each search
    // running to the end of the chunk (quadratic). Counted, not timed: the searches for '\r'.
    const text = `\r${':\n'.repeat(256 * 1024)}data: 1\n\n`;
    const bytes = new TextEncoder().encode(text);
    const original = String.prototype.indexOf;
    let crSearches = 0;
    String.prototype.indexOf = function (this: string, search: string, position?: number): number {
      if (search === '\r') crSearches++;
      return original.call(this, search, position);
    };
    let events: { data: string }[];
    try {
      const reader = new SseReader(1_000, {});
      events = [...reader.push(bytes), ...reader.end()];
    } finally {
      String.prototype.indexOf = original;
    }
    expect(events.map((e) => e.data)).toEqual(['1']);
    expect(crSearches).toBeLessThanOrEqual(4);
  });
});

describe('SseReader and the byte order mark', () => {
  it('drops one BOM opening the body, even split across chunks, and keeps any other U+FEFF', async () => {
    const bom = [0xef, 0xbb, 0xbf];
    const body = (text: string): Uint8Array => Uint8Array.from([...bom, ...new TextEncoder().encode(text)]);
    expect((await collect([body('data: a\n\n')])).map((e) => e.data)).toEqual(['a']);
    expect((await collect([Uint8Array.from(bom.slice(0, 2)), Uint8Array.from([bom[2] ?? 0]), 'data: a\n\n'])).map((e) => e.data)).toEqual(['a']);
    // A second BOM is part of the first line: the field "\uFEFFdata" is unknown.
    expect((await collect([body('\ufeffdata: a\n\ndata: b\n\n')])).map((e) => e.data)).toEqual(['b']);
    // U+FEFF at the start of a later chunk is text, not a BOM.
    expect((await collect(['data: a\n\n', '\ufeffdata: b\n\n', 'data: \ufeffc\n\n'])).map((e) => e.data)).toEqual(['a', '\ufeffc']);
  });
});
