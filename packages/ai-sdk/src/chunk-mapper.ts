import type { Message, Part, TaskEvent, TaskState } from '@a2a-tether/core';
import type { UIMessageChunk } from 'ai';
import type { A2APauseData, A2AStatusData } from './data-parts.js';
import { textOf } from './parts.js';

/**
 * What the messages before this one already showed of each artifact (a pause split the task into
 * messages): `[text length, data parts, file parts]` per artifact id.
 */
export type ShownMark = Readonly<Record<string, readonly [text: number, data: number, files: number]>>;

/** How a task's chunks end: at a pause, at the task's end, or with the agent's failure. */
export type StepEnd = 'paused' | 'finished' | 'failed';

/** What one task event becomes. */
export interface Step {
  chunks: UIMessageChunk[];
  end?: StepEnd | undefined;
}

/** One artifact as assembled from its events, and what this message showed of it. */
interface ArtifactState {
  parts: Part[];
  /** The id of its current text part in this message; a divergent replacement opens a new revision. */
  revision: number;
  /** Its text part is open (started, not ended). */
  open: boolean;
  /** The text of its current revision shown in this message. */
  shown: string;
  /** Text characters shown by earlier messages (a pause), never repeated here. */
  offset: number;
  /** Data parts shown before this message; and the JSON of each data part sent here, by index. */
  dataOffset: number;
  dataSent: Map<number, string>;
  /** File parts shown before this message and in it. */
  filesShown: number;
}

const PAUSES: ReadonlySet<TaskState> = new Set(['input-required', 'auth-required']);

/** A file part as the AI SDK shows it: its URL, or its inline bytes as a data URL. */
function fileChunk(part: Extract<Part, { kind: 'file' }>): UIMessageChunk {
  const mediaType = part.mediaType ?? 'application/octet-stream';
  const url = part.uri ?? `data:${mediaType};base64,${part.bytes ?? ''}`;
  return { type: 'file', url, mediaType };
}

/**
 * Turns a task's events into the AI SDK's chunks for one assistant message, in order. It keeps each
 * artifact as assembled so far and compares it with what the message already shows, so that replays
 * (a snapshot after a gap, a resync) add only what is new and nothing is shown twice. Pure: no I/O.
 */
export class ChunkMapper {
  private readonly artifacts = new Map<string, ArtifactState>();
  /** The text shown as the answer besides artifacts (agent messages), so a task without artifacts can fall back to its status. */
  private answered = false;
  private statusSent = '';

  constructor(
    private readonly messageId: string,
    private readonly taskId: string,
    private readonly contextId: () => string,
    /** What earlier messages of the same task showed (after a pause). */
    private readonly shownBefore: ShownMark = {},
  ) {}

  /** The message's first chunk: its id is derived from the task, so a replay targets the same message. */
  begin(): UIMessageChunk[] {
    return [{ type: 'start', messageId: this.messageId }];
  }

  /** The chunks of one event, and whether the message ends with it. */
  apply(event: TaskEvent): Step {
    switch (event.type) {
      case 'artifact':
        return { chunks: this.artifact(event.artifactId, event.parts, event.append, event.from) };
      case 'message':
        return { chunks: event.message.role === 'agent' ? this.message(event.message) : [] };
      case 'status':
        return this.status(event.state, event.message);
      default:
        return { chunks: [] };
    }
  }

  /** A direct message answer (the agent created no task): its parts, then the end. */
  answer(message: Message): UIMessageChunk[] {
    return [...this.message(message), { type: 'finish', finishReason: 'stop' }];
  }

  /** Every artifact's full size now: what the next message of the task (after a pause) must not repeat. */
  mark(): ShownMark {
    const mark: Record<string, [number, number, number]> = {};
    for (const [id, state] of this.artifacts) {
      mark[id] = [textOf(state.parts).length, state.parts.filter((p) => p.kind === 'data').length, state.parts.filter((p) => p.kind === 'file').length];
    }
    return mark;
  }

  /**
   * The mapper of the task's next message (after the user answered a pause): the same artifacts as
   * assembled so far, all of it counted as shown, so that the next message holds only what comes next.
   */
  continueAs(messageId: string): ChunkMapper {
    const next = new ChunkMapper(messageId, this.taskId, this.contextId, this.mark());
    for (const [id, state] of this.artifacts) next.stateOf(id).parts = [...state.parts];
    return next;
  }

  /** `text-end` for every open text part. */
  closeTexts(): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    for (const [id, state] of this.artifacts) {
      if (!state.open) continue;
      state.open = false;
      chunks.push({ type: 'text-end', id: textId(id, state.revision) });
    }
    return chunks;
  }

  private stateOf(artifactId: string): ArtifactState {
    let state = this.artifacts.get(artifactId);
    if (!state) {
      const [text = 0, data = 0, files = 0] = this.shownBefore[artifactId] ?? [];
      state = { parts: [], revision: 1, open: false, shown: '', offset: text, dataOffset: data, dataSent: new Map(), filesShown: files };
      this.artifacts.set(artifactId, state);
    }
    return state;
  }

  private artifact(artifactId: string, parts: Part[], append: boolean, from: number | undefined): UIMessageChunk[] {
    const state = this.stateOf(artifactId);
    if (append) state.parts.push(...parts);
    else state.parts = from === undefined ? [...parts] : [...state.parts.slice(0, from), ...parts];
    return [...this.text(artifactId, state), ...this.data(artifactId, state), ...this.files(state)];
  }

  /**
   * The artifact's text past what this message shows: the rest when it extends what was shown. When
   * the agent replaced it with text that does not (a rewrite), the shown part is closed and a new
   * text part — the next revision, same artifact in its `providerMetadata` — holds the whole new text:
   * a chunk cannot take back text, and repeating it silently would look like a duplicate.
   */
  private text(artifactId: string, state: ArtifactState): UIMessageChunk[] {
    const full = textOf(state.parts);
    const visible = full.slice(state.offset);
    if (visible === state.shown) return [];
    const chunks: UIMessageChunk[] = [];
    let delta: string;
    if (visible.startsWith(state.shown) && full.length >= state.offset) {
      delta = visible.slice(state.shown.length);
    } else {
      if (state.open) chunks.push({ type: 'text-end', id: textId(artifactId, state.revision) });
      state.open = false;
      state.revision++;
      // A rewrite shorter than what earlier messages showed: this message shows all of it.
      if (full.length < state.offset) state.offset = 0;
      delta = full.slice(state.offset);
      state.shown = '';
    }
    if (delta === '') return chunks;
    const id = textId(artifactId, state.revision);
    if (!state.open) {
      chunks.push({ type: 'text-start', id, providerMetadata: { a2a: { artifactId, revision: state.revision } } });
      state.open = true;
    }
    chunks.push({ type: 'text-delta', id, delta });
    state.shown += delta;
    return chunks;
  }

  /** Data parts, each with a stable id (`<artifactId>:<index>`), sent again only when its value changed (it updates in place). */
  private data(artifactId: string, state: ArtifactState): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    let index = 0;
    for (const part of state.parts) {
      if (part.kind !== 'data') continue;
      const at = index++;
      if (at < state.dataOffset) continue;
      const json = JSON.stringify(part.data) ?? 'null';
      if (state.dataSent.get(at) === json) continue;
      state.dataSent.set(at, json);
      chunks.push({ type: 'data-a2a', id: `${artifactId}:${at}`, data: { artifactId, index: at, data: part.data } });
    }
    return chunks;
  }

  /** File parts not shown yet (a file part has no id to update: a replaced file at a shown index is not shown again). */
  private files(state: ArtifactState): UIMessageChunk[] {
    const files = state.parts.filter((p) => p.kind === 'file');
    const chunks = files.slice(state.filesShown).map(fileChunk);
    state.filesShown = Math.max(state.filesShown, files.length);
    return chunks;
  }

  /** An agent message: its text as one text part, its data and files. */
  private message(message: Message): UIMessageChunk[] {
    const chunks: UIMessageChunk[] = [];
    const text = textOf(message.parts);
    if (text !== '') {
      const id = `message:${message.messageId}`;
      chunks.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: text }, { type: 'text-end', id });
      this.answered = true;
    }
    message.parts.forEach((part, index) => {
      if (part.kind === 'data') chunks.push({ type: 'data-a2a', id: `${message.messageId}:${index}`, data: { messageId: message.messageId, index, data: part.data } });
      if (part.kind === 'file') chunks.push(fileChunk(part));
    });
    return chunks;
  }

  /** The status part, updated in place (`data-a2a-status`, id `status`), when it says something new. */
  private statusPart(state: TaskState, text: string): UIMessageChunk[] {
    const data: A2AStatusData = { taskId: this.taskId, contextId: this.contextId(), state, ...(text === '' ? {} : { text }) };
    const json = JSON.stringify(data);
    if (json === this.statusSent) return [];
    this.statusSent = json;
    return [{ type: 'data-a2a-status', id: 'status', data }];
  }

  private status(state: TaskState, message: Message | undefined): Step {
    const text = message ? textOf(message.parts) : '';
    const status = this.statusPart(state, text);
    if (PAUSES.has(state)) {
      const pause: A2APauseData = { taskId: this.taskId, contextId: this.contextId(), state: state as A2APauseData['state'], ...(text === '' ? {} : { text }) };
      // The question is what the agent says to the user: its text, so a chat shows it as the agent's message.
      const id = `pause:${message?.messageId ?? ''}`;
      const question: UIMessageChunk[] = text === '' ? [] : [{ type: 'text-start', id }, { type: 'text-delta', id, delta: text }, { type: 'text-end', id }];
      return { chunks: [...this.closeTexts(), ...status, ...question, { type: 'data-a2a-pause', id: 'pause', data: pause }, { type: 'finish', finishReason: 'other' }], end: 'paused' };
    }
    switch (state) {
      case 'completed': {
        // An agent that answers in its final status message (no artifact, no message): that text is the answer.
        const fallback = this.artifacts.size === 0 && !this.answered && message ? this.message(message) : [];
        return { chunks: [...this.closeTexts(), ...fallback, ...status, { type: 'finish', finishReason: 'stop' }], end: 'finished' };
      }
      case 'canceled':
        return { chunks: [...this.closeTexts(), ...status, { type: 'finish', finishReason: 'other' }], end: 'finished' };
      case 'failed':
      case 'rejected': {
        const reason = text === '' ? 'no reason given' : text;
        return { chunks: [...this.closeTexts(), ...status, { type: 'error', errorText: `the agent's task ${this.taskId} ${state}: ${reason}` }], end: 'failed' };
      }
      default:
        return { chunks: status };
    }
  }
}

/** A text part's id: the artifact id, and its revision after a divergent rewrite. */
function textId(artifactId: string, revision: number): string {
  return revision === 1 ? artifactId : `${artifactId}#${revision}`;
}
