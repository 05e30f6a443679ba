import type { A2AClient } from '../client/a2a-client.js';
import { openSpan, type OpenSpan } from '../observe/framework-span.js';
import { redact } from '../errors/redact.js';
import type { AgentCard } from '../card/card-types.js';
import type { AgentRef, FrameworkSpan, FrameworkSpanEnd, TetherPlugin } from '../observe/plugin.js';
import type { TraceContext } from '../observe/trace-context.js';
import { attemptKey } from './journal.js';
import type { AttemptRecord, NodeRecord, WorkflowRecord } from './workflow-record.js';
import type { WorkflowOptions } from './workflow-types.js';

/** The plugins a workflow opens its spans with: its own, else every distinct one of its agents' clients. */
function pluginsOf(options: WorkflowOptions): readonly TetherPlugin[] {
  if (options.plugins) return options.plugins;
  const out = new Set<TetherPlugin>();
  for (const client of Object.values(options.agents)) for (const plugin of client.plugins ?? []) out.add(plugin);
  return [...out];
}

/** The agent as plugins name it: its card's name, description and version, and the card's URL (redacted). */
function agentOf(client: A2AClient): AgentRef | undefined {
  const card = client.card as AgentCard | undefined;
  if (!card) return undefined;
  return { name: card.name, url: redact(client.cardUrl), description: card.description || undefined, version: card.version || undefined };
}

/** An attempt's outcome, as its span ends with it. */
function attemptEnd(attempt: AttemptRecord, endedAt: number): FrameworkSpanEnd {
  const failed = attempt.state === 'failed' || attempt.state === 'rejected' || attempt.state === 'timed-out' || attempt.state === 'unresolved';
  const error = attempt.error ?? (failed ? { code: attempt.state.toUpperCase().replace(/-/g, '_'), message: `the attempt ended ${attempt.state}` } : undefined);
  return { state: attempt.state, taskId: attempt.taskId, error, endedAt };
}

/**
 * The spans of one workflow: the workflow's (`invoke_workflow`, opened when it starts or is picked
 * up again) and one per hop attempt (`invoke_agent`), whose context the attempt's task continues. The
 * workflow's first trace context is kept in its record, so a restarted orchestrator continues the trace.
 */
export class WorkflowTrace {
  private readonly plugins: readonly TetherPlugin[];
  private workflow: OpenSpan | undefined;
  private readonly hops = new Map<string, OpenSpan>();

  constructor(
    private readonly options: WorkflowOptions,
    private readonly record: WorkflowRecord,
    private readonly now: () => number,
  ) {
    this.plugins = pluginsOf(options);
  }

  /** Opens the workflow's span (once); a new record keeps its context. */
  open(): void {
    if (this.workflow) return;
    const stored = this.record.trace;
    this.workflow = openSpan(this.plugins, {
      ...this.facts(stored ?? this.options.traceContext, stored !== undefined),
      kind: 'workflow',
      node: undefined,
      attempt: undefined,
      agent: undefined,
      parentTaskId: undefined,
    });
    const context = this.workflow.context;
    if (!stored && context.traceparent) this.record.trace = { traceparent: context.traceparent, ...(context.tracestate ? { tracestate: context.tracestate } : {}) };
  }

  /** Opens the span of a hop attempt (once per attempt): the context its task's requests continue. */
  hop(node: NodeRecord, attempt: AttemptRecord, client: A2AClient, resumed: boolean): TraceContext {
    const key = attemptKey(node.id, attempt.n);
    const open = this.hops.get(key);
    if (open) return open.context;
    this.open();
    const span = openSpan(this.plugins, {
      ...this.facts(this.workflow?.context, resumed),
      kind: 'hop',
      node: node.id,
      attempt: attempt.n,
      agent: agentOf(client),
      parentTaskId: this.parentTaskOf(node),
    });
    this.hops.set(key, span);
    return span.context;
  }

  /** What the workflow's span and its hops' share. */
  private facts(parent: TraceContext | undefined, resumed: boolean): Pick<FrameworkSpan, 'parent' | 'workflowId' | 'workflowName' | 'contextId' | 'resumed' | 'startedAt'> {
    return { parent, workflowId: this.record.id, workflowName: this.options.name, contextId: this.record.contextId, resumed, startedAt: this.now() };
  }

  /** The task a hop's parent node delegated it from, when that node has one. */
  parentTaskOf(node: NodeRecord): string | undefined {
    return node.parent === undefined ? undefined : this.record.nodes[node.parent]?.attempts.at(-1)?.taskId;
  }

  /** Ends a hop attempt's span with the attempt's outcome (a later call for it does nothing). */
  endHop(node: NodeRecord, attempt: AttemptRecord): void {
    const key = attemptKey(node.id, attempt.n);
    const span = this.hops.get(key);
    if (!span) return;
    this.hops.delete(key);
    span.end(attemptEnd(attempt, this.now()));
  }

  /** Ends every open span: the hops still followed (detached, their tasks run on), then the workflow's. */
  close(state: string, error?: unknown): void {
    for (const [key, span] of this.hops) {
      this.hops.delete(key);
      span.end({ state: 'detached', taskId: undefined, error: undefined, endedAt: this.now() });
    }
    const failed = state === 'failed' || state === 'broken';
    const info = error === undefined ? undefined : { code: (error as { code?: string }).code ?? 'ERROR', message: error instanceof Error ? error.message : String(error) };
    this.workflow?.end({ state, taskId: undefined, error: info ?? (failed ? { code: state.toUpperCase(), message: `the workflow ended ${state}` } : undefined), endedAt: this.now() });
  }
}
