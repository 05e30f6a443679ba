import { describe, expect, it } from 'vitest';
import { TetherError } from '../errors/tether-error.js';
import { readSseEvents, type SseEvent } from './sse-reader.js';

function body(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === 'string' ? encoder.encode(c) : c);
      controller.close();
    },
  });
}

async function collect(chunks: (string | Uint8Array)[], maxEventSize = 1_000): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of readSseEvents(body(chunks), { maxEventSize, context: { operation: 'Test' } })) out.push(event);
  return out;
}

describe('readSseEvents', () => {
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

  it('fails with EVENT_TOO_LARGE on an oversized event, after yielding the earlier ones', async () => {
    const out: string[] = [];
    const big = 'x'.repeat(200);
    let error: unknown;
    try {
      for await (const e of readSseEvents(body(['data: small\n\n', `data: ${big}\n\n`]), { maxEventSize: 100, context: { operation: 'Op', url: 'http://a/x' } })) {
        out.push(e.data);
      }
    } catch (e) {
      error = e;
    }
    expect(out).toEqual(['small']);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).code).toBe('EVENT_TOO_LARGE');
    expect((error as TetherError).message).toContain('Op http://a/x');
  });

  it('fails with EVENT_TOO_LARGE on an unterminated flood, without buffering it all', async () => {
    const flood = Array.from({ length: 50 }, () => 'y'.repeat(100));
    await expect(collect(['data: ', ...flood], 1_000)).rejects.toMatchObject({ code: 'EVENT_TOO_LARGE' });
  });

  it('reports a broken body as NETWORK', async () => {
    let pulls = 0;
    const broken = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(new TextEncoder().encode('data: a\n\n'));
        else controller.error(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
      },
    });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const e of readSseEvents(broken, { maxEventSize: 100, context: {} })) seen.push(e.data);
      })(),
    ).rejects.toMatchObject({ code: 'NETWORK', message: expect.stringContaining('UND_ERR_SOCKET other side closed') });
    expect(seen).toEqual(['a']);
  });
});
