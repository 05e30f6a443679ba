// @a2a-tether/otel — OpenTelemetry tracing for Tether, as a plugin: `connect(url, { plugins: [otel()] })`.
// One CLIENT span per A2A call, named and described by the OpenTelemetry semantic conventions for A2A
// (semantic-conventions-genai, docs/gen-ai/a2a.md; status Development). Core never imports OpenTelemetry.
import {
  context as contextApi,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type {
  FrameworkSpan,
  FrameworkSpanEnd,
  LifecycleEvent,
  RequestHeaders,
  RequestInfo,
  RequestOutcome,
  StreamEvent,
  TetherError,
  TetherPlugin,
  TraceContext,
} from '@a2a-tether/core';

/** The conventions this package emits, pinned: the A2A client span of semantic-conventions-genai on semantic conventions v1.44.0. */
export const A2A_SEMCONV = { document: 'semantic-conventions-genai docs/gen-ai/a2a.md', status: 'development', base: '1.44.0' } as const;

/** The tracer's name and version (the instrumentation scope). */
export const INSTRUMENTATION_NAME = '@a2a-tether/otel';
export const INSTRUMENTATION_VERSION = '0.1.0';

/** Options of {@link otel}, named as OpenTelemetry instrumentations name them. */
export interface OtelOptions {
  /** Where spans go. Default: the global tracer provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider | undefined;
  /** How trace context is injected into requests. Default: the global propagator (`propagation`). */
  propagator?: TextMapPropagator | undefined;
  /** Spans for the card request (`GET …/agent-card.json`) too (not an A2A method; default `false`). */
  cardRequests?: boolean | undefined;
}

/** The wire name of a task state, as the conventions want it (`TASK_STATE_INPUT_REQUIRED`). */
function wireState(state: string): string {
  return `TASK_STATE_${state.toUpperCase().replace(/-/g, '_')}`;
}

/**
 * `error.type`: the JSON-RPC error code or protocol status code when there is one, else the error's
 * code (`TIMEOUT`, `NETWORK` …), else `_OTHER`.
 */
export function errorType(error: TetherError): string {
  const a2aCode = (error as { a2aCode?: unknown }).a2aCode;
  if (typeof a2aCode === 'number') return String(a2aCode);
  if (error.status !== undefined && error.status >= 400) return String(error.status);
  return error.code || '_OTHER';
}

/** A call's span and what it records so far: a stream's events only set what changed. */
interface Call {
  span: Span;
  taskId: string | undefined;
  contextId: string | undefined;
  state: string | undefined;
}

/** What a stream event tells a call's span: the task, its context, its state — each set when it changes. */
function record(call: Call, event: StreamEvent): void {
  const taskId = event.kind === 'task' ? event.id : event.kind === 'message' ? undefined : event.taskId;
  const state = event.kind === 'task' || event.kind === 'status-update' ? event.status.state : undefined;
  if (taskId && taskId !== call.taskId) {
    call.taskId = taskId;
    call.span.setAttribute('a2a.task.id', taskId);
  }
  if (event.contextId && event.contextId !== call.contextId) {
    call.contextId = event.contextId;
    call.span.setAttribute('gen_ai.conversation.id', event.contextId);
  }
  if (state !== undefined && state !== call.state) {
    call.state = state;
    call.span.setAttribute('a2a.task.state', wireState(state));
  }
}

/** `server.address` and `server.port` of a URL (none when it does not parse). */
function serverOf(url: string, out: Attributes): void {
  try {
    const parsed = new URL(url);
    out['server.address'] = parsed.hostname;
    out['server.port'] = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  } catch {
    // A URL that does not parse names no server.
  }
}

/**
 * `gen_ai.provider.name` of a hop's `invoke_agent` span: the conventions require one, and a remote
 * A2A agent does not say which model provider is behind it, so Tether names the protocol it reached
 * the agent by (a custom value, as the conventions allow).
 */
export const A2A_PROVIDER_NAME = 'a2a';

/** The name, kind and attributes of a workflow's or hop's span (GenAI agent spans: `invoke_workflow`, `invoke_agent`). */
function frameworkSpan(span: FrameworkSpan): { name: string; kind: SpanKind; attributes: Attributes } {
  const attributes: Attributes = { 'gen_ai.conversation.id': span.contextId, 'a2a.tether.workflow.id': span.workflowId };
  if (span.resumed) attributes['a2a.tether.resumed'] = true;
  if (span.kind === 'workflow') {
    attributes['gen_ai.operation.name'] = 'invoke_workflow';
    if (span.workflowName) attributes['gen_ai.workflow.name'] = span.workflowName;
    return { name: span.workflowName ? `invoke_workflow ${span.workflowName}` : 'invoke_workflow', kind: SpanKind.INTERNAL, attributes };
  }
  attributes['gen_ai.operation.name'] = 'invoke_agent';
  attributes['gen_ai.provider.name'] = A2A_PROVIDER_NAME;
  if (span.node !== undefined) attributes['a2a.tether.node'] = span.node;
  if (span.attempt !== undefined) attributes['a2a.tether.attempt'] = span.attempt;
  if (span.parentTaskId !== undefined) attributes['a2a.tether.parent_task.id'] = span.parentTaskId;
  const agent = span.agent;
  if (agent?.name) attributes['gen_ai.agent.name'] = agent.name;
  if (agent?.description) attributes['gen_ai.agent.description'] = agent.description;
  if (agent?.version) attributes['gen_ai.agent.version'] = agent.version;
  if (agent?.url) serverOf(agent.url, attributes);
  return { name: agent?.name ? `invoke_agent ${agent.name}` : 'invoke_agent', kind: SpanKind.CLIENT, attributes };
}

/** The attributes a call's span starts with. */
function requestAttributes(request: RequestInfo): Attributes {
  const out: Attributes = { 'a2a.method.name': request.operation };
  if (request.taskId !== undefined) out['a2a.task.id'] = request.taskId;
  if (request.messageId !== undefined) out['a2a.message.id'] = request.messageId;
  if (request.tenant !== undefined) out['a2a.tenant'] = request.tenant;
  if (request.protocolVersion !== undefined) out['a2a.protocol.version'] = request.protocolVersion;
  if (request.attempt !== undefined) out['a2a.tether.attempt'] = request.attempt;
  if (request.agent?.name) out['gen_ai.agent.name'] = request.agent.name;
  if (request.agent?.description) out['gen_ai.agent.description'] = request.agent.description;
  if (request.agent?.version) out['gen_ai.agent.version'] = request.agent.version;
  serverOf(request.url, out);
  return out;
}

/**
 * The OpenTelemetry plugin: `connect(url, { plugins: [otel()] })`.
 *
 * - One `CLIENT` span per A2A call, named by `a2a.method.name` (`SendStreamingMessage`, `GetTask`,
 *   `SubscribeToTask` …); a stream's span covers consuming it. Attributes: `a2a.method.name`,
 *   `a2a.message.id`, `a2a.task.id`, `a2a.task.state` (`TASK_STATE_*`, the last seen), `a2a.tenant`,
 *   `a2a.protocol.version`, `gen_ai.agent.name` / `.description` / `.version` (from the card),
 *   `gen_ai.conversation.id` (the context id), `server.address`, `server.port`, and
 *   `error.type` on failure (the JSON-RPC code, the HTTP status, or the error's code).
 * - A task's first request is a child of the context active when the call was made (or of the
 *   `traceContext` given); every later request of the task — each resubscription after a cut, each poll,
 *   a reply, a cancel — is a child of that first request's span; each is its own span. A wait before
 *   a reconnect is a span event (`a2a.tether.backoff`) on the request that follows it.
 * - The trace context is injected into each request through the propagation API.
 *
 * Never records content, headers or credentials: ids, states, sizes and times only.
 */
export function otel(options: OtelOptions = {}): TetherPlugin {
  const provider = options.tracerProvider;
  let tracer: Tracer | undefined;
  const tracerOf = (): Tracer => (tracer ??= (provider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION));
  const propagator = options.propagator;
  const calls = new Map<number, Call>();
  /** Waits before a reconnect, per task: told on the next request of the task. */
  const backoffs = new Map<string, Extract<LifecycleEvent, { type: 'connection-changed' }>[]>();

  /** Workflows' and hops' spans, until they end. */
  const frameworkSpans = new Map<FrameworkSpan, Span>();

  const parentOf = (given: TraceContext | undefined): Context => {
    const parent = given?.traceparent;
    if (parent === undefined) return contextApi.active();
    const carrier: Record<string, string> = { traceparent: parent };
    if (given?.tracestate) carrier['tracestate'] = given.tracestate;
    return (propagator ?? propagation).extract(contextApi.active(), carrier, defaultTextMapGetter);
  };
  /** The propagation headers of `span` (what a request, or a context handed on, carries). */
  const carrierOf = (span: Span): Record<string, string> => {
    const carrier: Record<string, string> = {};
    (propagator ?? propagation).inject(trace.setSpan(contextApi.active(), span), carrier, defaultTextMapSetter);
    return carrier;
  };

  return {
    name: 'otel',
    // Only reconnect waits and gaps come as lifecycle events: no other is built for this plugin.
    lifecycle: ['connection-changed', 'gap'],
    onRequest(request: RequestInfo, headers: RequestHeaders): void {
      if (request.operation === 'GetAgentCard' && !options.cardRequests) return;
      const span = tracerOf().startSpan(request.operation, { kind: SpanKind.CLIENT, attributes: requestAttributes(request) }, parentOf(request.parent));
      calls.set(request.id, { span, taskId: request.taskId, contextId: undefined, state: undefined });
      const waits = request.taskId === undefined ? undefined : backoffs.get(request.taskId);
      if (waits && request.taskId !== undefined) {
        backoffs.delete(request.taskId);
        for (const wait of waits) {
          span.addEvent('a2a.tether.backoff', { 'a2a.tether.attempt': wait.attempt ?? 0, 'a2a.tether.delay_ms': wait.delayMs ?? 0, ...(wait.error ? { 'error.type': errorType(wait.error) } : {}) }, wait.at);
        }
      }
      for (const [name, value] of Object.entries(carrierOf(span))) headers.set(name, value);
    },
    onSpanStart(framework: FrameworkSpan): TraceContext {
      const { name, kind, attributes } = frameworkSpan(framework);
      const span = tracerOf().startSpan(name, { kind, attributes, startTime: framework.startedAt }, parentOf(framework.parent));
      frameworkSpans.set(framework, span);
      const carrier = carrierOf(span);
      // A propagator that writes no traceparent (B3 only …): the span context in W3C form, so the hop's requests are its children.
      const ids = span.spanContext();
      const traceparent = carrier['traceparent'] ?? `00-${ids.traceId}-${ids.spanId}-${ids.traceFlags & 1 ? '01' : '00'}`;
      return { traceparent, ...(carrier['tracestate'] ? { tracestate: carrier['tracestate'] } : {}) };
    },
    onSpanEnd(framework: FrameworkSpan, end: FrameworkSpanEnd): void {
      const span = frameworkSpans.get(framework);
      if (!span) return;
      frameworkSpans.delete(framework);
      if (end.taskId !== undefined) span.setAttribute('a2a.task.id', end.taskId);
      if (end.state !== undefined) span.setAttribute('a2a.tether.state', end.state);
      if (end.error) {
        span.setAttribute('error.type', end.error.code || '_OTHER');
        span.setStatus({ code: SpanStatusCode.ERROR, message: end.error.message });
      }
      span.end(end.endedAt);
    },
    onStreamEvent(event: StreamEvent, request: RequestInfo): void {
      const call = calls.get(request.id);
      if (call) record(call, event);
    },
    onResponse(request: RequestInfo, outcome: RequestOutcome): void {
      const call = calls.get(request.id);
      if (!call) return;
      calls.delete(request.id);
      // A unary answer tells what a stream's events would: the task, its context, its state.
      if (outcome.result) record(call, outcome.result);
      const span = call.span;
      if (outcome.error) {
        span.setAttribute('error.type', errorType(outcome.error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message });
      }
      span.end();
    },
    onLifecycle(event: LifecycleEvent): void {
      if (event.type === 'gap') {
        // A state recovered from a snapshot (events the client never received): an event on the request that found it.
        let found: Call | undefined;
        for (const call of calls.values()) if (call.taskId === event.taskId) found = call;
        found?.span.addEvent('a2a.tether.gap', { 'a2a.task.state': wireState(event.state) }, event.at);
        return;
      }
      if (event.type !== 'connection-changed' || event.state !== 'reconnecting' || event.taskId === undefined || event.delayMs === undefined) return;
      const list = backoffs.get(event.taskId) ?? [];
      list.push(event);
      backoffs.set(event.taskId, list);
    },
  };
}
