import type { IncomingHttpHeaders } from 'node:http';
import { context, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { connect, type TaskEvent } from '@a2a-tether/node';
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
