import { taskCost } from '../model/cost.js';
import type { Part, Task, TaskState } from '../model/types.js';
import type { ConnectionState, TaskEvent } from '../task/task-event.js';
import type { Watch } from './watch.js';
import { traceFields } from './observers.js';
import type { LifecycleBase, LifecycleEvent } from './plugin.js';
import { Sha256 } from './sha256.js';
import type { RequestTrace, TraceContext } from './trace-context.js';

/**
 * The trace of one follow: its first request (the creating send, or a resumed task's first request)
 * continues the caller's context; every later request of the task (subscriptions, polls, a cancel, a
 * reply) is a child of that first request's span — "call → resubscribe".
 */
export class FollowTrace implements RequestTrace {
  private first: string | undefined;
  /** The reconnect attempt the follow is on (its requests say so), until it is live again. */
  attempt: number | undefined;

  constructor(private readonly caller: TraceContext | undefined) {}

  get traceparent(): string | undefined {
    return this.first ?? this.caller?.traceparent;
  }

  get tracestate(): string | undefined {
    return this.caller?.tracestate;
  }

  /** The first request's trace and span ids, parsed once. */
  private firstIds: { traceId?: string; spanId?: string } = {};

  sent(traceparent: string): void {
    if (this.first !== undefined) return;
    this.first = traceparent;
    this.firstIds = traceFields(traceparent);
  }

  /** The trace and span ids lifecycle events carry: the first request's. */
  ids(): { traceId?: string; spanId?: string } {
    return this.firstIds;
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

const utf8 = new TextEncoder();

/** Feeds an event's parts to a digest: text in UTF-8, data as its JSON, a file's decoded bytes (or its URI). */
function digestParts(hash: Sha256, parts: readonly Part[]): void {
  for (const part of parts) {
    if (part.kind === 'text') hash.update(utf8.encode(part.text));
    else if (part.kind === 'data') hash.update(utf8.encode(JSON.stringify(part.data) ?? ''));
    else if (part.bytes !== undefined) hash.update(decodeBase64(part.bytes));
    else hash.update(utf8.encode(part.uri));
  }
}

/** Base64 to bytes; what does not decode is hashed as its text. */
function decodeBase64(text: string): Uint8Array {
  try {
    const binary = atob(text);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return utf8.encode(text);
  }
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
  /** The artifacts seen so far and the digest of each one's content (`null`: unknown since a partial replacement). */
  private artifacts: Map<string, Sha256 | null> | undefined;

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
          if (event.recovered) this.tell(taskId, contextId, { type: 'gap', state: event.state });
          break;
        }
        case 'connection':
          this.link = event.state;
          if (event.state === 'live') this.trace.attempt = undefined;
          else if (event.attempt !== undefined) this.trace.attempt = event.attempt;
          this.tell(taskId, contextId, { type: 'connection-changed', state: event.state, attempt: event.attempt, delayMs: event.delayMs, error: event.error });
          break;
        case 'artifact': {
          if (!hooks.wants('artifact')) break;
          const seen = (this.artifacts ??= new Map());
          const known = seen.has(event.artifactId);
          // A chunk that does not append replaces the content: its digest starts again (from a part index on: unknown).
          let hash = event.append ? seen.get(event.artifactId) : event.from === undefined ? new Sha256() : null;
          if (hash === undefined) hash = new Sha256();
          if (hash) digestParts(hash, event.parts);
          seen.set(event.artifactId, hash);
          const change = event.lastChunk ? 'completed' : known ? 'updated' : 'created';
          this.tell(taskId, contextId, {
            type: 'artifact',
            change,
            artifactId: event.artifactId,
            parts: event.parts.length,
            bytes: partsBytes(event.parts),
            ...(hash ? { sha256: hash.hex() } : {}),
          });
          break;
        }
        default:
          break;
      }
    }
  }

  /** The task's lease was taken, or lost (`why`): another process may drive the task now. */
  lease(change: 'taken' | 'lost', task: { taskId: string; contextId: string } | undefined, fence: number | undefined, why?: string): void {
    if (task) this.tell(task.taskId, task.contextId, { type: 'lease', change, fence, ...(why === undefined ? {} : { reason: why }) });
  }

  /** The task finished: the cost its agent reported, if any. */
  finished(task: Task): void {
    const hooks = this.watch.hooks;
    if (!hooks?.watchesTasks || !hooks.wants('cost')) return;
    const cost = taskCost(task);
    if (cost) this.tell(task.id, task.contextId, { type: 'cost', amount: cost.amount, unit: cost.unit });
  }
}

/** `Omit` over each member of a union. */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
