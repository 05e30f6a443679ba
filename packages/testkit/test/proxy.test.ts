import { Buffer } from 'node:buffer';
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultProxy, startTestAgent } from '../src/index.js';
import type { FaultProxy, FaultProxyOptions, ScenarioFn, TestAgent, TestAgentOptions } from '../src/index.js';
import { SseBoundaryScanner } from '../src/proxy/sse-boundary-scanner.js';
import { COMBOS, until, v1Message } from './helpers.js';
import type { Json } from './helpers.js';

// Plain fetch clients against a real fake agent behind the proxy: what a client sees on the wire.

let agent: TestAgent | undefined;
let proxy: FaultProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  await agent?.close();
  proxy = undefined;
  agent = undefined;
});

async function setup(options: Partial<FaultProxyOptions> = {}, agentOptions: TestAgentOptions = {}): Promise<{ a: TestAgent; p: FaultProxy }> {
  agent = await startTestAgent(agentOptions);
  proxy = await startFaultProxy({ target: agent.origin, ...options });
  return { a: agent, p: proxy };
}

function rpcInit(method: string, params: unknown): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  };
}

function v1Stream(base: string, text: string): Promise<Response> {
  return fetch(`${base}/a2a/jsonrpc`, rpcInit('SendStreamingMessage', { message: v1Message(text) }));
}

interface RawRead {
  bytes: Buffer;
  text: string;
  /** Set when the body read failed (or did not finish within the timeout). */
  error: unknown;
}

/** Read a body to its end as raw bytes, recording a failure instead of throwing. Bounded by `timeoutMs`. */
async function readRaw(response: Response, timeoutMs = 3000): Promise<RawRead> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let error: unknown;
  const timer = setTimeout(() => {
    error = new Error('read timed out');
    void reader.cancel();
  }, timeoutMs);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
  } catch (caught) {
    error ??= caught;
  } finally {
    clearTimeout(timer);
  }
  const bytes = Buffer.concat(chunks);
  return { bytes, text: bytes.toString('utf8'), error };
}

function completeEvents(text: string): number {
  return text.split('\n\n').length - 1;
}

/** True when the bytes end partway through a multi-byte UTF-8 sequence. */
function endsInsideUtf8Sequence(bytes: Uint8Array): boolean {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back;
  }
  return false;
}

const STREAM = 'stream updates=2 chunks=2 delayMs=2'; // task, 2 statuses, 2 chunks, completed: 6 events

/**
 * A `held` scenario: working, then nothing until `release()` (or the agent closes), then completed.
 * Its task cannot finish before the test is ready, however slow the machine.
 */
function heldTask(): { scenarios: Record<string, ScenarioFn>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: ScenarioFn = async (ctx) => {
    ctx.status('working');
    await new Promise<void>((resolve, reject) => {
      ctx.cancelled.addEventListener('abort', () => reject(ctx.cancelled.reason as Error), { once: true });
      void released.then(resolve);
    });
    ctx.status('completed');
  };
  return { scenarios: { held }, release };
}

describe('forwarding', () => {
  it('rewrites the agent origin in the card to the proxy, keeping ETag and a correct Content-Length', async () => {
    const { a, p } = await setup();
    const direct = await fetch(a.cardUrl);
    const response = await fetch(`${p.url}/.well-known/agent-card.json`);
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).not.toContain(a.origin);
    const card = JSON.parse(text) as Json;
    const urls = (card['supportedInterfaces'] as Json[]).map((i) => i['url'] as string);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(`${p.origin}/a2a/`)).toBe(true);
    expect(response.headers.get('etag')).toBe(direct.headers.get('etag'));
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(p.log[0]).toMatchObject({ method: 'GET', path: '/.well-known/agent-card.json', status: 200, sse: false });
    expect(p.log[0]!.fault).toBeUndefined();
  });

  it('passes method, path, query, headers and body through, and SSE streams event for event', async () => {
    const { a, p } = await setup();
    const echo = await fetch(`${p.url}/a2a/jsonrpc?x=1`, { ...rpcInit('SendMessage', { message: v1Message('hello') }) });
    expect(((await echo.json()) as Json)['result']['message']['parts'][0]['text']).toBe('echo: hello');
    expect(a.requests[0]).toMatchObject({ method: 'POST', path: '/a2a/jsonrpc', search: '?x=1' });
    expect(a.requests[0]!.headers['a2a-version']).toBe('1.0');
    expect(a.requests[0]!.headers['host']).toBe(`127.0.0.1:${a.port}`);

    const direct = await readRaw(await v1Stream(a.origin, STREAM));
    const response = await v1Stream(p.url, STREAM);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const proxied = await readRaw(response);
    expect(proxied.error).toBeUndefined();
    expect(completeEvents(proxied.text)).toBe(completeEvents(direct.text));
    expect(completeEvents(proxied.text)).toBe(6);
    expect(p.log[1]).toMatchObject({ rpcMethod: 'SendStreamingMessage', sse: true, eventsForwarded: 6, status: 200 });
    expect(p.log[1]!.bytesForwarded).toBe(proxied.bytes.length);
    expect(p.stats).toMatchObject({ requests: 2, forwarded: 2, bytesForwarded: p.log[0]!.bytesForwarded + proxied.bytes.length });
  });

  it('answers 502 when the agent is down', async () => {
    const { a, p } = await setup();
    await a.stop();
    const response = await fetch(`${p.url}/.well-known/agent-card.json`);
    expect(response.status).toBe(502);
    expect(await response.text()).toContain('Fault proxy');
  });
});

describe('fault rules', () => {
  it('cut reset: the body read rejects after the given events', async () => {
    const { p } = await setup();
    p.addFault({ kind: 'cut', afterEvents: 2, mode: 'reset', match: { sse: true } });
    const read = await readRaw(await v1Stream(p.url, STREAM));
    expect(read.error).toBeDefined();
    expect(read.text.endsWith('\n\n')).toBe(true);
    expect(completeEvents(read.text)).toBe(2);
    expect(p.log[0]).toMatchObject({ fault: 'cut(reset, afterEvents=2, within=boundary)', eventsForwarded: 2 });
    expect(p.stats.cuts).toEqual({ reset: 1, end: 0 });
    // times defaults to 1: the next stream is whole.
    expect(completeEvents((await readRaw(await v1Stream(p.url, STREAM))).text)).toBe(6);
  });

  it('cut end: the body ends cleanly with fewer events than the agent sent', async () => {
    const { p } = await setup();
    p.addFault({ kind: 'cut', afterEvents: 3, mode: 'end' });
    const read = await readRaw(await v1Stream(p.url, STREAM));
    expect(read.error).toBeUndefined();
    expect(completeEvents(read.text)).toBe(3);
    expect(read.text.endsWith('\n\n')).toBe(true);
    expect(p.stats.cuts).toEqual({ reset: 0, end: 1 });
  });

  it("cut within 'event': the last bytes received are part of an event", async () => {
    const { p } = await setup();
    p.addFault({ kind: 'cut', afterEvents: 1, mode: 'end', within: 'event' });
    const read = await readRaw(await v1Stream(p.url, STREAM));
    expect(read.error).toBeUndefined();
    expect(completeEvents(read.text)).toBe(1);
    const tail = read.text.slice(read.text.indexOf('\n\n') + 2);
    expect(tail.startsWith('data: {')).toBe(true);
    expect(tail.endsWith('\n\n')).toBe(false);
    expect(p.log[0]!.eventsForwarded).toBe(1);
  });

  it("cut within 'utf8': the bytes end inside a multi-byte character", async () => {
    const { p } = await setup();
    p.addFault({ kind: 'cut', afterEvents: 1, mode: 'reset', within: 'utf8' });
    const read = await readRaw(await v1Stream(p.url, 'stream updates=0 chunks=3 delayMs=2 unicode=1'));
    expect(read.error).toBeDefined();
    expect(completeEvents(read.bytes.toString('latin1'))).toBe(1);
    expect(endsInsideUtf8Sequence(read.bytes)).toBe(true);
    expect(read.bytes.toString('latin1')).toContain('chunk-1;'); // the cut is in the first artifact event
  });

  it('cut afterBytes sends exactly that many body bytes; a clean cut drops Content-Length', async () => {
    const { p } = await setup();
    p.addFault({ kind: 'cut', afterBytes: 10, mode: 'end' });
    const response = await fetch(`${p.url}/.well-known/agent-card.json`);
    expect(response.headers.get('content-length')).toBeNull();
    const read = await readRaw(response);
    expect(read.bytes.length).toBe(10);
    expect(read.error).toBeUndefined();
  });

  it('status burst: three 503 pages, then the agent answers; the agent never sees the three', async () => {
    const { a, p } = await setup();
    p.addFault({ kind: 'status', status: 503, times: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${p.url}/.well-known/agent-card.json`);
      if (i === 0) {
        expect(response.headers.get('content-type')).toContain('text/html');
        expect(await response.text()).toContain('503 Service Unavailable');
      } else {
        await response.arrayBuffer();
      }
      statuses.push(response.status);
    }
    expect(statuses).toEqual([503, 503, 503, 200]);
    expect(a.requests).toHaveLength(1);
    expect(p.stats.injectedStatus).toBe(3);
    expect(p.log.map((e) => e.fault)).toEqual(['status(503)', 'status(503)', 'status(503)', undefined]);
  });

  it('status 429 carries Retry-After; forward: true lets the agent act and still fails the client', async () => {
    const { a, p } = await setup();
    p.addFault({ kind: 'status', status: 429, retryAfter: 2, body: '{"error":"slow down"}', contentType: 'application/json' });
    const limited = await fetch(`${p.url}/.well-known/agent-card.json`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(await limited.json()).toEqual({ error: 'slow down' });

    p.addFault({ kind: 'status', status: 502, forward: true, match: { rpcMethod: 'SendMessage' } });
    const message = v1Message('stream updates=0 chunks=1 delayMs=1');
    const failed = await fetch(`${p.url}/a2a/jsonrpc`, rpcInit('SendMessage', { message }));
    expect(failed.status).toBe(502);
    await failed.arrayBuffer();
    expect(a.tasks.list().map((t) => t.state)).toEqual(['completed']);
  });

  it('stall: headers and n events, then silence on an open socket until close()', async () => {
    const { a, p } = await setup();
    p.addFault({ kind: 'stall', afterEvents: 1, match: { sse: true } });
    const response = await v1Stream(p.url, 'stream updates=2 chunks=2 delayMs=5');
    const read = readRaw(response, 4_000);
    // The agent sends all six events and ends its stream; the proxy passes on the first only.
    await until(() => a.tasks.list()[0]?.state === 'completed');
    expect(p.stats.stalls).toBe(1);
    expect(p.log[0]).toMatchObject({ fault: 'stall(afterEvents=1)', eventsForwarded: 1 });
    // Only close() ends the stalled response (the read's own guard would report 'read timed out').
    await p.close();
    const { text, error } = await read;
    expect(completeEvents(text)).toBe(1);
    expect(String(error)).not.toContain('timed out');
  });

  it('drip: the body arrives whole, in writes of at most bytesPerWrite', async () => {
    const { a, p } = await setup();
    p.addFault({ kind: 'drip', bytesPerWrite: 128, intervalMs: 2 });
    const read = await readRaw(await fetch(`${p.url}/.well-known/agent-card.json`));
    const direct = await (await fetch(a.cardUrl)).text();
    expect(read.text).toBe(direct.replaceAll(a.origin, p.origin));
    const writes = p.log[0]!.writes;
    expect(writes).toBeGreaterThanOrEqual(Math.ceil(read.bytes.length / 128));
    expect(writes).toBeLessThan(Math.ceil(read.bytes.length / 128) + 5);
    expect(p.stats.dripped).toBe(1);
  });

  it('delayHeaders: the response starts no sooner than asked', async () => {
    const { p } = await setup();
    p.addFault({ kind: 'delayHeaders', ms: 150 });
    const started = Date.now();
    const response = await fetch(`${p.url}/.well-known/agent-card.json`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(p.stats.delayedHeaders).toBe(1);
  });

  it('loseAnswer: the agent processed the message, the client only sees a failure', async () => {
    const { a, p } = await setup();
    p.addFault({ kind: 'loseAnswer', match: { rpcMethod: /^SendMessage$/ } });
    const message = v1Message('stream updates=1 chunks=1 delayMs=1');
    await expect(fetch(`${p.url}/a2a/jsonrpc`, rpcInit('SendMessage', { message }))).rejects.toThrow();
    expect((a.requests[0]!.body as Json)['params']['message']['messageId']).toBe(message['messageId']);
    expect(a.tasks.list().map((t) => t.state)).toEqual(['completed']);
    expect(p.log[0]).toMatchObject({ fault: 'loseAnswer', rpcMethod: 'SendMessage' });
    expect(p.log[0]!.status).toBeUndefined();
    expect(p.stats.lostAnswers).toBe(1);
  });

  it('dropRequest: the connection is reset and the agent never sees the request', async () => {
    const { a, p } = await setup();
    p.addFault({ kind: 'dropRequest', match: { method: 'post', path: '/a2a/jsonrpc' } });
    await fetch(`${p.url}/.well-known/agent-card.json`).then((r) => r.arrayBuffer()); // not matched
    await expect(fetch(`${p.url}/a2a/jsonrpc`, rpcInit('SendMessage', { message: v1Message('hi') }))).rejects.toThrow();
    expect(a.requests.map((r) => r.path)).toEqual(['/.well-known/agent-card.json']);
    expect(p.stats).toMatchObject({ droppedRequests: 1, requests: 2, forwarded: 1 });
  });

  it('matches on rpcMethod, applies a rule `times` times, and rejects rules that cannot act', async () => {
    const task = heldTask();
    const { a, p } = await setup({}, { scenarios: task.scenarios });
    p.addFault({ kind: 'cut', mode: 'end', afterEvents: 0, times: 2, match: { rpcMethod: /SubscribeToTask|tasks\/resubscribe/ } });
    const params = { message: v1Message('held'), configuration: { returnImmediately: true } };
    const sent = await fetch(`${p.url}/a2a/jsonrpc`, rpcInit('SendMessage', params));
    const taskId = ((await sent.json()) as Json)['result']['task']['id'] as string;
    const subscribe = (): Promise<Response> => fetch(`${p.url}/a2a/jsonrpc`, rpcInit('SubscribeToTask', { id: taskId }));
    const sizes: number[] = [];
    for (let i = 0; i < 2; i++) sizes.push(completeEvents((await readRaw(await subscribe())).text));
    // The task is still working (held): the third subscription is live; once it is open, let the task end.
    const third = await subscribe();
    task.release();
    sizes.push(completeEvents((await readRaw(third)).text));
    expect(sizes).toEqual([0, 0, 2]); // the snapshot, then completed
    expect(p.log.slice(1).map((entry) => entry.fault)).toEqual(['cut(end, afterEvents=0, within=boundary)', 'cut(end, afterEvents=0, within=boundary)', undefined]);
    expect(a.tasks.get(taskId)?.state).toBe('completed');

    expect(() => p.addFault({ kind: 'dropRequest', match: { sse: true } })).toThrow(TypeError);
    expect(() => p.addFault({ kind: 'cut', mode: 'end', afterBytes: 1, afterEvents: 1 })).toThrow(TypeError);
    expect(() => p.addFault({ kind: 'status', status: 503, times: 0 })).toThrow(RangeError);
    p.addFault({ kind: 'dropRequest', times: Infinity });
    p.clearFaults();
    expect((await fetch(`${p.url}/.well-known/agent-card.json`)).status).toBe(200);
  });
});

describe('event-counted faults and JSON answers', () => {
  it('a stall without match.sse leaves JSON answers (and their keep-alive socket) alone', async () => {
    const { p } = await setup();
    p.addFault({ kind: 'stall', afterEvents: 1, match: { rpcMethod: /GetTask|SubscribeToTask/ } });
    // A JSON answer (task not found) to a matching method: delivered whole, socket reusable.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${p.url}/a2a/jsonrpc`, rpcInit('GetTask', { id: 'none' }));
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32001);
    }
    expect(p.stats.stalls).toBe(0);
    expect(p.log).toHaveLength(3);
    expect(p.log.map((entry) => entry.fault)).toEqual([undefined, undefined, undefined]);
  });

  it('a stall with match.sse: false does apply to a JSON answer when asked', async () => {
    const { p } = await setup();
    p.addFault({ kind: 'stall', afterEvents: 0, match: { rpcMethod: /GetTask/, sse: false } });
    const controller = new AbortController();
    const pending = fetch(`${p.url}/a2a/jsonrpc`, { ...rpcInit('GetTask', { id: 'none' }), signal: controller.signal }).then((r) => r.text());
    await until(() => p.stats.stalls === 1);
    controller.abort();
    await expect(pending).rejects.toThrow();
  });
});

describe('unicode stream scenario', () => {
  it('unicode=1 chunks round-trip through every dialect; the default stays ASCII', async () => {
    agent = await startTestAgent();
    const expected = [1, 2].map((i) => `chunk-${i};é✓😀`).join('');
    for (const combo of COMBOS) {
      const { frames } = await combo.stream(agent, 'stream updates=1 chunks=2 delayMs=1 unicode=1');
      const texts = frames.map((f) => combo.event(f)).filter((e) => e.kind === 'artifact').map((e) => e.text);
      expect(texts.join(''), combo.name).toBe(expected);
    }
    for (const task of agent.tasks.list()) {
      const parts = task.artifacts[0]!.parts.map((part) => (part.kind === 'text' ? part.text : ''));
      expect(parts.join('')).toBe(expected);
    }
    const { frames } = await COMBOS[0]!.stream(agent, 'stream updates=0 chunks=2 delayMs=1');
    const plain = frames.map((f) => COMBOS[0]!.event(f)).filter((e) => e.kind === 'artifact').map((e) => e.text);
    expect(plain).toEqual(['chunk-1;', 'chunk-2;']);
  });
});

describe('chaos', () => {
  /** A fixed request sequence; returns the fault of each request in order. */
  async function run(p: FaultProxy, seed: number): Promise<(string | undefined)[]> {
    p.log.length = 0;
    p.chaos({ seed, cutProbability: 0.5, maxEventsBeforeCut: 3, resetRatio: 0.5, midEventRatio: 0.3, statusProbability: 0.25 });
    for (let i = 0; i < 12; i++) {
      try {
        const response = i % 3 === 2 ? await fetch(`${p.url}/.well-known/agent-card.json`) : await v1Stream(p.url, STREAM);
        await readRaw(response);
      } catch {
        // A reset before the headers: that is the point.
      }
    }
    p.chaos(false);
    return p.log.map((entry) => entry.fault);
  }

  it('the same seed over the same requests gives the same faults', async () => {
    const { p } = await setup();
    const first = await run(p, 1234);
    const second = await run(p, 1234);
    expect(second).toEqual(first);
    expect(first.filter((f) => f !== undefined).length).toBeGreaterThan(2);
    expect(first.some((f) => f?.startsWith('chaos: cut('))).toBe(true);
    expect(first.some((f) => f?.startsWith('chaos: status('))).toBe(true);
    expect(p.stats.seed).toBe(1234);
    expect(await run(p, 99)).not.toEqual(first);
  });

  it('with tagHeader, a tag\'s requests get the same faults whatever runs between them; the header stays here', async () => {
    const TAG = 'x-test-tag';
    /** Request `i` of a fixed sequence (streams and card fetches), tagged or not; a reset is fine. */
    async function request(p: FaultProxy, i: number, tag: string | undefined): Promise<void> {
      const headers: Record<string, string> = tag === undefined ? {} : { [TAG]: tag };
      try {
        const init = rpcInit('SendStreamingMessage', { message: v1Message(STREAM) });
        const response =
          i % 3 === 2
            ? await fetch(`${p.url}/.well-known/agent-card.json`, { headers })
            : await fetch(`${p.url}/a2a/jsonrpc`, { ...init, headers: { ...(init.headers as Record<string, string>), ...headers } });
        await readRaw(response);
      } catch {
        // A reset before the headers.
      }
    }
    /** The faults request sequence `A` gets when `others` other requests (tag B, or none) run before each of its own. */
    async function faultsOfA(others: number, tagged: boolean): Promise<(string | undefined)[]> {
      const { a, p } = await setup({ seed: 42, ...(tagged ? { tagHeader: TAG } : {}) });
      p.chaos({ cutProbability: 0.5, maxEventsBeforeCut: 3, resetRatio: 0.5, midEventRatio: 0.3, statusProbability: 0.25 });
      for (let i = 0; i < 9; i++) {
        for (let n = 0; n < others; n++) await request(p, i + n, n % 2 === 0 ? 'B' : undefined);
        await request(p, i, 'A');
      }
      if (tagged) expect(a.requests.filter((r) => r.headers[TAG] !== undefined)).toEqual([]);
      const entries = p.log.filter((entry) => (tagged ? entry.tag === 'A' : entry.id % (others + 1) === 0));
      expect(entries).toHaveLength(9);
      await p.close();
      await a.close();
      return entries.map((entry) => entry.fault);
    }
    const alone = await faultsOfA(0, true);
    expect(await faultsOfA(2, true)).toEqual(alone);
    expect(alone.filter((fault) => fault !== undefined).length).toBeGreaterThan(2);
    // Without tags, the requests in between draw from the same PRNG and move A's faults.
    expect(await faultsOfA(2, false)).not.toEqual(await faultsOfA(0, false));
  });

  it('a proxy seed makes rule probabilities reproducible', async () => {
    const outcomes: boolean[][] = [];
    for (let round = 0; round < 2; round++) {
      const { p } = await setup({ seed: 5 });
      p.addFault({ kind: 'status', status: 503, probability: 0.5, times: Infinity });
      const got: boolean[] = [];
      for (let i = 0; i < 8; i++) {
        const response = await fetch(`${p.url}/.well-known/agent-card.json`);
        await response.arrayBuffer();
        got.push(response.status === 503);
      }
      outcomes.push(got);
      await p.close();
      await agent?.close();
    }
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(new Set(outcomes[0])).toEqual(new Set([true, false]));
  });
});

describe('SSE event boundaries', () => {
  it('counts \\n\\n, \\r\\n\\r\\n and \\r\\r terminators across chunk splits', () => {
    const stream = Buffer.from('data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\n\r\n: comment\n\n\n\n');
    const expected = [9, 20, 29, 39, 50];
    for (let split = 0; split <= stream.length; split++) {
      const scanner = new SseBoundaryScanner();
      const first = scanner.scan(stream.subarray(0, split));
      const second = scanner.scan(stream.subarray(split)).map((end) => end + split);
      const ends = [...first, ...second];
      expect(ends.length, `split at ${split}`).toBe(expected.length);
      // A \r\n terminator split between its \r and \n ends at the \r, which a client already treats as an end.
      for (const [i, end] of ends.entries()) expect(end === expected[i] || end === expected[i]! - 1).toBe(true);
    }
  });
});

describe('close()', () => {
  function tcpHandles(): number {
    return process.getActiveResourcesInfo().filter((name) => name.startsWith('TCP')).length;
  }

  it('releases every socket and timer, stalled and dripping responses included', async () => {
    await until(() => tcpHandles() === 0, 2000).catch(() => undefined);
    const before = tcpHandles();
    const timersBefore = process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    const { p } = await setup();
    p.addFault({ kind: 'stall', afterEvents: 1, match: { sse: true } });
    p.addFault({ kind: 'drip', bytesPerWrite: 1, intervalMs: 50 });
    const stalled = await v1Stream(p.url, 'slow steps=20 delayMs=10');
    const dripping = await fetch(`${p.url}/.well-known/agent-card.json`);
    const reads = [readRaw(stalled, 5000), readRaw(dripping, 5000)];
    await until(() => p.log.length === 2 && p.log[0]!.eventsForwarded === 1 && p.log[1]!.writes > 1);
    await p.close();
    await agent!.close();
    for (const read of await Promise.all(reads)) expect(String(read.error)).not.toContain('timed out');
    await until(() => tcpHandles() <= before, 2000);
    const timers = process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    expect(timers).toBeLessThanOrEqual(timersBefore);
  });
});
