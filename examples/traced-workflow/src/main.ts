// A two-hop workflow traced with @a2a-tether/otel, printed as its span tree.
//
//   research (agent "Researcher", behind a proxy that cuts its stream once)
//      └─▶ review (agent "Reviewer", pauses at input-required; the example answers)
//
// Every span lands in the OpenTelemetry SDK's in-memory exporter; the example prints the tree
// (invoke_workflow → invoke_agent per hop → the hop's A2A calls → each resubscribe after the cut) and
// checks it: one trace id on every span and on every request the agents received.
//
//   pnpm --filter @a2a-tether/example-traced-workflow start                   the tree
//   … start -- --otlp http://localhost:4318/v1/traces                        also to an OTLP collector (Jaeger)
//   … start -- --html trace.html                                              also an HTML waterfall
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { connect, type NodeConnectOptions } from '@a2a-tether/node';
import { startWorkflow } from '@a2a-tether/node/orchestrate';
import { otel } from '@a2a-tether/otel';
import { startFaultProxy, startTestAgent } from '@a2a-tether/testkit';

const args = process.argv.slice(2);
const quiet = args.includes('--quiet');
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
// The check run sends its spans over OTLP/HTTP to a stand-in collector of its own (what Jaeger's port 4318 takes).
const collector = quiet && !args.includes('--otlp') ? await startCollector() : undefined;
const otlpUrl = option('--otlp') ?? collector?.url;
const htmlPath = option('--html');
const say = (line = ''): void => {
  if (!quiet) console.log(line);
};
let checks = 0;
function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`);
  checks++;
  if (!quiet) console.log(`  ✓ ${what}`);
}

// ————— OpenTelemetry, as an app sets it up —————
const memory = new InMemorySpanExporter();
const processors: SpanProcessor[] = [new SimpleSpanProcessor(memory)];
if (otlpUrl) processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: otlpUrl })));
const provider = new BasicTracerProvider({ spanProcessors: processors });
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

// ————— two local agents (the testkit's), one behind a proxy that cuts its first stream —————
const researcherAgent = await startTestAgent({ versions: ['1.0'], cardOverride: (card) => ({ ...card, name: 'Researcher' }) });
const reviewerAgent = await startTestAgent({ versions: ['1.0'], cardOverride: (card) => ({ ...card, name: 'Reviewer' }) });
const proxy = await startFaultProxy({ target: researcherAgent.origin, seed: 7 });
proxy.addFault({ kind: 'cut', afterEvents: 3, mode: 'reset', times: 1, match: { sse: true } });

try {
  const plugin = otel({ propagator: new W3CTraceContextPropagator() });
  const options: NodeConnectOptions = { cardCache: false, plugins: [plugin], resilience: { initialDelayMs: 20, maxDelayMs: 100 } };
  const agents = {
    researcher: await connect(proxy.url, options),
    reviewer: await connect(reviewerAgent.url, options),
  };

  const summary = await trace.getTracer('example').startActiveSpan('handle user request', async (root) => {
    const flow = await startWorkflow({
      id: 'traced-example',
      name: 'research-review',
      goal: 'research, then review',
      agents,
      hops: [
        { id: 'research', agent: 'researcher', input: () => 'stream updates=3 chunks=6 delayMs=15' },
        { id: 'review', agent: 'reviewer', parent: 'research', dependsOn: ['research'], input: () => 'input' },
      ],
    });
    for await (const event of flow.events()) {
      if (event.type === 'pause') {
        say(`pause on ${event.pause.node} (${event.pause.state}): answering`);
        await flow.answer([{ pause: event.pause, input: 'approved' }]);
      }
    }
    const done = await flow.done();
    root.end();
    return done;
  });
  await provider.forceFlush();

  const spans = memory.getFinishedSpans();
  say(`\nworkflow ${summary.record.id}: ${summary.state}; stream cuts by the proxy: ${proxy.stats.cuts.reset}\n`);
  say(spanTree(spans));
  if (htmlPath) {
    writeFileSync(htmlPath, waterfall(spans));
    say(`\nwaterfall written to ${htmlPath}`);
  }
  if (otlpUrl) say(`spans sent to ${otlpUrl}`);

  // ————— what must hold —————
  say('\nchecks:');
  const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
  check(summary.state === 'completed', 'the workflow completed');
  check(traceIds.size === 1, `one trace id on all ${spans.length} spans`);
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const parent = (s: ReadableSpan): ReadableSpan | undefined => byId.get(s.parentSpanContext?.spanId ?? '');
  const workflow = spans.find((s) => s.name === 'invoke_workflow research-review');
  const hops = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent');
  check(workflow !== undefined && parent(workflow)?.name === 'handle user request', 'invoke_workflow under the app\'s span');
  check(hops.length === 2 && hops.every((h) => parent(h) === workflow && h.kind === SpanKind.CLIENT), 'one invoke_agent span per hop, under the workflow');
  const resubscribes = spans.filter((s) => s.name === 'SubscribeToTask' || s.name === 'GetTask');
  check(resubscribes.length >= 1 && resubscribes.every((s) => parent(s)?.name === 'SendStreamingMessage' && parent(parent(s) as ReadableSpan)?.attributes['a2a.tether.node'] === 'research'), 'the cut stream\'s resubscribe under the research hop\'s send');
  const [traceId] = [...traceIds];
  const received = [...researcherAgent.requests, ...reviewerAgent.requests].filter((r) => r.method === 'POST');
  if (collector) {
    const exported = collector.spans();
    check(exported.length === spans.length && exported.every((s) => s.traceId === traceId), `the OTLP collector received all ${exported.length} spans of that trace`);
  }
  check(received.length >= 4 && received.every((r) => String(r.headers['traceparent']).split('-')[1] === traceId), `both agents received that trace id on all ${received.length} A2A requests`);
  if (quiet) console.log(`traced-workflow: ${checks} checks passed (${spans.length} spans, one trace${collector ? ', exported over OTLP/HTTP' : ''})`);
} finally {
  await provider.shutdown();
  await collector?.close();
  await proxy.close();
  await Promise.all([researcherAgent.close(), reviewerAgent.close()]);
}

/** The spans as an indented tree: name, kind, duration, and the attributes that say what happened. */
function spanTree(spans: readonly ReadableSpan[]): string {
  const children = new Map<string, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const roots: ReadableSpan[] = [];
  for (const span of [...spans].sort((a, b) => ms(a.startTime) - ms(b.startTime))) {
    const parentId = span.parentSpanContext?.spanId;
    if (parentId && ids.has(parentId)) children.set(parentId, [...(children.get(parentId) ?? []), span]);
    else roots.push(span);
  }
  const lines: string[] = [];
  const visit = (span: ReadableSpan, prefix: string, last: boolean, top: boolean): void => {
    const a = span.attributes;
    const facts = [
      a['a2a.task.id'] ? `task ${String(a['a2a.task.id']).slice(0, 8)}` : '',
      a['a2a.task.state'] ? String(a['a2a.task.state']).replace('TASK_STATE_', '').toLowerCase() : '',
      a['a2a.tether.state'] ? String(a['a2a.tether.state']) : '',
      a['error.type'] ? `error ${String(a['error.type'])}` : '',
      span.events.length ? span.events.map((e) => e.name).join(', ') : '',
    ].filter(Boolean);
    const head = top ? '' : `${prefix}${last ? '└─ ' : '├─ '}`;
    lines.push(`${head}${span.name}  [${SpanKind[span.kind]}, ${Math.round(ms(span.duration))} ms]${facts.length ? `  ${facts.join(' · ')}` : ''}`);
    const kids = children.get(span.spanContext().spanId) ?? [];
    kids.forEach((kid, i) => visit(kid, top ? '' : `${prefix}${last ? '   ' : '│  '}`, i === kids.length - 1, false));
  };
  roots.forEach((root) => visit(root, '', true, true));
  return lines.join('\n');
}

/** An HTML waterfall of the spans (one bar per span, indented by depth), self-contained. */
function waterfall(spans: readonly ReadableSpan[]): string {
  const start = Math.min(...spans.map((s) => ms(s.startTime)));
  const end = Math.max(...spans.map((s) => ms(s.endTime)));
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const depth = (s: ReadableSpan): number => {
    let d = 0;
    for (let p = byId.get(s.parentSpanContext?.spanId ?? ''); p; p = byId.get(p.parentSpanContext?.spanId ?? '')) d++;
    return d;
  };
  const rows = [...spans]
    .sort((a, b) => ms(a.startTime) - ms(b.startTime))
    .map((s) => {
      const left = ((ms(s.startTime) - start) / (end - start)) * 100;
      const width = Math.max(0.4, (ms(s.duration) / (end - start)) * 100);
      const color = s.kind === SpanKind.INTERNAL ? '#6b8afd' : s.attributes['gen_ai.operation.name'] ? '#39b39b' : s.name === 'SubscribeToTask' ? '#e8a33d' : '#8a94a6';
      const label = `${s.name} — ${Math.round(ms(s.duration))} ms`;
      return `<div class="row"><div class="name" style="padding-left:${depth(s) * 16}px">${escape(s.name)}</div><div class="lane"><div class="bar" style="left:${left}%;width:${width}%;background:${color}" title="${escape(label)}"></div></div></div>`;
    })
    .join('\n');
  return `<!doctype html><meta charset="utf-8"><title>Trace ${spans[0]?.spanContext().traceId ?? ''}</title>
<style>body{font:13px system-ui,sans-serif;margin:16px;color:#1d2330}h1{font-size:15px}.row{display:flex;align-items:center;height:24px;border-bottom:1px solid #eef0f4}.name{width:330px;white-space:nowrap;overflow:hidden}.lane{position:relative;flex:1;height:14px}.bar{position:absolute;height:14px;border-radius:3px}</style>
<h1>trace ${spans[0]?.spanContext().traceId ?? ''} · ${spans.length} spans · ${Math.round(end - start)} ms</h1>
${rows}
`;
}

/** A stand-in OTLP/HTTP collector on 127.0.0.1 (JSON encoding): it keeps the spans it is sent. */
async function startCollector(): Promise<{ url: string; spans(): { traceId: string; name: string }[]; close(): Promise<void> }> {
  const received: { traceId: string; name: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: { scopeSpans?: { spans?: { traceId: string; name: string }[] }[] }[];
      };
      for (const resource of body.resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) for (const span of scope.spans ?? []) received.push({ traceId: span.traceId, name: span.name });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function ms(time: [number, number]): number {
  return time[0] * 1_000 + time[1] / 1e6;
}

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);
}
