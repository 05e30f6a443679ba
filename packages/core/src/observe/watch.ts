import { TetherError } from '../errors/tether-error.js';
import type { StreamEvent } from '../model/types.js';
import type { TaskEvent } from '../task/task-event.js';
import type { AgentRef, LifecycleEvent, TaskRef, TetherPlugin } from './plugin.js';
import type { TraceContext } from './trace-context.js';

/** What a request needs to be described to plugins. */
export interface RequestFacts {
  operation: string;
  method: string;
  url: string;
  taskId: string | undefined;
  messageId: string | undefined;
  stream: boolean;
  parent: TraceContext | undefined;
  attempt: number | undefined;
}

/** A request being observed: its status, its stream's events and its end (reported once). */
export interface WatchedRequest {
  status: number | undefined;
  event(event: StreamEvent): void;
  /** `result`: a unary call's decoded answer. */
  end(error?: unknown, result?: unknown): void;
}

/** The hooks of a {@link Watch} (`Observers`, loaded with the task engine). */
export interface WatchHooks {
  readonly watchesTasks: boolean;
  /** Someone wants lifecycle events of this type. */
  wants(type: LifecycleEvent['type']): boolean;
  /** @throws TetherError `PLUGIN_REFUSED` */
  begin(facts: RequestFacts, headers: Record<string, string>): WatchedRequest | undefined;
  taskEvent(event: TaskEvent, task: TaskRef): void;
  emit(event: LifecycleEvent): void;
}

/** A client's lifecycle listener (`client.observe()`). */
export type LifecycleListener = (event: LifecycleEvent) => void;

/**
 * A client's plugins and lifecycle listeners, and — once their code is loaded — the hooks that call
 * them. The hooks ({@link Observers}) come with the task engine's chunk, so a web app that uses neither
 * plugins nor listeners loads none of it before its first request (D29).
 */
export class Watch {
  readonly listeners = new Set<LifecycleListener>();
  /** The hooks, once loaded; requests made before then are not reported. */
  hooks: WatchHooks | undefined;
  /** The agent, once its card is read; requests and events name it. */
  agent: AgentRef | undefined;
  /** The protocol version and the tenant of the interface in use. */
  protocolVersion: string | undefined;
  tenant: string | undefined;

  constructor(readonly plugins: readonly TetherPlugin[] = []) {
    plugins.forEach((plugin, index) => {
      if (typeof plugin !== 'object' || plugin === null || typeof plugin.name !== 'string' || plugin.name === '') {
        throw new TetherError('INVALID_ARGUMENT', `connect: plugins[${index}] is not a plugin (an object with a non-empty name)`, { maybeDelivered: false });
      }
    });
  }
}

