import type { AgentError } from './agent-error.js';
import { isInterrupted, isTerminal } from './model.js';
import type { TaskEvent, TestMessage, TestTaskState } from './model.js';
import type { SseWriter } from './sse.js';
import type { TaskEntry, TaskObserver } from './task-registry.js';
import type { StreamItem } from './wire-codec.js';

/** How a binding turns stream items and errors into bytes. */
export interface StreamSink {
  readonly sse: SseWriter;
  /** The `data:` payload of one item (a JSON-RPC envelope or a bare REST object). */
  encode(item: StreamItem): unknown;
  /** The `data:` payload of an `event: error` frame. */
  encodeError(error: AgentError): unknown;
  /** Answer with a plain JSON error: nothing was streamed yet. */
  plainError(error: AgentError): void;
}

/** Convert a task event to a stream item; v0.3 `final` marks the event the stream ends on. */
export function eventToItem(event: TaskEvent, closeAtInterrupted: boolean): StreamItem {
  switch (event.type) {
    case 'task':
      return { kind: 'task', task: event.task };
    case 'status':
      return {
        kind: 'status',
        taskId: event.taskId,
        contextId: event.contextId,
        status: event.status,
        final: isTerminal(event.status.state) || (closeAtInterrupted && isInterrupted(event.status.state)),
      };
    case 'artifact':
      return {
        kind: 'artifact',
        taskId: event.taskId,
        contextId: event.contextId,
        artifact: event.artifact,
        append: event.append,
        lastChunk: event.lastChunk,
      };
  }
}

/**
 * One open SSE response following a task (or a run that has not created its task yet). It decides what
 * goes out — snapshot, replayed events, live events — and when the stream ends: after a terminal state,
 * after an interrupted state when `closeAtInterrupted`, or when the scenario run finished.
 */
export class StreamSession implements TaskObserver {
  private entry: TaskEntry | undefined;
  private detachFn: (() => void) | undefined;
  private snapshotNext = false;
  private wroteAny = false;
  private done = false;

  constructor(
    private readonly sink: StreamSink,
    private readonly options: { sseIds: boolean; closeAtInterrupted: boolean },
  ) {}

  get finished(): boolean {
    return this.done || this.sink.sse.isEnded;
  }

  /** The task this stream follows, when it already exists. */
  bind(entry: TaskEntry): void {
    this.entry = entry;
  }

  /** Remember how to stop observing (called when the stream ends or the client goes away). */
  attach(detach: () => void): void {
    if (this.done) detach();
    else this.detachFn = detach;
  }

  /** v1 follow-up turn: the next event goes out as a Task snapshot that already includes it. */
  snapshotOnNextEvent(): void {
    this.snapshotNext = true;
  }

  /** Write the current task as a snapshot; ends the stream if the task settled. */
  writeSnapshot(entry: TaskEntry): void {
    this.write({ kind: 'task', task: entry.snapshot() }, entry, entry.events.length);
    this.endIfSettled(entry.status.state);
  }

  /** Re-send logged events as they were, without ending on them (they are history). */
  replay(events: readonly TaskEvent[], entry: TaskEntry): void {
    for (const event of events) this.write(eventToItem(event, this.options.closeAtInterrupted), entry, event.seq);
  }

  /** After a snapshot/replay: end now if nothing more can come, else keep following live events. */
  settle(entry: TaskEntry): void {
    if (this.finished) return;
    this.endIfSettled(entry.status.state);
    if (!this.finished && entry.run?.active !== true) this.finish();
  }

  /** The client went away: stop observing, write nothing. */
  close(): void {
    this.done = true;
    this.detachFn?.();
  }

  message(message: TestMessage): void {
    if (this.finished) return;
    this.write({ kind: 'message', message }, undefined, undefined);
    this.finish();
  }

  event(event: TaskEvent, entry: TaskEntry): void {
    if (this.finished) return;
    this.entry = entry;
    if (this.snapshotNext) {
      this.snapshotNext = false;
      this.writeSnapshot(entry);
      return;
    }
    const item = eventToItem(event, this.options.closeAtInterrupted);
    this.write(item, entry, event.seq);
    if (item.kind === 'task') this.endIfSettled(item.task.status.state);
    if (item.kind === 'status') this.endIfSettled(item.status.state);
  }

  end(error: AgentError | undefined): void {
    if (this.finished) return;
    if (error !== undefined) {
      if (this.sink.sse.isStarted) {
        this.sink.sse.send(this.sink.encodeError(error), { event: 'error' });
      } else {
        this.close();
        this.sink.plainError(error);
        return;
      }
    } else if (this.entry !== undefined && (!this.wroteAny || this.snapshotNext)) {
      // The run finished without a further event: show where the task stands rather than an empty stream.
      this.write({ kind: 'task', task: this.entry.snapshot() }, this.entry, this.entry.events.length);
    }
    this.finish();
  }

  private write(item: StreamItem, entry: TaskEntry | undefined, seq: number | undefined): void {
    if (this.finished) return;
    this.wroteAny = true;
    const id = this.options.sseIds && entry !== undefined && seq !== undefined ? `${entry.id}:${seq}` : undefined;
    this.sink.sse.send(this.sink.encode(item), { id });
  }

  private endIfSettled(state: TestTaskState): void {
    if (isTerminal(state) || (this.options.closeAtInterrupted && isInterrupted(state))) this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.detachFn?.();
    this.sink.sse.end();
  }
}
