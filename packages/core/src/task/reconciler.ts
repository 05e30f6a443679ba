import { isTerminalState } from '../model/task-state.js';
import type { Artifact, Message, Part, StreamEvent, Task, TaskState, TaskStatus } from '../model/types.js';
import { partKey } from './part-key.js';
import type { ArtifactEvent, StatusEvent, TaskEvent } from './task-event.js';

interface LocalArtifact {
  artifact: Omit<Artifact, 'parts'>;
  parts: Part[];
  keys: string[];
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
  heldKeys: string[];
}

const SEEN_MESSAGES = 2048;
const SEEN_EVENT_IDS = 512;

function isPrefix(prefix: string[], of: string[]): boolean {
  if (prefix.length > of.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== of[i]) return false;
  return true;
}

function time(timestamp: string | undefined): number | undefined {
  if (timestamp === undefined) return undefined;
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? undefined : t;
}

/** A bounded insertion-ordered set: old entries fall out (G8). */
class BoundedSet {
  private readonly items = new Set<string>();
  constructor(private readonly max: number) {}
  has(key: string): boolean {
    return this.items.has(key);
  }
  add(key: string): void {
    this.items.add(key);
    if (this.items.size > this.max) this.items.delete(this.items.values().next().value as string);
  }
}

/**
 * Turns raw protocol events and task snapshots into the app's events and view.
 *
 * The protocol has no event ids or replay, so deduplication is by state:
 * - a status equal to the current one, older than it, repeating a status message already seen,
 *   going back to `submitted`, or coming after a terminal state is dropped (the last is recorded
 *   as a protocol violation);
 * - artifact chunks: `append` adds parts, otherwise replace; a replace that is a prefix of what we
 *   hold is a replay, and the appends that follow are matched against our parts until they run past;
 * - a snapshot is authoritative: only what is missing is emitted (a missing suffix as an append,
 *   a divergent artifact as a replace), marked `recovered` after a gap.
 */
export class Reconciler {
  contextId: string;
  private status: TaskStatus = { state: 'unknown' };
  private readonly artifacts = new Map<string, LocalArtifact>();
  private history: Message[] = [];
  private readonly seenMessages = new BoundedSet(SEEN_MESSAGES);
  private readonly seenEventIds = new BoundedSet(SEEN_EVENT_IDS);
  private readonly violationLog: string[] = [];

  constructor(
    readonly taskId: string,
    contextId = '',
  ) {
    this.contextId = contextId;
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

  /** Protocol violations seen (bounded), e.g. a state after a terminal state. */
  get violations(): readonly string[] {
    return this.violationLog;
  }

  /** The assembled artifacts, in first-seen order (copies). */
  assembledArtifacts(): Artifact[] {
    // Same key order as the decoder produces, so a result built here and one fetched compare equal as JSON.
    return [...this.artifacts.values()].map((a) => {
      const { artifactId, ...rest } = a.artifact;
      return { artifactId, parts: [...a.parts], ...rest };
    });
  }

  historySnapshot(): Message[] {
    return [...this.history];
  }

  private violation(text: string): void {
    if (this.violationLog.length < 32) this.violationLog.push(text);
  }

  /**
   * A new connection begins: what the previous one was in the middle of replaying says nothing
   * about the next. Recovered stretches stay in the window (the new stream may repeat them too).
   */
  newConnection(): void {
    for (const local of this.artifacts.values()) {
      local.replayCursor = undefined;
      if (local.overlap) local.overlap = { start: local.overlap.start, candidates: undefined, held: [], heldKeys: [] };
    }
  }

  /** Applies one event from a stream. `eventId` is the SSE id, when the agent sends ids. */
  applyEvent(event: StreamEvent, options: { recovered?: boolean; eventId?: string | undefined } = {}): TaskEvent[] {
    if (options.eventId !== undefined) {
      if (this.seenEventIds.has(options.eventId)) return [];
      this.seenEventIds.add(options.eventId);
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

  private applyStatus(status: TaskStatus, recovered: boolean): StatusEvent[] {
    const current = this.status;
    const messageId = status.message?.messageId;
    // Replays first: a status message already seen, or a status older than the current one.
    if (messageId !== undefined && this.seenMessages.has(messageId)) return [];
    const incoming = time(status.timestamp);
    const known = time(current.timestamp);
    if (incoming !== undefined && known !== undefined) {
      if (incoming < known) return [];
      if (incoming === known && status.state === current.state) return [];
    }
    if (status.state === current.state && messageId === current.message?.messageId) return [];
    if (isTerminalState(current.state)) {
      this.violation(`state ${status.state} after terminal state ${current.state}`);
      return [];
    }
    if (status.state === 'submitted' && current.state !== 'unknown') return [];
    this.status = status;
    if (messageId !== undefined) this.seenMessages.add(messageId);
    const event: StatusEvent = { type: 'status', state: status.state };
    if (status.message) event.message = status.message;
    if (status.timestamp !== undefined) event.timestamp = status.timestamp;
    if (recovered) event.recovered = true;
    return [event];
  }

  private artifactEvent(local: LocalArtifact, parts: Part[], append: boolean, lastChunk: boolean, recovered: boolean): ArtifactEvent {
    const event: ArtifactEvent = { type: 'artifact', artifactId: local.artifact.artifactId, parts, append, lastChunk };
    if (local.artifact.name !== undefined) event.name = local.artifact.name;
    if (local.artifact.description !== undefined) event.description = local.artifact.description;
    if (local.artifact.metadata !== undefined) event.metadata = local.artifact.metadata;
    if (recovered) event.recovered = true;
    return event;
  }

  private replaceLocal(artifact: Artifact, keys: string[], complete: boolean): LocalArtifact {
    const { parts, ...rest } = artifact;
    const local: LocalArtifact = {
      artifact: rest,
      parts: [...parts],
      keys,
      complete,
      replayCursor: undefined,
      overlap: undefined,
    };
    this.artifacts.set(artifact.artifactId, local);
    return local;
  }

  private applyChunk(artifact: Artifact, append: boolean, lastChunk: boolean): ArtifactEvent[] {
    const keys = artifact.parts.map(partKey);
    const local = this.artifacts.get(artifact.artifactId);
    if (!append) {
      if (local && keys.length > 0 && isPrefix(keys, local.keys)) {
        // A replay of content we already hold (e.g. an agent re-sending every event on resubscribe).
        local.replayCursor = keys.length < local.keys.length ? keys.length : undefined;
        return [];
      }
      const fresh = this.replaceLocal(artifact, keys, lastChunk);
      return [this.artifactEvent(fresh, [...artifact.parts], false, lastChunk, false)];
    }
    if (!local) {
      const fresh = this.replaceLocal(artifact, keys, lastChunk);
      return [this.artifactEvent(fresh, [...artifact.parts], true, lastChunk, false)];
    }
    let start = 0;
    if (local.replayCursor !== undefined) {
      let cursor = local.replayCursor;
      while (start < keys.length && cursor < local.keys.length && keys[start] === local.keys[cursor]) {
        start++;
        cursor++;
      }
      if (cursor < local.keys.length && start < keys.length) {
        // The replay diverges from what we hold: the agent's artifact is our matched prefix plus these parts.
        local.replayCursor = undefined;
        const parts = [...local.parts.slice(0, cursor), ...artifact.parts.slice(start)];
        const rebuilt = this.replaceLocal({ ...local.artifact, parts }, [...local.keys.slice(0, cursor), ...keys.slice(start)], lastChunk);
        return [this.artifactEvent(rebuilt, parts, false, lastChunk, true)];
      }
      local.replayCursor = cursor < local.keys.length ? cursor : undefined;
      if (start === keys.length) {
        if (lastChunk && local.replayCursor === undefined) local.complete = true;
        return [];
      }
    } else if (local.overlap) {
      return this.overlapAppend(local, artifact.parts, keys, lastChunk);
    }
    const added = artifact.parts.slice(start);
    local.parts.push(...added);
    local.keys.push(...keys.slice(start));
    local.complete = lastChunk;
    return [this.artifactEvent(local, added, true, lastChunk, false)];
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
    const end = local.keys.length;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      if (overlap.candidates === undefined) {
        overlap.candidates = [];
        for (let j = overlap.start; j < end; j++) if (local.keys[j] === key) overlap.candidates.push(j + 1);
      } else {
        overlap.candidates = overlap.candidates.filter((c) => c < end && local.keys[c] === key).map((c) => c + 1);
      }
      overlap.held.push(parts[i] as Part);
      overlap.heldKeys.push(key);
      if (overlap.candidates.includes(end)) {
        // Everything held repeated what we have: drop it, keep what follows.
        local.overlap = undefined;
        return this.appendLive(local, parts.slice(i + 1), keys.slice(i + 1), lastChunk);
      }
      if (overlap.candidates.length === 0) {
        local.overlap = undefined;
        return this.appendLive(local, [...overlap.held, ...parts.slice(i + 1)], [...overlap.heldKeys, ...keys.slice(i + 1)], lastChunk);
      }
    }
    return [];
  }

  private appendLive(local: LocalArtifact, parts: Part[], keys: string[], lastChunk: boolean): ArtifactEvent[] {
    if (lastChunk) local.complete = true;
    if (parts.length === 0) return [];
    local.parts.push(...parts);
    local.keys.push(...keys);
    local.complete = lastChunk;
    return [this.artifactEvent(local, parts, true, lastChunk, false)];
  }

  /** Applies an authoritative task snapshot (stream start, GetTask, a poll). */
  applySnapshot(task: Task, options: { recovered: boolean }): TaskEvent[] {
    const recovered = options.recovered;
    if (task.contextId) this.contextId = task.contextId;
    const terminal = isTerminalState(task.status.state);
    const events: TaskEvent[] = [];
    for (const artifact of task.artifacts) {
      const keys = artifact.parts.map(partKey);
      const local = this.artifacts.get(artifact.artifactId);
      if (!local) {
        const fresh = this.replaceLocal(artifact, keys, terminal);
        if (recovered) fresh.overlap = { start: 0, candidates: undefined, held: [], heldKeys: [] };
        events.push(this.artifactEvent(fresh, [...artifact.parts], false, terminal, recovered));
        continue;
      }
      if (keys.length === local.keys.length && isPrefix(keys, local.keys)) {
        if (terminal) local.complete = true;
        continue;
      }
      if (isPrefix(local.keys, keys)) {
        const suffix = artifact.parts.slice(local.keys.length);
        const suffixKeys = keys.slice(local.keys.length);
        // A live stream may still repeat recovered content; an earlier recovered stretch stays in the
        // window (a resume from an older Last-Event-ID repeats all of it). Held parts are superseded.
        if (recovered && local.replayCursor === undefined) {
          local.overlap = { start: local.overlap?.start ?? local.keys.length, candidates: undefined, held: [], heldKeys: [] };
        }
        local.parts.push(...suffix);
        local.keys.push(...suffixKeys);
        local.complete = terminal;
        events.push(this.artifactEvent(local, suffix, true, terminal, recovered));
        continue;
      }
      if (isPrefix(keys, local.keys) && !terminal) continue; // an older snapshot: we are ahead
      const fresh = this.replaceLocal(artifact, keys, terminal);
      if (recovered) fresh.overlap = { start: 0, candidates: undefined, held: [], heldKeys: [] };
      events.push(this.artifactEvent(fresh, [...artifact.parts], false, terminal, recovered));
    }
    // Status last, so a terminal state is emitted after the content it completes.
    events.push(...this.applyStatus(task.status, recovered));
    if (task.history.length > 0) {
      this.history = [...task.history];
      for (const m of task.history) this.seenMessages.add(m.messageId);
    }
    return events;
  }

  /**
   * Whether the agent's task is ahead of what we hold (a half-open connection missed it):
   * a newer status, or artifact content we lack. Does not change anything.
   */
  isBehind(task: Task): boolean {
    if (isTerminalState(this.status.state)) return false;
    const incoming = time(task.status.timestamp);
    const known = time(this.status.timestamp);
    const older = incoming !== undefined && known !== undefined && incoming < known;
    if (!older && task.status.state !== this.status.state) return true;
    const messageId = task.status.message?.messageId;
    if (!older && messageId !== undefined && messageId !== this.status.message?.messageId && !this.seenMessages.has(messageId)) {
      return true;
    }
    for (const artifact of task.artifacts) {
      const local = this.artifacts.get(artifact.artifactId);
      if (!local) return true;
      const keys = artifact.parts.map(partKey);
      if (keys.length > local.keys.length || !isPrefix(keys, local.keys)) return true;
    }
    return false;
  }
}
