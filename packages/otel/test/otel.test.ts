import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createPushReceiver, type LifecycleEvent, type TetherPlugin } from '@a2a-tether/node';
import { startFaultProxy, startTestAgent, type FaultProxy, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorType, otel } from '../src/index.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const propagator = new W3CTraceContextPropagator();
const contextManager = new AsyncLocalStorageContextManager();
const tracer = provider.getTracer('test');

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

const agents: TestAgent[] = [];
const proxies: FaultProxy[] = [];
beforeEach(() => exporter.reset());
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

const spanId = (tp: unknown): string | undefined => /^00-[0-9a-f]{32}-([0-9a-f]{16})-0[01]$/.exec(String(tp))?.[1];
const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe('otel(): spans by the A2A conventions', () => {
  it('a task cut twice: one trace — caller → SendStreamingMessage → each SubscribeToTask — with the conventions\' names and attributes; the agent receives each span\'s context', async () => {
    const agent = await startTestAgent({ versions: ['1.0'] });
    agents.push(agent);
    const proxy = await startFaultProxy({ target: agent.origin, seed: 3 });
    proxies.push(proxy);
    proxy.addFault({ kind: 'cut', afterEvents: 3, mode: 'reset', times: 2, match: { sse: true } });
    const client = await connect(proxy.url, {
      cardCache: false,
      plugins: [otel({ tracerProvider: provider, propagator })],
      // Each wait before a resubscription (≥ 30 ms) outlasts the agent's steps (10 ms): its snapshot is news (a gap).
      resilience: { initialDelayMs: 30, maxDelayMs: 60 },
    });
    const caller = await tracer.startActiveSpan('caller', async (span) => {
      const handle = await client.start('stream updates=3 chunks=6 delayMs=10');
      expect((await handle.done()).status.state).toBe('completed');
      span.end();
      return span.spanContext();
    });

    const spans = exporter.getFinishedSpans().filter((s) => s.name !== 'caller');
    expect(spans.length).toBeGreaterThanOrEqual(3);
    for (const span of spans) {
      expect(span.spanContext().traceId).toBe(caller.traceId);
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.name).toBe(span.attributes['a2a.method.name']);
      expect(span.attributes).toMatchObject({
        'a2a.protocol.version': '1.0',
        'gen_ai.agent.name': client.card.name,
        'server.address': '127.0.0.1',
        'server.port': Number(new URL(proxy.url).port),
      });
    }
    const send = spans.find((s) => s.name === 'SendStreamingMessage');
    expect(send).toBeDefined();
    expect(parentOf(send as ReadableSpan)).toBe(caller.spanId);
    expect(send?.attributes['a2a.message.id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(send?.attributes['a2a.task.id']).toBeTypeOf('string');
    expect(send?.attributes['gen_ai.conversation.id']).toBeTypeOf('string');
    const later = spans.filter((s) => s !== send);
    expect(later.filter((s) => s.name === 'SubscribeToTask').length).toBeGreaterThanOrEqual(1);
    for (const span of later) expect(parentOf(span)).toBe(send?.spanContext().spanId);
    // Each reconnect's wait is an event on the request after it.
    expect(later.flatMap((s) => s.events.map((e) => e.name))).toContain('a2a.tether.backoff');
    // What the resubscription found in the agent's snapshot rather than in events (the gap the cut left) is an event on it.
    const gaps = later.flatMap((s) => s.events.filter((e) => e.name === 'a2a.tether.gap'));
    expect(gaps.length).toBeGreaterThanOrEqual(1);
    for (const gap of gaps) expect(gap.attributes?.['a2a.task.state']).toMatch(/^TASK_STATE_/);
    // The last state seen, in the conventions' values.
    const states = spans.map((s) => s.attributes['a2a.task.state']).filter(Boolean);
    expect(states).toContain('TASK_STATE_COMPLETED');
    for (const state of states) expect(state).toMatch(/^TASK_STATE_[A-Z_]+$/);
    // What the agent received: each request went out with its own span's context.
    const received = agent.requests.filter((r) => r.method === 'POST').map((r) => spanId(r.headers['traceparent']));
    expect(received.length).toBeGreaterThanOrEqual(3);
    expect(received.every((id) => spans.some((s) => s.spanContext().spanId === id))).toBe(true);
  });

  it('an agent error ends its span with error.type = the JSON-RPC code; nothing of a credential is recorded', async () => {
    const token = 'sk-otel-planted-token-4242';
    const agent = await startTestAgent({ versions: ['1.0'], auth: { bearer: [token] } });
    agents.push(agent);
    const client = await connect(agent.url, { cardCache: false, auth: { bearer: token }, plugins: [otel({ tracerProvider: provider, propagator })] });
    await expect(client.getTask('no-such-task')).rejects.toMatchObject({ code: 'A2A_ERROR' });
    const [span] = exporter.getFinishedSpans();
    expect(span?.name).toBe('GetTask');
    expect(span?.attributes['error.type']).toBe('-32001');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['a2a.task.id']).toBe('no-such-task');
    const recorded = JSON.stringify(exporter.getFinishedSpans().map((s) => ({ attributes: s.attributes, events: s.events, status: s.status, name: s.name })));
    expect(recorded).not.toContain(token);
  });

  it('a unary answer sets what a stream would: GetTask and SendMessage spans name the task, its context and its state; no request lifecycle event carries the answer', async () => {
    const agent = await startTestAgent({ versions: ['1.0'] });
    agents.push(agent);
    const events: LifecycleEvent[] = [];
    const client = await connect(agent.url, { cardCache: false, plugins: [otel({ tracerProvider: provider, propagator })] });
    client.observe((event) => events.push(event));
    const answer = await client.sendMessage('input');
    if (answer.kind !== 'task') throw new Error('the input scenario answers with a task');
    await client.getTask(answer.id);
    const spans = exporter.getFinishedSpans();
    for (const name of ['SendMessage', 'GetTask']) {
      const span = spans.find((s) => s.name === name);
      expect(span?.attributes).toMatchObject({ 'a2a.task.id': answer.id, 'gen_ai.conversation.id': answer.contextId, 'a2a.task.state': 'TASK_STATE_INPUT_REQUIRED' });
    }
    const requests = events.filter((e) => e.type === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(2);
    for (const request of requests) expect(request).not.toHaveProperty('result');
  });

  it('with no active span and no traceContext, a task is a trace of its own, still one trace for all its requests', async () => {
    const agent = await startTestAgent({ versions: ['1.0'] });
    agents.push(agent);
    const client = await connect(agent.url, { cardCache: false, plugins: [otel({ tracerProvider: provider, propagator })] });
    const handle = await client.start('stream updates=1 chunks=2');
    await handle.done();
    await handle.cancel().catch(() => undefined);
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThanOrEqual(1);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(parentOf(spans.find((s) => s.name === 'SendStreamingMessage') as ReadableSpan)).toBeUndefined();
  });
});

describe('planted secrets', () => {
  it('a bearer token, an API key and push tokens used in one run appear in no span attribute, span event, lifecycle event or log line', async () => {
    const bearer = 'sk-otel-run-bearer-PLANT-1111';
    const apiKey = 'ak-otel-run-apikey-PLANT-2222';
    const receiverToken = 'pt-otel-run-receiver-PLANT-3333';
    const configToken = 'pt-otel-run-config-PLANT-4444';
    const withBearer = await startTestAgent({ versions: ['1.0'], auth: { bearer: [bearer] } });
    const withKey = await startTestAgent({ versions: ['1.0'], auth: { apiKey: { header: 'X-API-Key', values: [apiKey] } } });
    agents.push(withBearer, withKey);
    const receiver = createPushReceiver({ token: receiverToken });
    const server = createServer(receiver.nodeHandler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    try {
      const lines: string[] = [];
      const log = { debug: (m: string) => lines.push(m), info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
      const lifecycle: LifecycleEvent[] = [];
      const listener: TetherPlugin = { name: 'listener', onLifecycle: (event) => void lifecycle.push(event) };
      const plugins = [otel({ tracerProvider: provider, propagator }), listener];
      const pushed = await connect(withBearer.url, { cardCache: false, auth: { bearer }, plugins, log, push: { receiver, url: hookUrl, safetyPollMs: 200 } });
      const keyed = await connect(withKey.url, { cardCache: false, auth: { apiKey }, plugins, log });
      const [one, two] = await Promise.all([
        pushed.start('stream updates=2 chunks=2 delayMs=30', { delivery: 'push' }),
        keyed.start('stream updates=1 chunks=2 delayMs=5', { pushNotification: { url: 'http://127.0.0.1:9/hook', token: configToken } }),
      ]);
      await Promise.all([one.done(), two.done()]);
      // The secrets did travel: the agents checked them; the engine's own webhook token went to the agent.
      const engineToken = withBearer.requests.map((r) => /"token":"([^"]+)"/.exec(JSON.stringify(r.body))?.[1]).find((t) => t !== undefined);
      expect(engineToken).toBeTypeOf('string');
      expect(JSON.stringify(withKey.requests.map((r) => r.body))).toContain(configToken);
      const spans = exporter.getFinishedSpans();
      expect(spans.length).toBeGreaterThanOrEqual(2);
      expect(lifecycle.some((e) => e.type === 'request')).toBe(true);
      // The agent's pushes (with the engine's token) were taken: a state came by push.
      expect(lifecycle.some((e) => e.type === 'state-changed' && e.source === 'push')).toBe(true);
      expect(lines.length).toBeGreaterThan(4);
      const recorded = JSON.stringify(
        { spans: spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status, links: s.links })), lifecycle, lines },
        (_key, value: unknown) => (value instanceof Error ? { ...value, message: value.message, stack: value.stack } : value),
      );
      for (const secret of [bearer, apiKey, receiverToken, configToken, engineToken as string]) expect(recorded).not.toContain(secret);
      expect(recorded).not.toContain('PLANT');
    } finally {
      await receiver.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('errorType', () => {
  it('is the JSON-RPC code, else the HTTP status, else the error code', async () => {
    const { TetherError, TaskNotFoundError } = await import('@a2a-tether/node');
    expect(errorType(new TaskNotFoundError(-32001, 'gone'))).toBe('-32001');
    expect(errorType(new TetherError('HTTP_STATUS', 'x', { status: 503 }))).toBe('503');
    expect(errorType(new TetherError('TIMEOUT', 'x'))).toBe('TIMEOUT');
  });
});
