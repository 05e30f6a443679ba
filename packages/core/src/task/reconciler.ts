import { TetherError } from '../errors/tether-error.js';
import { isInterruptedState, isTerminalState } from '../model/task-state.js';
import type { Artifact, Message, Part, StreamEvent, Task, TaskState, TaskStatus } from '../model/types.js';
import { partKey } from './part-key.js';
import { PartDigest, type HeldParts } from './part-digest.js';
import { PartList } from './part-list.js';
import type { ArtifactEvent, StatusEvent, TaskEvent } from './task-event.js';
import type { GenerationGate } from './generation-gate.js';

interface LocalArtifact {
  artifact: Omit<Artifact, 'parts'>;
  /** The parts (a {@link PartList}), or only what compares them (a {@link PartDigest}: `keepArtifacts: false`). */
  parts: HeldParts;
  complete: boolean;
  /** After a replayed prefix: the position the following replayed appends should match. */
  replayCursor: number | undefined;
  /**
   * After a snapshot recovered content: the live stream may repeat a stretch of it (it started
   * before the snapshot was taken, or resumes from an older point). See `overlapAppend`.
   */
  overlap: Overlap | undefined;
}

interface Overlap {
  /** Where the recovered stretch starts in `keys`. */
  start: number;
  /** Positions in `keys` the next live part would have to equal, for each stretch still matching. */
  candidates: number[] | undefined;
  /** Live parts held while they might be repeats. */
  held: Part[];
}

/** How many ids each dedupe window remembers (old ones fall out: G8). */
export interface ReconcilerWindows {
  messages: number;
  statuses: number;
  eventIds: number;
}

const WINDOWS: ReconcilerWindows = { messages: 2048, statuses: 1024, eventIds: 512 };

/** Equal messages: same id and same content (an agent may grow a message under one id). */
function sameMessage(a: Message | undefined, b: Message | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.messageId === b.messageId && contentKey(a) === contentKey(b);
}

function contentKey(message: Message): string {
  return message.parts.map(partKey).join('\u0001');
}

/** The total text length of a message: enough to tell a message grown under the same id. */
function contentSize(message: Message): number {
  let size = message.parts.length;
  for (const part of message.parts) if (part.kind === 'text') size += part.text.length;
  return size;
}

/**
 * What identifies one status the agent sent, for recognising a replay of it: state, message (id
 * and size) and timestamp. A status with neither a message nor a timestamp has none.
 */
function statusSignature(status: TaskStatus): string | undefined {
  const message = status.message;
  if (message === undefined && status.timestamp === undefined) return undefined;
  // Joined, not a template: one flat string (a template's pieces stay a tree of five strings while the window keeps it).
  return [status.state, message ? `${message.messageId}\u0000${contentSize(message)}` : '', status.timestamp ?? ''].join('\u0000');
}

/**
 * A copy of a string that does not keep its source alive. The SSE parser's fields are slices of the
 * whole network chunk they came in (tens of kilobytes): an event id kept in a dedupe window would
 * keep its chunk alive, and every chunk would outlive the young generation. (JSON.parse returns
 * strings of their own: message ids and status signatures need no copy.)
 */
function detached(text: string): string {
  return ` ${text}`.slice(1);
}

/** A bounded set: once full, each new entry pushes the oldest out (G8). Its set is made at the first entry (a window may never be used). */
class BoundedSet {
  private items: Set<string> | undefined;
  /** Entries in insertion order, as a ring. */
  private readonly ring: string[] = [];
  private next = 0;
  constructor(private readonly max: number) {}
  has(key: string): boolean {
    return this.items?.has(key) ?? false;
  }
  add(key: string): void {
    const items = (this.items ??= new Set());
    if (items.has(key)) return;
    items.add(key);
    if (this.ring.length < this.max) {
      this.ring.push(key);
      return;
    }
    items.delete(this.ring[this.next] as string);
    this.ring[this.next] = key;
    this.next = (this.next + 1) % this.max;
  }
}

/**
 * Turns raw protocol events and task snapshots into the app's events and view.
 *
 * The protocol has no event ids or replay, so deduplication is by state (see
 * `docs/design/engine.md`):
 * - a terminal state always wins, from any source, whatever its timestamp or message id, and
 *   nothing follows it;
 * - a change of state is never dropped as a duplicate, with three exceptions that are not news:
 *   a replay of a status already applied (same state, message and timestamp), a return to
 *   `submitted`, and — after `reply()` — the pause the reply answered, seen again in a snapshot
 *   without a new message;
 * - the same state with the same message (or none) is a repeat; timestamps inform, they never order;
 * - artifact chunks: `append` adds parts, otherwise replace; a replace that is a prefix of what we
 *   hold is a replay, and the appends that follow are matched against our parts until they run past;
 * - a snapshot is authoritative: only what is missing is emitted (a missing suffix as an append,
 *   a divergent artifact as a replace), marked `recovered` after a gap;
 * - identity: a snapshot of another task (or, where both are known, another context) is a
 *   `PROTOCOL_VIOLATION` and is not applied.
 */
export class Reconciler {
  contextId: string;
  private status: TaskStatus = { state: 'unknown' };
  private readonly artifacts = new Map<string, LocalArtifact>();
  private history: Message[] = [];
  private readonly seenMessages: BoundedSet;
  private readonly seenStatuses: BoundedSet;
  private readonly seenEventIds: BoundedSet;
  /** The pause `reply()` answered, until the agent shows a state that is not that pause. */
  private answered: TaskState | undefined;
  /** The id of the message a `start()` naming this task sent, until the view holds a status (see {@link answering}). */
  private answer: string | undefined;

  /**
   * `keepArtifacts: false`: artifacts are held as digests (no parts: the view and a result built from
   * it carry none); events carry every part as usual.
   */
  constructor(
    readonly taskId: string,
    contextId = '',
    windows: ReconcilerWindows = WINDOWS,
    private readonly keepArtifacts = true,
    /** The task's generations (v1.1 draft), when the client honours them: the follow consults it before applying. */
    readonly generations?: GenerationGate,
  ) {
    this.contextId = contextId;
    this.seenMessages = new BoundedSet(windows.messages);
    this.seenStatuses = new BoundedSet(windows.statuses);
    this.seenEventIds = new BoundedSet(windows.eventIds);
  }

  get state(): TaskState {
    return this.status.state;
  }

  get statusMessage(): Message | undefined {
    return this.status.message;
  }

  get timestamp(): string | undefined {
    return this.status.timestamp;
  }

  /** The assembled artifacts, in first-seen order (copies). */
  assembledArtifacts(): Artifact[] {
    // Same key order as the decoder produces, so a result built here and one fetched compare equal as JSON.
    return [...this.artifacts.values()].map((a) => {
      const { artifactId, ...rest } = a.artifact;
      return { artifactId, parts: a.parts.slice(), ...rest };
    });
  }

  /**
   * How many of `parts` this view holds already as the artifact's whole content (it is a prefix of
   * `parts`); `undefined` when it holds something else.
   */
  heldPrefix(artifactId: string, parts: readonly Part[]): number | undefined {
    const local = this.artifacts.get(artifactId);
    if (!local) return 0;
    return local.parts.isPrefixOf(parts.map(partKey)) ? local.parts.length : undefined;
  }

  /** How many parts the artifact holds now (0 for an artifact not seen). */
  partCount(artifactId: string): number {
    return this.artifacts.get(artifactId)?.parts.length ?? 0;
  }

  /** Whether the artifact is complete (its last chunk arrived, or a terminal snapshot showed it). */
  artifactComplete(artifactId: string): boolean {
    return this.artifacts.get(artifactId)?.complete ?? false;
  }

  historySnapshot(): Message[] {
    return [...this.history];
  }

  /** The current view as a Task (what `done()` resolves with when no final check is due). */
  toTask(): Task {
    const status: TaskStatus = { state: this.status.state };
    if (this.status.message) status.message = this.status.message;
    if (this.status.timestamp) status.timestamp = this.status.timestamp;
    return { kind: 'task', id: this.taskId, contextId: this.contextId, status, artifacts: this.assembledArtifacts(), history: this.historySnapshot() };
  }

  /**
   * A reply to the current pause was acknowledged: until the agent shows another state, a snapshot
   * that still shows this pause without a new message is stale, not a new pause.
   */
  replied(): void {
    if (isInterruptedState(this.status.state)) this.answered = this.status.state;
  }

  /**
   * This view follows a `start()` that named its task (`taskId`): message `messageId` answers the task's
   * pause, from a client that did not see it. Its first snapshot, when it shows a pause asked before the
   * answer (its question before the answer in the task's history, or no question at all), is that pause
   * — the official v1.0 server opens every answer's stream with it — taken in silently, as `reply()`
   * would have answered it: the view is at the pause and the reply is acknowledged ({@link replied}).
   * A question asked after the answer is a new pause.
   */
  answering(messageId: string): void {
    if (this.status.state === 'unknown') this.answer = messageId;
  }

  /** Whether the snapshot shows the pause the answer (see {@link answering}) answers, not one asked after it. */
  private answersPause(task: Task): boolean {
    const { state, message } = task.status;
    if (this.answer === undefined || !isInterruptedState(state)) return false;
    if (message === undefined) return true;
    const ids = task.history.map((m) => m.messageId);
    const asked = ids.lastIndexOf(message.messageId);
    const answeredAt = ids.indexOf(this.answer);
    return !(answeredAt >= 0 && asked > answeredAt);
  }

  /** The reply could not be delivered: the pause was not answered after all. */
  forgetReply(): void {
    this.answered = undefined;
  }

  /**
   * A new connection begins: what the previous one was in the middle of replaying says nothing
   * about the next. Recovered stretches stay in the window (the new stream may repeat them too).
   */
  newConnection(): void {
    for (const local of this.artifacts.values()) {
      local.replayCursor = undefined;
      if (local.overlap) local.overlap = { start: local.overlap.start, candidates: undefined, held: [] };
    }
  }

  /** Applies one event from a stream. `eventId` is the SSE id, when the agent sends ids. */
  applyEvent(event: StreamEvent, options: { recovered?: boolean; eventId?: string | undefined } = {}): TaskEvent[] {
    if (options.eventId !== undefined) {
      if (this.seenEventIds.has(options.eventId)) return [];
      this.seenEventIds.add(detached(options.eventId));
    }
    switch (event.kind) {
      case 'task':
        return this.applySnapshot(event, { recovered: options.recovered ?? false });
      case 'status-update':
        if (event.contextId) this.contextId ||= event.contextId;
        return this.applyStatus(event.status, options.recovered ?? false);
      case 'artifact-update':
        return this.applyChunk(event.artifact, event.append, event.lastChunk);
      case 'message':
        if (this.seenMessages.has(event.messageId)) return [];
        this.seenMessages.add(event.messageId);
        return [{ type: 'message', message: event }];
    }
  }

  /** Whether a status would be applied, and why not (pure). */
  private verdict(status: TaskStatus): boolean {
    const current = this.status;
    if (isTerminalState(current.state)) return false;
    if (isTerminalState(status.state)) return true;
    // The same state again, with no message or the same one, says nothing new.
    if (status.state === current.state && (status.message === undefined || sameMessage(status.message, current.message))) return false;
    const signature = statusSignature(status);
    if (signature !== undefined && this.seenStatuses.has(signature)) return false;
    if (status.state === 'submitted' && current.state !== 'unknown') return false;
    if (this.answered !== undefined && status.state === this.answered) {
      const messageId = status.message?.messageId;
      if (messageId === undefined || this.seenMessages.has(messageId)) return false;
    }
    return true;
  }

  private applyStatus(status: TaskStatus, recovered: boolean): StatusEvent[] {
    this.answer = undefined;
    if (!this.verdict(status)) return [];
    this.take(status);
    const event: StatusEvent = { type: 'status', state: status.state };
    if (status.message) event.message = status.message;
    if (status.timestamp !== undefined) event.timestamp = status.timestamp;
    if (recovered) event.recovered = true;
    return [event];
  }

  /** The view holds `status` from now on. */
  private take(status: TaskStatus): void {
    this.status = status;
    const signature = statusSignature(status);
    if (signature !== undefined) this.seenStatuses.add(signature);
    if (status.message) this.seenMessages.add(status.message.messageId);
    if (status.state !== this.answered) this.answered = undefined;
  }

  private artifactEvent(local: LocalArtifact, parts: Part[], append: boolean, lastChunk: boolean, recovered: boolean): ArtifactEvent {
    const event: ArtifactEvent = { type: 'artifact', artifactId: local.artifact.artifactId, parts, append, lastChunk };
    if (local.artifact.name !== undefined) event.name = local.artifact.name;
    if (local.artifact.description !== undefined) event.description = local.artifact.description;
    if (local.artifact.metadata !== undefined) event.metadata = local.artifact.metadata;
    if (recovered) event.recovered = true;
    return event;
  }

  private replaceLocal(artifact: Artifact, complete: boolean): LocalArtifact {
    const { parts, ...rest } = artifact;
    const local: LocalArtifact = {
      artifact: rest,
      parts: this.keepArtifacts ? PartList.from(parts) : PartDigest.from(parts),
      complete,
      replayCursor: undefined,
      overlap: undefined,
    };
    this.artifacts.set(artifact.artifactId, local);
    return local;
  }

  private applyChunk(artifact: Artifact, append: boolean, lastChunk: boolean): ArtifactEvent[] {
    const local = this.artifacts.get(artifact.artifactId);
    if (append && local && local.replayCursor === undefined && !local.overlap) {
      // The common case, a live append: no copies.
      const parts = artifact.parts;
      for (const part of parts) local.parts.push(part);
      local.complete = lastChunk;
      return [this.artifactEvent(local, parts, true, lastChunk, false)];
    }
    const keys = artifact.parts.map(partKey);
    if (!append) {
      if (local && keys.length > 0 && local.parts.startsWith(keys)) {
        // A replay of content we already hold (e.g. an agent re-sending every event on resubscribe).
        local.replayCursor = keys.length < local.parts.length ? keys.length : undefined;
        return [];
      }
      const fresh = this.replaceLocal(artifact, lastChunk);
      return [this.artifactEvent(fresh, [...artifact.parts], false, lastChunk, false)];
    }
    if (!local) {
      const fresh = this.replaceLocal(artifact, lastChunk);
      return [this.artifactEvent(fresh, [...artifact.parts], true, lastChunk, false)];
    }
    let start = 0;
    if (local.replayCursor !== undefined) {
      let cursor = local.replayCursor;
      while (start < keys.length && cursor < local.parts.length && local.parts.hasKey(cursor, keys[start] as string)) {
        start++;
        cursor++;
      }
      if (cursor < local.parts.length && start < keys.length) {
        // The replay diverges from what we hold: the agent's artifact is our matched prefix plus these parts.
        local.replayCursor = undefined;
        if (!local.parts.kept) return [this.divergedDigest(local, cursor, artifact.parts.slice(start), lastChunk)];
        const parts = [...local.parts.slice(0, cursor), ...artifact.parts.slice(start)];
        const rebuilt = this.replaceLocal({ ...local.artifact, parts }, lastChunk);
        return [this.artifactEvent(rebuilt, parts, false, lastChunk, true)];
      }
      local.replayCursor = cursor < local.parts.length ? cursor : undefined;
      if (start === keys.length) {
        if (lastChunk && local.replayCursor === undefined) local.complete = true;
        return [];
      }
    } else if (local.overlap) {
      return this.overlapAppend(local, artifact.parts, keys, lastChunk);
    }
    const added = artifact.parts.slice(start);
    for (const part of added) local.parts.push(part);
    local.complete = lastChunk;
    return [this.artifactEvent(local, added, true, lastChunk, false)];
  }

  /**
   * A replay that diverged after `from` parts, where the parts are not kept: the app has the first
   * `from` from earlier events; the event says to replace what follows them with `parts`.
   */
  private divergedDigest(local: LocalArtifact, from: number, parts: Part[], lastChunk: boolean): ArtifactEvent {
    const digest = local.parts as PartDigest;
    digest.truncate(from);
    for (const part of parts) digest.push(part);
    local.complete = lastChunk;
    const event = this.artifactEvent(local, parts, false, lastChunk, true);
    event.from = from;
    return event;
  }

  /**
   * A live append right after recovered content: it may repeat the end of what a snapshot just
   * recovered (the stream started before the snapshot was taken), or a longer stretch of it (a stream
   * resuming from an older point). Parts that match a recovered stretch are held; once a stretch is
   * matched up to the end of what we hold, they were repeats (dropped) and the rest is new; if every
   * stretch stops matching, the held parts were new after all and are emitted in order.
   */
  private overlapAppend(local: LocalArtifact, parts: Part[], keys: string[], lastChunk: boolean): ArtifactEvent[] {
    const overlap = local.overlap as Overlap;
    const end = local.parts.length;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      if (overlap.candidates === undefined) {
        overlap.candidates = [];
        for (let j = overlap.start; j < end; j++) if (local.parts.hasKey(j, key)) overlap.candidates.push(j + 1);
      } else {
        overlap.candidates = overlap.candidates.filter((c) => c < end && local.parts.hasKey(c, key)).map((c) => c + 1);
      }
      overlap.held.push(parts[i] as Part);
      if (overlap.candidates.includes(end)) {
        // Everything held repeated what we have: drop it, keep what follows.
        local.overlap = undefined;
        return this.appendLive(local, parts.slice(i + 1), lastChunk);
      }
      if (overlap.candidates.length === 0) {
        local.overlap = undefined;
        return this.appendLive(local, [...overlap.held, ...parts.slice(i + 1)], lastChunk);
      }
    }
    return [];
  }

  private appendLive(local: LocalArtifact, parts: Part[], lastChunk: boolean): ArtifactEvent[] {
    if (lastChunk) local.complete = true;
    if (parts.length === 0) return [];
    for (const part of parts) local.parts.push(part);
    local.complete = lastChunk;
    return [this.artifactEvent(local, parts, true, lastChunk, false)];
  }

  /** Applies an authoritative task snapshot (stream start, GetTask, a poll). */
  applySnapshot(task: Task, options: { recovered: boolean }): TaskEvent[] {
    this.checkIdentity(task);
    const recovered = options.recovered;
    if (task.contextId) this.contextId = task.contextId;
    const terminal = isTerminalState(task.status.state);
    const events: TaskEvent[] = [];
    for (const artifact of task.artifacts) {
      const keys = artifact.parts.map(partKey);
      const local = this.artifacts.get(artifact.artifactId);
      if (!local) {
        const fresh = this.replaceLocal(artifact, terminal);
        if (recovered) fresh.overlap = { start: 0, candidates: undefined, held: [] };
        events.push(this.artifactEvent(fresh, [...artifact.parts], false, terminal, recovered));
        continue;
      }
      if (keys.length === local.parts.length && local.parts.startsWith(keys)) {
        if (terminal) local.complete = true;
        continue;
      }
      if (local.parts.isPrefixOf(keys)) {
        const suffix = artifact.parts.slice(local.parts.length);
        // A live stream may still repeat recovered content; an earlier recovered stretch stays in the
        // window (a resume from an older Last-Event-ID repeats all of it). Held parts are superseded.
        if (recovered && local.replayCursor === undefined) {
          local.overlap = { start: local.overlap?.start ?? local.parts.length, candidates: undefined, held: [] };
        }
        for (const part of suffix) local.parts.push(part);
        local.complete = terminal;
        events.push(this.artifactEvent(local, suffix, true, terminal, recovered));
        continue;
      }
      if (local.parts.startsWith(keys) && !terminal) continue; // an older snapshot: we are ahead
      const fresh = this.replaceLocal(artifact, terminal);
      if (recovered) fresh.overlap = { start: 0, candidates: undefined, held: [] };
      events.push(this.artifactEvent(fresh, [...artifact.parts], false, terminal, recovered));
    }
    // Status last, so a terminal state is emitted after the content it completes.
    if (this.answersPause(task)) {
      // The pause a start() naming the task answers: at it, and answered (not news).
      this.answer = undefined;
      this.take(task.status);
      this.replied();
    } else {
      events.push(...this.applyStatus(task.status, recovered));
    }
    if (task.history.length > 0) {
      this.history = [...task.history];
      for (const m of task.history) this.seenMessages.add(m.messageId);
    }
    return events;
  }

  /** A snapshot must be of this task (and of its context, where both are known). */
  private checkIdentity(task: Task): void {
    if (task.id !== this.taskId) {
      throw new TetherError('PROTOCOL_VIOLATION', `the agent answered with task ${JSON.stringify(task.id)} for task ${JSON.stringify(this.taskId)}`, {
        taskId: this.taskId,
      });
    }
    if (task.contextId && this.contextId && task.contextId !== this.contextId) {
      throw new TetherError(
        'PROTOCOL_VIOLATION',
        `task ${JSON.stringify(this.taskId)} moved from context ${JSON.stringify(this.contextId)} to ${JSON.stringify(task.contextId)}`,
        { taskId: this.taskId },
      );
    }
  }

  /**
   * Whether the agent's task is ahead of what we hold (a half-open connection missed it): a
   * status that would be applied, or artifact content we lack or that differs. Changes nothing.
   */
  isBehind(task: Task): boolean {
    if (this.verdict(task.status)) return true;
    for (const artifact of task.artifacts) {
      const local = this.artifacts.get(artifact.artifactId);
      if (!local) return true;
      const keys = artifact.parts.map(partKey);
      if (keys.length > local.parts.length || !local.parts.startsWith(keys)) return true;
    }
    return false;
  }
}
