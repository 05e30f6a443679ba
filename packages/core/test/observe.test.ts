import { createHash } from 'node:crypto';
import { startFaultProxy, startTestAgent, type FaultProxy, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  connect,
  MemoryTaskStore,
  TetherError,
  type LifecycleEvent,
  type RequestInfo,
  type RequestOutcome,
  type StreamEvent,
  type TaskEvent,
  type TetherPlugin,
} from '../src/index.js';

const agents: TestAgent[] = [];
const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
  vi.restoreAllMocks();
});

async function agent(options: Parameters<typeof startTestAgent>[0] = {}): Promise<TestAgent> {
  const started = await startTestAgent(options);
  agents.push(started);
  return started;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;
const traceId = (tp: unknown): string => (TRACEPARENT.exec(String(tp)) ?? [])[1] ?? 'none';
const spanId = (tp: unknown): string => (TRACEPARENT.exec(String(tp)) ?? [])[2] ?? 'none';

/** A plugin that records everything it is shown. */
function recorder(name = 'recorder'): TetherPlugin & {
  requests: RequestInfo[];
  outcomes: [RequestInfo, RequestOutcome][];
  streamEvents: StreamEvent[];
  taskEvents: TaskEvent[];
  seenLifecycle: LifecycleEvent[];
} {
  const plugin = {
    name,
    requests: [] as RequestInfo[],
    outcomes: [] as [RequestInfo, RequestOutcome][],
    streamEvents: [] as StreamEvent[],
    taskEvents: [] as TaskEvent[],
    seenLifecycle: [] as LifecycleEvent[],
    onRequest(request: RequestInfo) {
      plugin.requests.push(request);
    },
    onResponse(request: RequestInfo, outcome: RequestOutcome) {
      plugin.outcomes.push([request, outcome]);
    },
    onStreamEvent(event: StreamEvent) {
      plugin.streamEvents.push(event);
    },
    onTaskEvent(event: TaskEvent) {
      plugin.taskEvents.push(event);
    },
    onLifecycle(event: LifecycleEvent) {
      plugin.seenLifecycle.push(event);
    },
  };
  return plugin;
}

describe('W3C trace context', () => {
  it('every request carries a traceparent; a task\'s requests share one trace, each later one a child of its first', async () => {
    const a = await agent({ versions: ['1.0'] });
    const proxy = await startFaultProxy({ target: a.origin });
    proxies.push(proxy);
    // The stream is cut twice: the follow resubscribes.
    proxy.addFault({ kind: 'cut', afterEvents: 3, mode: 'reset', times: 2, match: { sse: true } });
    const plugin = recorder();
    const client = await connect(proxy.url, { cardCache: false, plugins: [plugin], resilience: { initialDelayMs: 5, maxDelayMs: 20 } });
    const handle = await client.start('stream updates=3 chunks=6 delayMs=10');
    const final = await handle.done();
    expect(final.status.state).toBe('completed');

    const received = a.requests.filter((r) => r.method === 'POST');
    expect(received.length).toBeGreaterThanOrEqual(3);
    for (const r of a.requests) expect(r.headers['traceparent']).toMatch(TRACEPARENT);
    const trace = traceId(received[0]?.headers['traceparent']);
    for (const r of received) expect(traceId(r.headers['traceparent'])).toBe(trace);
    // The plugin saw what the agent received, and which span each request continues.
    const taskRequests = plugin.requests.filter((r) => r.operation !== 'GetAgentCard');
    expect(taskRequests.map((r) => r.traceparent)).toEqual(received.map((r) => r.headers['traceparent']));
    const [send, ...later] = taskRequests;
    expect(send?.operation).toBe('SendStreamingMessage');
    expect(later.map((r) => r.operation)).toContain('SubscribeToTask');
    for (const r of later) expect(spanId(r.parent?.traceparent)).toBe(spanId(send?.traceparent));
    // Each span id is new.
    expect(new Set(received.map((r) => spanId(r.headers['traceparent']))).size).toBe(received.length);
  });

  it('continues the caller\'s trace (traceContext), on the task and on a plain call', async () => {
    const a = await agent({ versions: ['1.0'] });
    const client = await connect(a.url, { cardCache: false });
    const caller = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const handle = await client.start('stream updates=1 chunks=2', { traceContext: { traceparent: caller, tracestate: 'vendor=1' } });
    await handle.done();
    await client.getTask(handle.taskId as string, { traceContext: { traceparent: caller } });
    const posts = a.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(2);
    for (const r of posts) {
      expect(traceId(r.headers['traceparent'])).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(spanId(r.headers['traceparent'])).not.toBe('00f067aa0ba902b7');
      expect(r.headers['traceparent']).toMatch(/-01$/);
    }
    expect(posts[0]?.headers['tracestate']).toBe('vendor=1');
  });

  it('traceHeaders: false sends none; \'same-origin\' none to another origin than the page\'s (none outside a page)', async () => {
    const a = await agent({ versions: ['1.0'] });
    for (const traceHeaders of [false, 'same-origin'] as const) {
      a.requests.length = 0;
      const plugin = recorder();
      const client = await connect(a.url, { cardCache: false, traceHeaders, plugins: [plugin] });
      await (await client.start('stream updates=1 chunks=2')).done();
      expect(a.requests.length).toBeGreaterThan(1);
      for (const r of a.requests) expect(r.headers['traceparent']).toBeUndefined();
      expect(plugin.requests.every((r) => r.traceparent === undefined)).toBe(true);
    }
  });

  it('a traceparent that does not parse starts a new trace (not sampled)', async () => {
    const a = await agent({ versions: ['1.0'] });
    const client = await connect(a.url, { cardCache: false });
    await client.sendMessage('echo hi', { traceContext: { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' } });
    const post = a.requests.find((r) => r.method === 'POST');
    expect(post?.headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    expect(traceId(post?.headers['traceparent'])).not.toBe('0'.repeat(32));
  });
});

describe('plugins', () => {
  it('a request hook adds a header the agent sees; credentials stay out of the plugin\'s reach and win over it', async () => {
    const token = 'sk-secret-bearer-1234567890';
    const a = await agent({ versions: ['1.0'], auth: { bearer: [token] } });
    const seen: (string | undefined)[] = [];
    const plugin: TetherPlugin = {
      name: 'tenant-header',
      onRequest(_request, headers) {
        seen.push(headers.get('authorization'));
        headers.set('X-Tenant', 'acme');
        headers.set('Authorization', 'Bearer forged');
      },
    };
    const client = await connect(a.url, { cardCache: false, auth: { bearer: token }, plugins: [plugin] });
    await client.sendMessage('echo hi');
    const post = a.requests.find((r) => r.method === 'POST');
    expect(post?.headers['x-tenant']).toBe('acme');
    expect(post?.headers['authorization']).toBe(`Bearer ${token}`);
    expect(seen.every((value) => value === undefined)).toBe(true);
  });

  it('a request hook may refuse: PLUGIN_REFUSED, nothing sent', async () => {
    const a = await agent({ versions: ['1.0'] });
    const client = await connect(a.url, {
      cardCache: false,
      plugins: [{ name: 'gate', onRequest: (request) => (request.operation === 'SendMessage' ? { refuse: 'sending is paused' } : undefined) }],
    });
    const error = await client.sendMessage('echo hi').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'PLUGIN_REFUSED', maybeDelivered: false, isRetryable: false });
    expect((error as Error).message).toContain('plugin "gate" refused the request: sending is paused');
    expect(a.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
  });

  it('the stream event hook sees every event of a stream the app sees, in order', async () => {
    const a = await agent({ versions: ['1.0'] });
    const plugin = recorder();
    const client = await connect(a.url, { cardCache: false, plugins: [plugin] });
    const app: StreamEvent[] = [];
    for await (const event of client.streamMessage('stream updates=3 chunks=5')) app.push(event);
    expect(app.length).toBeGreaterThan(5);
    expect(plugin.streamEvents).toEqual(app);
    const [request, outcome] = plugin.outcomes.find(([r]) => r.operation === 'SendStreamingMessage') ?? [];
    expect(request?.stream).toBe(true);
    expect(outcome).toMatchObject({ status: 200, error: undefined, events: app.length });
  });

  it('the task event hook sees every event a handle hands the app, in order, through cuts', async () => {
    const a = await agent({ versions: ['1.0'] });
    const proxy = await startFaultProxy({ target: a.origin });
    proxies.push(proxy);
    proxy.addFault({ kind: 'cut', afterEvents: 4, mode: 'reset', times: 2, match: { sse: true } });
    const plugin = recorder();
    const client = await connect(proxy.url, { cardCache: false, plugins: [plugin], resilience: { initialDelayMs: 5, maxDelayMs: 20 } });
    const handle = await client.start('stream updates=3 chunks=8 delayMs=5');
    const app: TaskEvent[] = [];
    for await (const event of handle.events()) app.push(event);
    expect(app.some((e) => e.type === 'connection' && e.state === 'reconnecting')).toBe(true);
    expect(plugin.taskEvents).toEqual(app);
  });

  it('a plugin that throws in every hook leaves the task\'s result and events unchanged, and is reported by name', async () => {
    const a = await agent({ versions: ['1.0'] });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const boom = (): never => {
      throw new Error('boom');
    };
    const thrower: TetherPlugin = { name: 'broken', onRequest: boom, onResponse: boom, onStreamEvent: boom, onTaskEvent: boom, onLifecycle: boom };
    const witness = recorder('witness');
    const plain = await connect(a.url, { cardCache: false });
    const broken = await connect(a.url, { cardCache: false, plugins: [thrower, witness] });
    // What the app sees, without the ids and times that differ from task to task.
    const shape = (event: TaskEvent): unknown =>
      event.type === 'status' ? ['status', event.state] : event.type === 'artifact' ? ['artifact', event.artifactId, event.parts, event.append, event.lastChunk] : [event.type];
    const run = async (client: typeof plain): Promise<{ events: unknown[]; artifacts: unknown; state: string }> => {
      const handle = await client.start('stream updates=2 chunks=4');
      const events: unknown[] = [];
      for await (const event of handle.events()) events.push(shape(event));
      const final = await handle.done();
      return { events, artifacts: final.artifacts, state: final.status.state };
    };
    const expected = await run(plain);
    const got = await run(broken);
    expect(got.state).toBe('completed');
    expect(got.artifacts).toEqual(expected.artifacts);
    expect(got.events).toEqual(expected.events);
    const failures = witness.seenLifecycle.filter((e) => e.type === 'plugin-failed');
    expect(new Set(failures.map((e) => (e.type === 'plugin-failed' ? e.hook : '')))).toEqual(new Set(['onRequest', 'onResponse', 'onStreamEvent', 'onTaskEvent']));
    for (const failure of failures) {
      if (failure.type !== 'plugin-failed') continue;
      expect(failure.plugin).toBe('broken');
      expect(failure.error).toMatchObject({ code: 'PLUGIN_FAILED' });
      expect(failure.error.message).toContain('plugin "broken" threw in');
    }
    // Said once per hook on the console, not once per event.
    expect(warn.mock.calls.length).toBe(5);
  });

  it('a plugin that names its lifecycle types gets only those', async () => {
    const a = await agent({ versions: ['1.0'] });
    const got: string[] = [];
    const plugin: TetherPlugin = { name: 'picky', lifecycle: ['state-changed'], onLifecycle: (event) => got.push(event.type) };
    const client = await connect(a.url, { cardCache: false, plugins: [plugin] });
    await (await client.start('stream updates=2 chunks=3')).done();
    expect(got.length).toBeGreaterThan(2);
    expect(new Set(got)).toEqual(new Set(['state-changed']));
  });

  it('refuses what is not a plugin', async () => {
    const a = await agent({ versions: ['1.0'] });
    await expect(connect(a.url, { cardCache: false, plugins: [{} as TetherPlugin] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe('lifecycle events (client.observe)', () => {
  it('tell a task\'s story: created, states with their source, the link, artifacts by size, the pause and its answer', async () => {
    const a = await agent({ versions: ['1.0'] });
    const client = await connect(a.url, { cardCache: false });
    const events: LifecycleEvent[] = [];
    const stop = client.observe((event) => events.push(event));
    const handle = await client.start('input');
    for await (const event of handle.events()) if (event.type === 'status' && event.state === 'input-required') break;
    await handle.reply('here you go');
    await handle.done();
    stop();
    const taskId = handle.taskId as string;
    const ofTask = events.filter((e) => e.type !== 'request');
    for (const event of ofTask) {
      expect(event).toMatchObject({ taskId, agent: { name: expect.any(String), url: expect.stringContaining(a.origin) } });
      expect(event.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(event.at).toBeGreaterThan(0);
    }
    const types = ofTask.map((e) => e.type);
    expect(types[0]).toBe('task-created');
    expect(types).toContain('paused');
    expect(types).toContain('answered');
    const states = ofTask.flatMap((e) => (e.type === 'state-changed' ? [[e.from, e.to, e.source]] : []));
    expect(states[0]?.[1]).toBe('submitted');
    expect(states).toContainEqual(['working', 'input-required', 'stream']);
    expect(states.at(-1)?.[1]).toBe('completed');
    expect(ofTask.filter((e) => e.type === 'connection-changed').map((e) => (e.type === 'connection-changed' ? e.state : ''))).toContain('live');
    const requests = events.filter((e) => e.type === 'request');
    expect(requests.map((e) => (e.type === 'request' ? e.operation : ''))).toEqual(['SendStreamingMessage', 'SendStreamingMessage']);
    for (const r of requests) if (r.type === 'request') expect(r).toMatchObject({ status: 200, error: undefined, method: 'POST' });
    // After stop(), nothing more.
    const count = events.length;
    await client.sendMessage('echo hi');
    expect(events.length).toBe(count);
  });

  it('artifacts: created, updated, completed, with parts, UTF-8 bytes and the SHA-256 of the content so far, never content', async () => {
    const a = await agent({
      versions: ['1.0'],
      scenarios: {
        art: (ctx) => {
          ctx.status('working');
          ctx.artifact({ artifactId: 'a1', text: 'café', append: false, lastChunk: false });
          ctx.artifact({ artifactId: 'a1', text: ' 東京', append: true, lastChunk: false });
          ctx.artifact({ artifactId: 'a1', text: '!', append: true, lastChunk: true });
          ctx.status('completed');
        },
      },
    });
    const client = await connect(a.url, { cardCache: false });
    const events: LifecycleEvent[] = [];
    client.observe((event) => events.push(event));
    await (await client.start('art')).done();
    const artifacts = events.flatMap((e) => (e.type === 'artifact' ? [[e.change, e.artifactId, e.parts, e.bytes]] : []));
    expect(artifacts).toEqual([
      ['created', 'a1', 1, 5],
      ['updated', 'a1', 1, 7],
      ['completed', 'a1', 1, 1],
    ]);
    // The digest of the content so far, as anyone holding the artifact's text computes it.
    const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
    expect(events.flatMap((e) => (e.type === 'artifact' ? [e.sha256] : []))).toEqual([sha('café'), sha('café 東京'), sha('café 東京!')]);
    expect(JSON.stringify(events)).not.toContain('café');
  });

  it('a task followed again after a restart continues its trace: the record keeps the first request\'s context and the parent task', async () => {
    const a = await agent({ versions: ['1.0'] });
    const store = new MemoryTaskStore();
    const first = await connect(a.url, { cardCache: false, store });
    const caller = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const handle = await first.start('slow steps=30 delayMs=20', { traceContext: { traceparent: caller }, parentTaskId: 'parent-task' });
    const taskId = handle.taskId as string;
    const send = a.requests.find((r) => r.method === 'POST');
    const record = await store.get(first.taskKey(taskId));
    expect(record?.trace?.traceparent).toBe(send?.headers['traceparent']);
    expect(record?.parentTaskId).toBe('parent-task');
    handle.detach();
    // A new process on the same store: no traceContext given.
    a.requests.length = 0;
    const second = await connect(a.url, { cardCache: false, store });
    const events: LifecycleEvent[] = [];
    second.observe((event) => events.push(event));
    const resumed = await second.resume(taskId);
    await resumed.done();
    const posts = a.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(1);
    for (const r of posts) expect(traceId(r.headers['traceparent'])).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    const told = events.filter((e) => e.type === 'state-changed');
    expect(told.length).toBeGreaterThan(0);
    for (const e of told) expect(e).toMatchObject({ parentTaskId: 'parent-task', traceId: '4bf92f3577b34da6a3ce929d0e0e4736' });
  });

  it('a request says which retry it is (a getTask retried after a 503, a follow\'s resubscribe after a cut); the cut\'s gap is an event', async () => {
    // The agent goes on only once the client has seen the cut, so what the resubscription's snapshot shows
    // (completed) is newer than anything the stream delivered, however slow the machine.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const a = await agent({
      versions: ['1.0'],
      scenarios: {
        gated: async (ctx) => {
          ctx.status('working', 'one');
          ctx.status('working', 'two');
          await gate;
          ctx.status('working', 'three');
          ctx.status('completed', 'done');
        },
      },
    });
    const proxy = await startFaultProxy({ target: a.origin });
    proxies.push(proxy);
    const client = await connect(proxy.url, { cardCache: false, resilience: { initialDelayMs: 60, maxDelayMs: 80 } });
    const events: LifecycleEvent[] = [];
    client.observe((event) => {
      events.push(event);
      if (event.type === 'connection-changed' && event.state === 'reconnecting') release();
    });
    proxy.addFault({ kind: 'cut', afterEvents: 2, mode: 'reset', times: 1, match: { sse: true } });
    const handle = await client.start('gated');
    await handle.done();
    proxy.addFault({ kind: 'status', status: 503, times: 1, match: { rpcMethod: 'GetTask' } });
    await client.getTask(handle.taskId as string, { maxRetries: 2 });
    const requests = events.filter((e): e is Extract<LifecycleEvent, { type: 'request' }> => e.type === 'request');
    const reconnect = events.find((e): e is Extract<LifecycleEvent, { type: 'connection-changed' }> => e.type === 'connection-changed' && e.state === 'reconnecting');
    expect(reconnect?.attempt).toBe(1);
    // The send is a first request; the resubscribe after the cut is retry 1 of the follow.
    expect(requests.find((r) => r.operation === 'SendStreamingMessage')?.attempt).toBeUndefined();
    expect(requests.find((r) => r.operation === 'SubscribeToTask')?.attempt).toBe(1);
    // What the resubscription found in the agent's snapshot, not in events: a gap.
    const gaps = events.filter((e) => e.type === 'gap');
    expect(gaps.length).toBeGreaterThanOrEqual(1);
    expect(gaps[0]).toMatchObject({ taskId: handle.taskId, state: 'completed' });
    // The getTask: its first request failed with 503, its retry is attempt 1.
    const gets = requests.filter((r) => r.operation === 'GetTask').slice(-2);
    expect(gets.map((r) => [r.status, r.attempt])).toEqual([
      [503, undefined],
      [200, 1],
    ]);
  });

  it('cost: the agent\'s reported cost is a lifecycle event and lands in the task\'s record; a task without one has neither', async () => {
    const a = await agent({
      versions: ['1.0'],
      scenarios: {
        priced: (ctx) => {
          ctx.status('working');
          ctx.status('completed', 'done', { metadata: { cost: { amount: 0.42, unit: 'USD' } } });
        },
        free: (ctx) => {
          ctx.status('working');
          ctx.status('completed', 'done');
        },
      },
    });
    const store = new MemoryTaskStore();
    const client = await connect(a.url, { cardCache: false, store });
    const events: LifecycleEvent[] = [];
    client.observe((event) => events.push(event));
    const priced = await client.start('priced');
    await priced.done();
    const free = await client.start('free');
    await free.done();
    const costs = events.filter((e) => e.type === 'cost');
    expect(costs).toHaveLength(1);
    expect(costs[0]).toMatchObject({ type: 'cost', amount: 0.42, unit: 'USD', taskId: priced.taskId });
    expect((await store.get(client.taskKey(priced.taskId as string)))?.cost).toEqual({ amount: 0.42, unit: 'USD' });
    expect((await store.get(client.taskKey(free.taskId as string)))?.cost).toBeUndefined();
  });

  it('cancel: requested, then confirmed once the agent shows canceled', async () => {
    const a = await agent({ versions: ['1.0'] });
    const client = await connect(a.url, { cardCache: false });
    const events: LifecycleEvent[] = [];
    client.observe((event) => events.push(event));
    const handle = await client.start('slow steps=200 delayMs=20');
    const outcome = await handle.cancel();
    expect(outcome.confirmed).toBe(true);
    expect(events.filter((e) => e.type.startsWith('cancel')).map((e) => e.type)).toEqual(['cancel-requested', 'cancel-confirmed']);
  });

  it('an agent error at HTTP 200 ends its request with that typed error; a credential appears in no event', async () => {
    const token = 'sk-planted-token-0987654321';
    const a = await agent({ versions: ['1.0'], auth: { bearer: [token] } });
    const client = await connect(a.url, { cardCache: false, auth: { bearer: token } });
    const events: LifecycleEvent[] = [];
    client.observe((event) => events.push(event));
    await expect(client.getTask('no-such-task')).rejects.toMatchObject({ code: 'A2A_ERROR' });
    const request = events.find((e) => e.type === 'request');
    expect(request).toMatchObject({ operation: 'GetTask', status: 200, error: { code: 'A2A_ERROR' } });
    expect(JSON.stringify(events, (_key, value: unknown) => (value instanceof Error ? { ...value, message: value.message } : value))).not.toContain(token);
  });
});

describe('the debug log (connect(url, { log }), TETHER_DEBUG)', () => {
  it('tells the chosen interface, every request and answer, stream events by kind, reconnects — never a credential or content', async () => {
    const token = 'sk-log-planted-token-1357924680';
    const a = await agent({ versions: ['1.0'], auth: { bearer: [token] } });
    const proxy = await startFaultProxy({ target: a.origin });
    proxies.push(proxy);
    proxy.addFault({ kind: 'cut', afterEvents: 3, mode: 'reset', times: 1, match: { sse: true } });
    const lines: [string, string][] = [];
    const log = {
      debug: (m: string) => lines.push(['debug', m]),
      info: (m: string) => lines.push(['info', m]),
      warn: (m: string) => lines.push(['warn', m]),
    };
    const client = await connect(proxy.url, { cardCache: false, auth: { bearer: token }, log, resilience: { initialDelayMs: 5, maxDelayMs: 20 } });
    const handle = await client.start('stream updates=2 chunks=5 delayMs=5');
    await handle.done();
    const text = lines.map(([, m]) => m);
    expect(text.every((m) => m.startsWith('[tether] '))).toBe(true);
    expect(lines.find(([level, m]) => level === 'info' && m.includes('JSONRPC v1.0'))).toBeDefined();
    expect(text.some((m) => m.includes('→ GetAgentCard GET'))).toBe(true);
    expect(text.some((m) => m.includes('→ SendStreamingMessage POST'))).toBe(true);
    expect(text.some((m) => /← SendStreamingMessage (HTTP 200|no answer)/.test(m))).toBe(true);
    expect(text.some((m) => m.includes('event: status working'))).toBe(true);
    expect(lines.find(([level, m]) => level === 'info' && m.includes('link reconnecting in'))).toBeDefined();
    expect(text.some((m) => m.includes('→ SubscribeToTask POST'))).toBe(true);
    expect(text.join('\n')).not.toContain(token);
    expect(text.join('\n')).not.toContain('chunk-');
  });

  it('TETHER_DEBUG=1 turns on console; unset, nothing is written', async () => {
    const a = await agent({ versions: ['1.0'] });
    const debug = vi.spyOn(console, 'debug').mockImplementation(() => undefined);
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const quiet = await connect(a.url, { cardCache: false });
    await quiet.sendMessage('echo hi');
    expect(debug).not.toHaveBeenCalled();
    expect(info).not.toHaveBeenCalled();
    vi.stubEnv('TETHER_DEBUG', '1');
    try {
      const loud = await connect(a.url, { cardCache: false });
      await loud.sendMessage('echo hi');
    } finally {
      vi.unstubAllEnvs();
    }
    expect(info.mock.calls.some(([m]) => String(m).includes('JSONRPC'))).toBe(true);
    expect(debug.mock.calls.some(([m]) => String(m).includes('→ SendMessage POST'))).toBe(true);
  });
});

describe('secrets stay out of what is observed', () => {
  it('an API key the card puts in the query string appears in no request info, lifecycle event, plugin outcome or log line', async () => {
    const key = 'ak-query-planted-key-24680135';
    const a = await agent({ versions: ['1.0'], auth: { apiKey: { query: 'api_key', values: [key] } } });
    const plugin = recorder();
    const lines: string[] = [];
    const client = await connect(a.url, { cardCache: false, auth: { apiKey: key }, plugins: [plugin], log: { debug: (m) => lines.push(m), info: (m) => lines.push(m), warn: (m) => lines.push(m) } });
    expect(client.credentialsInQuery).toEqual(['api_key']);
    const events: LifecycleEvent[] = [];
    client.observe((event) => events.push(event));
    await (await client.start('stream updates=1 chunks=2')).done();
    await expect(client.getTask('no-such-task')).rejects.toMatchObject({ code: 'A2A_ERROR' });
    // The key did travel (the agent checks it), in the URL.
    expect(a.requests.some((r) => r.search.includes(key))).toBe(true);
    const seen = JSON.stringify({ requests: plugin.requests, outcomes: plugin.outcomes, lifecycle: plugin.seenLifecycle, events, lines }, (_k, value: unknown) =>
      value instanceof Error ? { ...value, message: value.message } : value,
    );
    expect(plugin.requests.length).toBeGreaterThan(1);
    expect(seen).not.toContain(key);
  });
});

describe('Sha256 (artifact digests)', () => {
  it('equals node:crypto for every length around the block edges, fed in pieces, read at every step', async () => {
    const { Sha256 } = await import('../src/observe/sha256.js');
    const { randomBytes } = await import('node:crypto');
    for (const n of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 70_000]) {
      const data = randomBytes(n);
      const hash = new Sha256();
      let at = 0;
      for (let step = 1; at < n; step = (step * 7) % 97 + 1) {
        const next = Math.min(n, at + step);
        hash.update(data.subarray(at, next));
        at = next;
        if (n < 2_000) expect(hash.hex()).toBe(createHash('sha256').update(data.subarray(0, at)).digest('hex'));
      }
      expect(hash.hex()).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });
});
