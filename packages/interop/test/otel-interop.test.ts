import type { IncomingHttpHeaders } from 'node:http';
import { context, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { connect, type NodeConnectOptions, type TaskEvent } from '@a2a-tether/node';
import { startWorkflow } from '@a2a-tether/core/orchestrate';
import { otel } from '@a2a-tether/otel';
import { startFaultProxy } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOfficialV03Server } from '../src/official-v03-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';

// Issue 18 with @a2a-tether/otel against the official @a2a-js/sdk servers (v1.0 and v0.3): a task whose
// stream is cut and which pauses at input-required and is answered is one trace under the caller's span;
// every request the server receives carries that trace id and the context of its own span.

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const propagator = new W3CTraceContextPropagator();
const tracer = provider.getTracer('interop');
const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
const watch = (req: { originalUrl: string; headers: IncomingHttpHeaders }, _res: unknown, next: () => void): void => {
  seen.push({ path: req.originalUrl, headers: req.headers });
  next();
};
let v1: OfficialServer;
let v03: OfficialServer;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  [v1, v03] = await Promise.all([startOfficialV1Server({ watch }), startOfficialV03Server({ watch })]);
});
afterAll(async () => {
  await Promise.all([v1?.close(), v03?.close()]);
  context.disable();
  await provider.shutdown();
});

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;

describe.each([
  ['v1.0', () => v1, '1.0'],
  ['v0.3', () => v03, '0.3'],
] as const)('otel() with the official %s server', (_name, server, version) => {
  it('a cut stream and an answered pause: one trace, caller → send → the rest; the server sees each span\'s context', async () => {
    const proxy = await startFaultProxy({ target: server().origin, seed: 11 });
    try {
      proxy.addFault({ kind: 'cut', afterEvents: 1, mode: 'reset', times: 1, match: { sse: true } });
      exporter.reset();
      const client = await connect(`${proxy.origin}/.well-known/agent-card.json`, {
        cardCache: false,
        protocolVersions: [version],
        preferredBindings: ['JSONRPC'],
        plugins: [otel({ tracerProvider: provider, propagator })],
        resilience: { initialDelayMs: 10, maxDelayMs: 50 },
      });
      seen.length = 0;
      const caller = await tracer.startActiveSpan('caller', async (span) => {
        const handle = await client.start('input');
        const events: TaskEvent[] = [];
        for await (const event of handle.events()) {
          events.push(event);
          if (event.type === 'status' && event.state === 'input-required') break;
        }
        await handle.reply('blue');
        expect((await handle.done()).status.state).toBe('completed');
        span.end();
        return span.spanContext();
      });
      expect(proxy.stats.cuts.reset).toBe(1);
      const spans = exporter.getFinishedSpans().filter((s) => s.name !== 'caller');
      const send = spans.find((s) => s.name === 'SendStreamingMessage' && parentOf(s) === caller.spanId);
      expect(send).toBeDefined();
      for (const span of spans) {
        expect(span.spanContext().traceId).toBe(caller.traceId);
        expect(span.kind).toBe(SpanKind.CLIENT);
        expect(span.attributes['a2a.method.name']).toBe(span.name);
        expect(span.attributes['a2a.protocol.version']).toBe(version);
        if (span !== send) expect(parentOf(span)).toBe(send?.spanContext().spanId);
      }
      // The reply is a send of its own, under the task's first request; the pause's state was recorded.
      expect(spans.filter((s) => s.name === 'SendStreamingMessage' || s.name === 'SendMessage').length).toBeGreaterThanOrEqual(2);
      expect(spans.map((s) => s.attributes['a2a.task.state'])).toContain('TASK_STATE_INPUT_REQUIRED');
      const a2a = seen.filter((s) => s.path.startsWith('/a2a'));
      expect(a2a.length).toBeGreaterThanOrEqual(2);
      const ids = new Set(spans.map((s) => s.spanContext().spanId));
      for (const request of a2a) {
        const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(request.headers['traceparent']));
        expect(match?.[1]).toBe(caller.traceId);
        expect(ids.has(match?.[2] ?? '')).toBe(true);
      }
    } finally {
      await proxy.close();
    }
  });
});

describe.each([
  ['v1.0', () => v1, '1.0'],
  ['v0.3', () => v03, '0.3'],
] as const)('a two-hop workflow traced by otel() on the official %s server', (_name, server, version) => {
  it('one trace: invoke_workflow → invoke_agent per hop → the hop\'s A2A calls → each resubscribe; the server sees that trace on every request', async () => {
    const proxy = await startFaultProxy({ target: server().origin, seed: 23 });
    try {
      // The first hop's stream is cut once, after its first event: the follow resubscribes (or polls).
      proxy.addFault({ kind: 'cut', afterEvents: 1, mode: 'reset', times: 1, match: { sse: true } });
      exporter.reset();
      const plugin = otel({ tracerProvider: provider, propagator });
      const options: NodeConnectOptions = { cardCache: false, protocolVersions: [version], preferredBindings: ['JSONRPC'], plugins: [plugin], resilience: { initialDelayMs: 10, maxDelayMs: 50 } };
      const [researcher, reviewer] = await Promise.all([connect(`${proxy.origin}/.well-known/agent-card.json`, options), connect(server().cardUrl, options)]);
      seen.length = 0;
      const caller = await tracer.startActiveSpan('caller', async (span) => {
        const flow = await startWorkflow({
          id: `traced-${version}`,
          name: 'research-review',
          goal: 'a report',
          agents: { researcher, reviewer },
          hops: [
            { id: 'research', agent: 'researcher', input: () => 'stream updates=3 chunks=3 delayMs=20' },
            { id: 'review', agent: 'reviewer', parent: 'research', dependsOn: ['research'], input: () => 'input' },
          ],
        });
        for await (const event of flow.events()) {
          if (event.type === 'pause') expect((await flow.answer([{ pause: event.pause, input: 'blue' }]))[0]?.ok).toBe(true);
        }
        const summary = await flow.done();
        expect(summary.record.state).toBe('completed');
        span.end();
        return { ids: span.spanContext(), summary };
      });
      expect(proxy.stats.cuts.reset).toBe(1);
      const spans = exporter.getFinishedSpans().filter((s) => s.name !== 'caller');
      for (const span of spans) expect(span.spanContext().traceId).toBe(caller.ids.traceId);
      const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
      const workflow = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_workflow');
      expect(workflow).toHaveLength(1);
      expect(workflow[0]).toMatchObject({ name: 'invoke_workflow research-review', kind: SpanKind.INTERNAL });
      expect(workflow[0]?.attributes).toMatchObject({ 'gen_ai.workflow.name': 'research-review', 'gen_ai.conversation.id': caller.summary.record.contextId });
      expect(parentOf(workflow[0] as ReadableSpan)).toBe(caller.ids.spanId);
      const hops = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
      expect(hops.map((s) => s.attributes['a2a.tether.node']).sort()).toEqual(['research', 'review']);
      const taskOf = (node: string): string | undefined => caller.summary.record.nodes[node]?.attempts[0]?.taskId;
      for (const hop of hops) {
        expect(hop.kind).toBe(SpanKind.CLIENT);
        expect(hop.name).toBe(`invoke_agent ${String(hop.attributes['gen_ai.agent.name'])}`);
        expect(hop.attributes).toMatchObject({ 'gen_ai.provider.name': 'a2a', 'gen_ai.conversation.id': caller.summary.record.contextId });
        expect(hop.attributes['a2a.task.id']).toBe(taskOf(String(hop.attributes['a2a.tether.node'])));
        expect(parentOf(hop)).toBe(workflow[0]?.spanContext().spanId);
      }
      // The reviewer was delegated by the research hop: its span names that task.
      expect(hops.find((s) => s.attributes['a2a.tether.node'] === 'review')?.attributes['a2a.tether.parent_task.id']).toBe(taskOf('research'));
      // Every A2A call: under its hop — the task's first request directly, every later one (resubscribe, poll, reply) under that first request.
      const calls = spans.filter((s) => s.attributes['a2a.method.name'] !== undefined);
      for (const call of calls) {
        expect(call.kind).toBe(SpanKind.CLIENT);
        expect(call.name).toBe(call.attributes['a2a.method.name']);
        expect(call.attributes['a2a.protocol.version']).toBe(version);
        const parent = byId.get(parentOf(call) ?? '');
        const hop = parent?.attributes['gen_ai.operation.name'] === 'invoke_agent' ? parent : byId.get(parentOf(parent as ReadableSpan) ?? '');
        expect(hop?.attributes['gen_ai.operation.name']).toBe('invoke_agent');
        expect(call.attributes['a2a.task.id']).toBe(hop?.attributes['a2a.task.id']);
      }
      const researchHop = hops.find((s) => s.attributes['a2a.tether.node'] === 'research');
      const researchSend = calls.find((s) => parentOf(s) === researchHop?.spanContext().spanId);
      expect(researchSend?.name).toBe('SendStreamingMessage');
      const after = calls.filter((s) => parentOf(s) === researchSend?.spanContext().spanId);
      expect(after.length).toBeGreaterThanOrEqual(1);
      for (const call of after) expect(['SubscribeToTask', 'GetTask']).toContain(call.name);
      // The pause's answer is a send under the review task's first request.
      const reviewHop = hops.find((s) => s.attributes['a2a.tether.node'] === 'review');
      const reviewSend = calls.find((s) => parentOf(s) === reviewHop?.spanContext().spanId);
      expect(calls.some((s) => parentOf(s) === reviewSend?.spanContext().spanId && s.attributes['a2a.method.name'] === 'SendStreamingMessage')).toBe(true);
      expect(reviewSend?.attributes['a2a.task.state']).toBe('TASK_STATE_INPUT_REQUIRED');
      // The servers saw that trace on every A2A request, each with the context of one of its spans.
      const a2a = seen.filter((s) => s.path.startsWith('/a2a'));
      expect(a2a.length).toBeGreaterThanOrEqual(4);
      for (const request of a2a) {
        const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(request.headers['traceparent']));
        expect(match?.[1]).toBe(caller.ids.traceId);
        expect(byId.get(match?.[2] ?? '')?.attributes['a2a.method.name']).toBeDefined();
      }
    } finally {
      await proxy.close();
    }
  });
});
