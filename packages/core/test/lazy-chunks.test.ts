import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Core from '../src/index.js';
import { json, rpcFrame, sse, startScriptedServer, v1Card, type ScriptedServer } from './helpers/scripted-server.js';

// The task engine and the card reader are most of what a web app would load before its first request,
// and neither is needed before the card is read: connect() imports both as it asks for the card (issue
// 17, D26). A page that cannot fetch such a chunk gets a typed error from the call that needs it, and a
// later call loads it again; the unary calls never need the engine.

/** A chunk as the page sees it: how often it was imported, and how many imports are still to fail. */
interface Chunk {
  failuresLeft: number;
  loads: number;
}
const engine: Chunk = { failuresLeft: 0, loads: 0 };
const reader: Chunk = { failuresLeft: 0, loads: 0 };

function mockChunk(path: string, chunk: Chunk): void {
  chunk.loads = 0;
  chunk.failuresLeft = 0;
  // Registered anew each time: vitest keeps a mocked module across resetModules() otherwise.
  vi.doMock(path, async (importOriginal) => {
    chunk.loads++;
    if (chunk.failuresLeft > 0) {
      chunk.failuresLeft--;
      throw new TypeError(`Failed to fetch dynamically imported module: /assets/${path.split('/').pop()}`);
    }
    return importOriginal();
  });
}

/** A fresh copy of core: nothing of it loaded yet, as on a page that just opened. */
async function freshCore(): Promise<typeof Core> {
  vi.resetModules();
  mockChunk('../src/task/engine.js', engine);
  mockChunk('../src/card/normalize-card.js', reader);
  return import('../src/index.js');
}

const done = { id: 't1', contextId: 'c1', status: { state: 'TASK_STATE_COMPLETED' } };

let server: ScriptedServer;
let cardAnsweredAfterLoads: number | undefined;
beforeEach(async () => {
  server = await startScriptedServer();
  cardAnsweredAfterLoads = undefined;
  // The card is answered once the engine's import has begun (or after 2 s): what connect() started first.
  server.on('GET /.well-known/agent-card.json', async (_req, res) => {
    for (let waited = 0; (engine.loads === 0 || reader.loads === 0) && waited < 2_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    cardAnsweredAfterLoads = Math.min(engine.loads, reader.loads);
    json(res, 200, v1Card(server.origin, { supportedInterfaces: [{ url: `${server.origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }] }));
  });
  server.on('POST /rpc', (req, res) => {
    const rpc = JSON.parse(req.body) as { id: number; method: string };
    json(res, 200, { jsonrpc: '2.0', id: rpc.id, result: rpc.method === 'SendMessage' ? { task: done } : done });
  });
});
afterEach(async () => {
  vi.doUnmock('../src/task/engine.js');
  vi.doUnmock('../src/card/normalize-card.js');
  await server.close();
});

const sent = (): string[] => server.requests.filter((r) => r.method === 'POST').map((r) => (JSON.parse(r.body) as { method: string }).method);

describe('loading the task engine and the card reader', () => {
  it('neither is part of loading core; connect() starts both before the card is answered, without any start()', async () => {
    const { connect } = await freshCore();
    expect([engine.loads, reader.loads]).toEqual([0, 0]);
    await connect(server.url, { cardCache: false });
    expect(cardAnsweredAfterLoads).toBe(1);
    expect([engine.loads, reader.loads]).toEqual([1, 1]);
  });

  it('an engine that does not load: start(), resume(), resumeAll() and tasks() reject with a NETWORK error naming it, nothing sent', async () => {
    const { connect, TetherError } = await freshCore();
    engine.failuresLeft = Number.POSITIVE_INFINITY;
    const client = await connect(server.url, { cardCache: false });
    for (const call of [() => client.start('hi', { delivery: 'poll' }), () => client.resume('t1'), () => client.resumeAll(), () => client.tasks()]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TetherError);
      expect(error).toMatchObject({ code: 'NETWORK', maybeDelivered: false, isRetryable: true });
      expect((error as InstanceType<typeof TetherError>).message).toMatch(/^could not load Tether's task engine: ./);
      expect((error as InstanceType<typeof TetherError>).cause).toBeInstanceOf(Error);
    }
    expect(sent()).toEqual([]);
    // The unary calls do not need the engine.
    expect((await client.getTask('t1')).status.state).toBe('completed');
    // Loaded again by the next call once the page can fetch it.
    engine.failuresLeft = 0;
    const handle = await client.start('hi', { delivery: 'poll' });
    expect((await handle.done()).status.state).toBe('completed');
    expect(sent()[1]).toBe('SendMessage');
  });

  it('a load that failed at connect() (nobody waiting on it) is no unhandled rejection; start() loads it again', async () => {
    const { connect } = await freshCore();
    engine.failuresLeft = 1;
    const client = await connect(server.url, { cardCache: false });
    await vi.waitFor(() => expect(engine.loads).toBe(1));
    await new Promise((r) => setTimeout(r, 10));
    const handle = await client.start('hi', { delivery: 'poll' });
    expect((await handle.done()).status.state).toBe('completed');
    expect(engine.loads).toBe(2);
  });

  it('a card reader that does not load: connect() rejects with a NETWORK error naming it; the next connect() loads it', async () => {
    const { connect, TetherError } = await freshCore();
    reader.failuresLeft = Number.POSITIVE_INFINITY;
    for (const options of [{ cardCache: false as const, maxRetries: 0 }, { card: v1Card(server.origin) }]) {
      const error = await connect(server.url, options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TetherError);
      expect(error).toMatchObject({ code: 'NETWORK', maybeDelivered: false, isRetryable: true });
      expect((error as InstanceType<typeof TetherError>).message).toMatch(/^could not load Tether's card reader: ./);
    }
    reader.failuresLeft = 0;
    const client = await connect(server.url, { cardCache: false });
    expect(client.card.name).toBe('scripted');
  });
});

describe("a raw stream's iteration comes with the task engine's code", () => {
  beforeEach(() => {
    server.on('POST /rpc', (req, res) => {
      const rpc = JSON.parse(req.body) as { method: string };
      if (rpc.method === 'SendStreamingMessage') sse(res, [rpcFrame({ task: done })]);
      else json(res, 200, { jsonrpc: '2.0', id: (JSON.parse(req.body) as { id: number }).id, result: done });
    });
  });

  it('an engine that does not load: the first next() rejects with a NETWORK error naming it, nothing sent; the next stream loads it again', async () => {
    const { connect, TetherError } = await freshCore();
    engine.failuresLeft = Number.POSITIVE_INFINITY;
    const client = await connect(server.url, { cardCache: false });
    const error = await client.streamMessage('hi')[Symbol.asyncIterator]().next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'NETWORK', maybeDelivered: false });
    expect((error as Error).message).toMatch(/^could not load Tether's task engine: ./);
    expect(sent()).toEqual([]);
    engine.failuresLeft = 0;
    const events = [];
    for await (const event of client.streamMessage('hi')) events.push(event);
    expect(events).toMatchObject([{ kind: 'task', id: 't1', status: { state: 'completed' } }]);
    expect(sent()).toEqual(['SendStreamingMessage']);
  });

  it('a stream left before its first next() sends nothing and cannot be iterated again', async () => {
    const { connect } = await freshCore();
    const client = await connect(server.url, { cardCache: false });
    const stream = client.streamMessage('hi');
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.return?.()).toEqual({ value: undefined, done: true });
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(() => stream[Symbol.asyncIterator]()).toThrow(/already iterated/);
    expect(sent()).toEqual([]);
  });
});
