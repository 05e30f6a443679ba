import type { Part, TaskState } from '../model/types.js';
import type { ConnectionState, TaskEvent } from '../task/task-event.js';
import type { Watch } from './watch.js';
import { traceFields } from './observers.js';
import type { LifecycleBase, LifecycleEvent } from './plugin.js';
import type { RequestTrace, TraceContext } from './trace-context.js';

/**
 * The trace of one follow: its first request (the creating send, or a resumed task's first request)
 * continues the caller's context; every later request of the task (subscriptions, polls, a cancel, a
 * reply) is a child of that first request's span — "call → resubscribe".
 */
export class FollowTrace implements RequestTrace {
  private first: string | undefined;

  constructor(private readonly caller: TraceContext | undefined) {}

  get traceparent(): string | undefined {
    return this.first ?? this.caller?.traceparent;
  }

  get tracestate(): string | undefined {
    return this.caller?.tracestate;
  }

  sent(traceparent: string): void {
    this.first ??= traceparent;
  }

  /** The trace and span ids lifecycle events carry: the first request's. */
  ids(): { traceId?: string; spanId?: string } {
    return traceFields(this.first);
  }
}

/** UTF-8 bytes of a string, without encoding it. */
function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x800) bytes += code >= 0xd800 && code <= 0xdbff ? 1 : 2;
    else if (code >= 0x80) bytes += 1;
  }
  return bytes;
}

/** The bytes of an event's parts: text in UTF-8, data as JSON, a file's inline content (base64) or its URI. */
function partsBytes(parts: readonly Part[]): number {
  let bytes = 0;
  for (const part of parts) {
    if (part.kind === 'text') bytes += utf8Length(part.text);
    else if (part.kind === 'data') bytes += utf8Length(JSON.stringify(part.data) ?? '');
    else bytes += (part.bytes ?? part.uri).length;
  }
  return bytes;
}

const SOURCES: Partial<Record<ConnectionState, 'poll' | 'push'>> = { polling: 'poll', 'waiting-push': 'push' };

/**
 * What one follow tells the client's plugins and lifecycle listeners: each event its handle is handed
 * (`onTaskEvent`), and the lifecycle they make — state and connection changes, pauses, artifacts.
 * Made per follow; does nothing while nobody watches.
 */
export class TaskWatch {
  private state: TaskState = 'unknown';
  private link: ConnectionState = 'connecting';
  /** The artifacts seen so far (made at the first). */
  private artifacts: Set<string> | undefined;

  constructor(
    private readonly watch: Watch,
    readonly trace: FollowTrace,
    private readonly parentTaskId: string | undefined,
    /** The creating message, for a task this follow starts (its first events tell `task-created`). */
    private createdBy: string | undefined,
  ) {}

  /** What every lifecycle event of the task carries. */
  base(taskId: string, contextId: string): LifecycleBase {
    return { at: Date.now(), agent: this.watch.agent, taskId, contextId: contextId || undefined, ...this.trace.ids(), ...(this.parentTaskId === undefined ? {} : { parentTaskId: this.parentTaskId }) };
  }

  /** Tells a lifecycle event of the task. */
  tell(taskId: string, contextId: string, event: DistributiveOmit<LifecycleEvent, keyof LifecycleBase>): void {
    const hooks = this.watch.hooks;
    if (hooks?.watchesTasks && hooks.wants(event.type)) hooks.emit({ ...this.base(taskId, contextId), ...event } as LifecycleEvent);
  }

  /** The events the handle was just handed. */
  events(events: readonly TaskEvent[], taskId: string, contextId: string): void {
    const hooks = this.watch.hooks;
    if (!hooks?.watchesTasks) return;
    if (this.createdBy !== undefined) {
      this.tell(taskId, contextId, { type: 'task-created', messageId: this.createdBy });
      this.createdBy = undefined;
    }
    const task = { taskId, contextId };
    for (const event of events) {
      hooks.taskEvent(event, task);
      switch (event.type) {
        case 'status': {
          const from = this.state;
          this.state = event.state;
          if (hooks.wants('state-changed')) {
            const source = event.recovered ? 'snapshot' : (SOURCES[this.link] ?? 'stream');
            this.tell(taskId, contextId, { type: 'state-changed', from, to: event.state, source });
          }
          if (event.state === 'input-required' || event.state === 'auth-required') this.tell(taskId, contextId, { type: 'paused', state: event.state });
          break;
        }
        case 'connection':
          this.link = event.state;
          this.tell(taskId, contextId, { type: 'connection-changed', state: event.state, attempt: event.attempt, delayMs: event.delayMs, error: event.error });
          break;
        case 'artifact': {
          if (!hooks.wants('artifact')) break;
          const seen = (this.artifacts ??= new Set());
          const known = seen.has(event.artifactId);
          seen.add(event.artifactId);
          const change = event.lastChunk ? 'completed' : known ? 'updated' : 'created';
          this.tell(taskId, contextId, { type: 'artifact', change, artifactId: event.artifactId, parts: event.parts.length, bytes: partsBytes(event.parts) });
          break;
        }
        default:
          break;
      }
    }
  }
}

/** `Omit` over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
