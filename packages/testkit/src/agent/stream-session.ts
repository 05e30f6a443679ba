import { AgentError } from './agent-error.js';
import { foreignItems } from './foreign-events.js';
import { isObject } from './json-guards.js';
import { isInterrupted, isTerminal } from './model.js';
import type { TaskEvent, TestMessage, TestPart, TestTaskState } from './model.js';
import type { SseWriter } from './sse.js';
import type { TaskMisbehaviour } from './task-misbehaviour.js';
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

/** Settings of one {@link StreamSession}. */
export interface StreamSessionOptions {
  sseIds: boolean;
  closeAtInterrupted: boolean;
  /** Misbehaviours while the stream follows no task yet (or never will: a Message reply). */
  agentWide: TaskMisbehaviour;
  /** Other tasks the agent knows, for the `foreign` misbehaviour. */
  others(entry: TaskEntry): TaskEntry[];
}

/**
 * One open SSE response following a task (or a run that has not created its task yet). It decides what
 * goes out — snapshot, replayed events, live events — and when the stream ends: after a terminal state,
 * after an interrupted state when `closeAtInterrupted`, or when the scenario run finished. The task's
 * misbehaviours (see `MISBEHAVIOURS`) are applied here, on the way out.
 */
export class StreamSession implements TaskObserver {
  private entry: TaskEntry | undefined;
  private detachFn: (() => void) | undefined;
  private snapshotNext = false;
  private wroteAny = false;
  private done = false;

  constructor(
    private readonly sink: StreamSink,
    private readonly options: StreamSessionOptions,
  ) {}

  get finished(): boolean {
    return this.done || this.sink.sse.isEnded;
  }

  private get misbehaviour(): TaskMisbehaviour {
    return this.entry?.misbehaviour ?? this.options.agentWide;
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

  /** A subscription's snapshot of the current task; ends the stream if the task settled. */
  writeSnapshot(entry: TaskEntry): void {
    this.writeTask(entry);
    this.endIfSettled(entry.status.state);
  }

  /** The task as it stands, as a snapshot frame, without ending on it (`stalePause`: a pause already answered). */
  writeAsItStands(entry: TaskEntry): void {
    this.writeTask(entry);
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

  /** End the body now, cleanly (`replayClose`). */
  endNow(): void {
    this.finish();
  }

  /** Answer with a plain HTTP status and a non-A2A body instead of a stream (`refuseSubscribe`). */
  refuse(status: number, contentType: string, body: string): void {
    this.close();
    this.sink.sse.refuse(status, contentType, body);
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
    const mb = entry.misbehaviour;
    // `lose`: the event that made the agent forget the task was the last one out; nothing follows.
    if (mb.lostWith(event.seq - 1)) {
      this.finish();
      return;
    }
    if (mb.resetsAt(event.seq)) {
      this.close();
      this.sink.sse.reset();
      return;
    }
    if (mb.has('streamError') && event.seq === mb.errorAt) {
      this.writeError(new AgentError(mb.errorCode, `Agent failed while streaming task ${entry.id} (misbehaviour streamError)`));
      this.finish();
      return;
    }
    if (this.snapshotNext) {
      this.snapshotNext = false;
      if (this.hidesTerminal(entry.status.state)) {
        this.finish();
        return;
      }
      this.writeTask(entry);
      this.afterEvent(event.seq, entry, entry.status.state);
      return;
    }
    // `dropEvent`: this event never goes out (what follows it does).
    if (mb.drops(event.seq)) {
      this.afterEvent(event.seq, entry, event.type === 'status' ? event.status.state : undefined);
      return;
    }
    const item = eventToItem(event, this.options.closeAtInterrupted);
    if (item.kind === 'status' && this.hidesTerminal(item.status.state)) {
      this.finish();
      return;
    }
    this.write(item, entry, event.seq);
    if (item.kind === 'task') {
      for (let i = mb.snapshotRepeats(event.seq); i > 0 && item.task.artifacts.length === 0; i--) this.write(item, entry, event.seq);
      this.afterEvent(event.seq, entry, item.task.status.state);
      return;
    }
    if (item.kind === 'status') {
      for (let i = mb.statusRepeats(event.seq); i > 0; i--) this.write(item, entry, event.seq);
      if (isTerminal(item.status.state) && mb.has('afterTerminal')) {
        const later = new Date(Date.parse(item.status.timestamp) + 1).toISOString();
        this.write({ ...item, status: { state: 'working', timestamp: later }, final: false }, entry, event.seq);
      }
      this.afterEvent(event.seq, entry, item.status.state);
      return;
    }
    this.afterEvent(event.seq, entry, undefined);
  }

  end(error: AgentError | undefined): void {
    if (this.finished) return;
    if (error !== undefined) {
      if (this.sink.sse.isStarted) {
        this.writeError(error);
      } else {
        this.close();
        this.sink.plainError(error);
        return;
      }
    } else if (this.entry !== undefined && (!this.wroteAny || this.snapshotNext)) {
      // The run finished without a further event: show where the task stands rather than an empty stream.
      const entry = this.entry;
      if (!entry.lost && !this.hidesTerminal(entry.status.state)) this.writeTask(entry);
    }
    this.finish();
  }

  /** After event `seq` went out: another task's events (`foreign`), then end if the task settled or was lost. */
  private afterEvent(seq: number, entry: TaskEntry, state: TestTaskState | undefined): void {
    const old = entry.misbehaviour.replayAfter(seq);
    if (old !== undefined) this.writeReplayed(entry, old);
    if (entry.misbehaviour.foreignAt(seq)) {
      for (const item of foreignItems(entry, seq, this.options.others(entry))) this.write(item, entry, seq);
    }
    if (state !== undefined) this.endIfSettled(state);
    if (entry.misbehaviour.lostWith(seq)) this.finish();
  }

  /** `terminalViaGet`: a stream never shows the terminal state; it ends just before. */
  private hidesTerminal(state: TestTaskState): boolean {
    return isTerminal(state) && this.entry?.misbehaviour.has('terminalViaGet') === true;
  }

  /** The task as it stands, as a snapshot frame (twice, now and then, under `repeat`). */
  private writeTask(entry: TaskEntry): void {
    const seq = entry.events.length;
    const item: StreamItem = { kind: 'task', task: entry.snapshot() };
    this.write(item, entry, seq);
    if (item.task.artifacts.length === 0) {
      for (let i = entry.misbehaviour.snapshotRepeats(seq); i > 0; i--) this.write(item, entry, seq);
    }
  }

  /** `replayOld`: event `seq` once more, with its generation but the text `REPLAYED` (a status: a new message id too). */
  private writeReplayed(entry: TaskEntry, seq: number): void {
    const event = entry.events[seq - 1];
    if (event === undefined || event.type === 'task') return;
    const item = eventToItem(event, this.options.closeAtInterrupted);
    const parts: TestPart[] = [{ kind: 'text', text: 'REPLAYED' }];
    if (item.kind === 'status') {
      const base: TestMessage = item.status.message ?? { messageId: `status-${seq}`, role: 'agent', parts, taskId: entry.id, contextId: entry.contextId };
      item.status = { ...item.status, message: { ...base, messageId: `${base.messageId}-replayed`, parts } };
      item.final = false;
    } else if (item.kind === 'artifact') {
      item.artifact = { ...item.artifact, parts };
    }
    this.write(item, entry, seq);
  }

  private writeError(error: AgentError): void {
    let data = this.sink.encodeError(error);
    // `noErrorInfo`: a google.rpc.Status (v1.0 HTTP+JSON) without its details.
    if (this.misbehaviour.has('noErrorInfo') && isObject(data) && isObject(data['error']) && 'details' in data['error']) {
      data = { ...data, error: { ...data['error'], details: [] } };
    }
    this.sink.sse.send(data, { event: 'error', rs: this.misbehaviour.has('rs') });
  }

  private write(item: StreamItem, entry: TaskEntry | undefined, seq: number | undefined): void {
    if (this.finished) return;
    this.wroteAny = true;
    // `generations` (v1.1 draft): an update carries the task's generation after it, its sequence number.
    if (entry?.misbehaviour.generations && seq !== undefined && (item.kind === 'status' || item.kind === 'artifact')) {
      item = { ...item, generation: entry.misbehaviour.generationOf(seq) };
    }
    const id = this.options.sseIds && entry !== undefined && seq !== undefined ? `${entry.id}:${seq}` : undefined;
    this.sink.sse.send(this.sink.encode(item), { id, rs: this.misbehaviour.has('rs') });
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
