/* global ReadableStream, Response, TextEncoder */
// "Hostile input" timings of scripts/bench.mjs (issue 10): what one call costs when the agent sends
// megabytes of markup-like or CR-only text, through the BUILT @a2a-tether/core and its public API
// (`connect` with an in-memory fetch, so only Tether's own work is timed). Each size is timed alone;
// linear code takes ≈ 2× per doubling of the input, quadratic ≈ 4×.
import { performance } from 'node:perf_hooks';

const root = new URL('../../', import.meta.url);
const { connect, TetherError } = await import(new URL('packages/core/dist/index.js', root).href);

const ORIGIN = 'http://hostile.bench';
const CHUNK = 64 * 1024;
const encoder = new TextEncoder();

/** `unit` repeated to `size` characters. */
const fill = (unit, size) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
const rpcResult = (id, result) => JSON.stringify({ jsonrpc: '2.0', id, result });
const completed = { task: { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } } };

/**
 * The cases. `prepare(size)` builds the hostile bytes once, outside the timing; the answer it returns
 * builds one call's response around them (only a small tail carries the call's JSON-RPC id). Each case
 * says which call to make and what must come out: a typed error with this code, or a normal end.
 */
export const HOSTILE_CASES = [
  {
    name: 'SSE: one non-JSON event of `<a<a<a…` (MALFORMED_EVENT, with a snippet)',
    call: 'stream',
    expect: 'MALFORMED_EVENT',
    prepare: (size) => sse(`data: ${fill('<a', size)}`, () => '\n\n'),
  },
  {
    name: 'SSE: CR-only lines (`: ping\\r` comments), then a final event ended by CR CR',
    call: 'stream',
    expect: 'end',
    prepare: (size) => sse(fill(': ping\r', size), (id) => `\rdata: ${rpcResult(id, completed)}\r\r`),
  },
  {
    name: 'SSE: a comment line as long as the input in one chunk, then one CR',
    call: 'stream',
    expect: 'end',
    prepare: (size) => sse(`:${fill('x', size)}`, (id) => `\rdata: ${rpcResult(id, completed)}\n\n`, size + 1),
  },
  {
    name: 'unary: a text/html 502 page of `<a<a<a…` (HTTP_STATUS, with a snippet; error bodies are read up to 64 KiB)',
    call: 'get',
    expect: 'HTTP_STATUS',
    sizes: [8 * 1024, 16 * 1024, 32 * 1024, 64 * 1024],
    prepare: (size) => unary(fill('<a', size), 502, 'text/html'),
  },
  {
    name: 'unary: a 200 text/plain reply of `<script<script…` (UNEXPECTED_CONTENT_TYPE, with a snippet)',
    call: 'get',
    expect: 'UNEXPECTED_CONTENT_TYPE',
    prepare: (size) => unary(fill('<script', size), 200, 'text/plain'),
  },
];

/** An event-stream answer: `head` (in chunks of `chunk` bytes), then `tail(id)`. */
function sse(head, tail, chunk = CHUNK) {
  const bytes = encoder.encode(head);
  const chunks = [];
  for (let at = 0; at < bytes.length; at += chunk) chunks.push(bytes.subarray(at, at + chunk));
  return (id) => {
    const body = new ReadableStream({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.enqueue(encoder.encode(tail(id)));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}

/** A unary answer with this body, in chunks of 64 KiB. */
function unary(text, status, type) {
  const bytes = encoder.encode(text);
  return () => {
    const body = new ReadableStream({
      start(controller) {
        for (let at = 0; at < bytes.length; at += CHUNK) controller.enqueue(bytes.subarray(at, at + CHUNK));
        controller.close();
      },
    });
    return new Response(body, { status, headers: { 'content-type': type } });
  };
}

/**
 * Times every case at every size: the fastest of `rounds` calls (after one warm-up call), and the
 * growth per doubling of the input from the previous size.
 */
export async function hostileTimings({ sizes, rounds }) {
  let answer;
  const fetch = async (_input, init) => answer(JSON.parse(String(init?.body)).id);
  const card = {
    name: 'hostile',
    description: 'answers with hostile bodies',
    version: '1',
    supportedInterfaces: [{ url: `${ORIGIN}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const client = await connect(`${ORIGIN}/`, { card, fetch, streamFetch: fetch, cardCache: false, maxRetries: 0, maxResponseBytes: 64 * 1024 * 1024 });
  const results = [];
  for (const c of HOSTILE_CASES) {
    const rows = [];
    for (const size of c.sizes ?? sizes) {
      answer = c.prepare(size);
      const once = async () => {
        const start = performance.now();
        const outcome = await run(client, c.call);
        const ms = performance.now() - start;
        if (outcome !== c.expect) throw new Error(`${c.name} at ${size} characters: expected ${c.expect}, got ${outcome}`);
        return ms;
      };
      await once();
      const times = [];
      for (let i = 0; i < rounds; i++) times.push(await once());
      // The fastest call: what the input costs, with the least of the machine's other load in it.
      const ms = Math.min(...times);
      const previous = rows.at(-1);
      const perDoubling = previous ? (ms / previous.ms) ** (1 / Math.log2(size / previous.size)) : null;
      rows.push({ size, ms: Math.round(ms * 100) / 100, perDoubling: perDoubling === null ? null : Math.round(perDoubling * 100) / 100 });
    }
    results.push({ name: c.name, rows });
  }
  return results;
}

/** Makes one call; returns `'end'` or the code of the TetherError it failed with. */
async function run(client, call) {
  try {
    if (call === 'stream') {
      for await (const event of client.streamMessage('hi')) void event;
    } else {
      await client.getTask('t1');
    }
    return 'end';
  } catch (error) {
    if (!(error instanceof TetherError)) throw error;
    return error.code;
  }
}
