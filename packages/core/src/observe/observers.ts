import { redact } from '../errors/redact.js';
import { TetherError } from '../errors/tether-error.js';
import type { Message, StreamEvent, Task } from '../model/types.js';
import type { TaskEvent } from '../task/task-event.js';
import type { AgentRef, LifecycleEvent, RequestHeaders, RequestInfo, RequestOutcome, TaskRef, TetherPlugin } from './plugin.js';
import { findHeader, setHeader } from './headers.js';
import { parseTraceparent } from './trace-context.js';
import type { RequestFacts, Watch, WatchedRequest, WatchHooks } from './watch.js';

let lastRequestId = 0;

/** A request being observed: its description, its events and its end (reported once). */
export class ObservedRequest implements WatchedRequest {
  private events = 0;
  private ended = false;
  status: number | undefined;

  constructor(
    private readonly host: Observers,
    readonly info: RequestInfo,
  ) {}

  /** A decoded stream event. */
  event(event: StreamEvent): void {
    this.events++;
    this.host.streamEvent(event, this.info);
  }

  /** The request is over (its answer decoded, or its stream's reading ended); later calls do nothing. */
  end(error?: unknown, result?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const kind = (result as { kind?: unknown } | undefined)?.kind;
    const outcome: RequestOutcome = {
      status: this.status ?? (error instanceof TetherError ? error.status : undefined),
      durationMs: Date.now() - this.info.startedAt,
      error: error === undefined ? undefined : error instanceof TetherError ? error : new TetherError('NETWORK', String(error), { cause: error }),
      events: this.info.stream ? this.events : undefined,
      result: kind === 'task' || kind === 'message' ? (result as Task | Message) : undefined,
    };
    this.host.response(this.info, outcome);
  }
}

/**
 * The hooks of one client's {@link Watch}: every plugin hook and listener is called through here, each
 * throw caught and reported (`plugin-failed`), so that no plugin can break a call or a follow. When a
 * client has neither plugins nor listeners, nothing is made per request or per event.
 */
export class Observers implements WatchHooks {
  private readonly warned = new Set<string>();
  private readonly plugins: readonly TetherPlugin[];
  private readonly pluginsWatchTasks: boolean;
  /** The lifecycle event types some plugin asked for (`TetherPlugin.lifecycle`; all when one did not say). */
  private readonly pluginTypes: ReadonlySet<string> | 'all';

  constructor(private readonly watch: Watch) {
    this.plugins = watch.plugins;
    this.pluginsWatchTasks = this.plugins.some((p) => p.onTaskEvent || p.onLifecycle);
    const listening = this.plugins.filter((p) => p.onLifecycle);
    this.pluginTypes = listening.some((p) => p.lifecycle === undefined) ? 'all' : new Set(listening.flatMap((p) => p.lifecycle ?? []));
  }

  /** Someone wants lifecycle events of this type (a listener wants every type). */
  wants(type: LifecycleEvent['type']): boolean {
    return this.watch.listeners.size > 0 || this.pluginTypes === 'all' || this.pluginTypes.has(type);
  }

  get agent(): AgentRef | undefined {
    return this.watch.agent;
  }

  /** Someone watches requests (a plugin or a lifecycle listener). */
  get active(): boolean {
    return this.plugins.length > 0 || this.watch.listeners.size > 0;
  }

  /** Someone watches what a task hands its app (task events, or the lifecycle they make). */
  get watchesTasks(): boolean {
    return this.watch.listeners.size > 0 || this.pluginsWatchTasks;
  }

  /**
   * A request starts: each plugin's `onRequest` may set `headers` (applied only if it returned
   * normally) or refuse. Returns the observed request, or `undefined` when nobody watches.
   * @throws TetherError `PLUGIN_REFUSED`
   */
  begin(facts: RequestFacts, headers: Record<string, string>): ObservedRequest | undefined {
    if (!this.active) return undefined;
    const info = {
      id: ++lastRequestId,
      operation: facts.operation,
      method: facts.method,
      url: redact(facts.url),
      taskId: facts.taskId,
      messageId: facts.messageId,
      tenant: facts.operation === 'GetAgentCard' ? undefined : this.watch.tenant,
      stream: facts.stream,
      protocolVersion: facts.operation === 'GetAgentCard' ? undefined : this.watch.protocolVersion,
      agent: this.watch.agent,
      parent: facts.parent,
      attempt: facts.attempt,
      traceparent: headers['traceparent'],
      startedAt: Date.now(),
    };
    for (const plugin of this.plugins) {
      if (!plugin.onRequest) continue;
      const own = { ...headers };
      const access: RequestHeaders = {
        set: (name, value) => setHeader(own, name, value),
        get: (name) => findHeader(own, name),
      };
      let answer: void | { refuse: string };
      try {
        answer = plugin.onRequest({ ...info }, access);
      } catch (error) {
        this.failed(plugin, 'onRequest', error);
        continue;
      }
      if (answer && typeof answer === 'object' && 'refuse' in answer) {
        throw new TetherError('PLUGIN_REFUSED', `plugin "${plugin.name}" refused the request: ${redact(String(answer.refuse))}`, {
          operation: facts.operation,
          method: facts.method,
          url: info.url,
          taskId: facts.taskId,
          maybeDelivered: false,
        });
      }
      for (const key of Object.keys(headers)) if (!(key in own)) delete headers[key];
      Object.assign(headers, own);
    }
    info.traceparent = findHeader(headers, 'traceparent');
    return new ObservedRequest(this, info);
  }

  /** A request is over. */
  response(info: RequestInfo, outcome: RequestOutcome): void {
    for (const plugin of this.plugins) if (plugin.onResponse) this.call(plugin, 'onResponse', () => plugin.onResponse?.(info, outcome));
    // Lifecycle events carry no content: the answer itself stays with the plugins.
    const { result: _answer, ...told } = outcome;
    this.emit({
      type: 'request',
      at: Date.now(),
      agent: info.agent,
      taskId: info.taskId,
      ...traceFields(info.traceparent),
      operation: info.operation,
      method: info.method,
      url: info.url,
      stream: info.stream,
      attempt: info.attempt,
      ...told,
    });
  }

  streamEvent(event: StreamEvent, info: RequestInfo): void {
    // Per event: no closure, no allocation of ours.
    for (const plugin of this.plugins) {
      if (!plugin.onStreamEvent) continue;
      try {
        plugin.onStreamEvent(event, info);
      } catch (error) {
        this.failed(plugin, 'onStreamEvent', error);
      }
    }
  }

  taskEvent(event: TaskEvent, task: TaskRef): void {
    for (const plugin of this.plugins) {
      if (!plugin.onTaskEvent) continue;
      try {
        plugin.onTaskEvent(event, task);
      } catch (error) {
        this.failed(plugin, 'onTaskEvent', error);
      }
    }
  }

  /** Hands a lifecycle event to every plugin's `onLifecycle` and every listener. */
  emit(event: LifecycleEvent): void {
    for (const plugin of this.plugins) {
      if (plugin.onLifecycle && (plugin.lifecycle === undefined || plugin.lifecycle.includes(event.type))) this.call(plugin, 'onLifecycle', () => plugin.onLifecycle?.(event));
    }
    for (const listener of this.watch.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.warn('observe', 'listener', error);
      }
    }
  }

  private call(plugin: TetherPlugin, hook: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.failed(plugin, hook, error);
    }
  }

  private failed(plugin: TetherPlugin, hook: string, cause: unknown): void {
    const error = this.warn(plugin.name, hook, cause);
    // A plugin's failure is news to the others, never to a hook that is failing already.
    if (hook === 'onLifecycle') return;
    this.emit({ type: 'plugin-failed', at: Date.now(), agent: this.agent, plugin: plugin.name, hook, error });
  }

  private warn(name: string, hook: string, cause: unknown): TetherError {
    const error = new TetherError('PLUGIN_FAILED', `plugin "${name}" threw in ${hook}: ${redact(cause instanceof Error ? cause.message : String(cause))}`, { cause });
    const key = `${name}\u0000${hook}`;
    if (!this.warned.has(key)) {
      this.warned.add(key);
      console.warn(`[tether] ${error.message} (reported once; the call goes on without it)`);
    }
    return error;
  }
}

/** The trace and span ids of a `traceparent` (none when it does not parse). */
export function traceFields(traceparent: string | undefined): { traceId?: string; spanId?: string } {
  const ids = parseTraceparent(traceparent);
  return ids ? { traceId: ids.traceId, spanId: ids.spanId } : {};
}

