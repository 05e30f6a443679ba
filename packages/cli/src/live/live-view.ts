import { createInterface } from 'node:readline';
import { isInterruptedState, isTerminalState, type Part, type TaskEvent, type TaskHandle, type TaskState } from '@a2a-tether/node';
import { escapeUnsafe, oneLine } from '../output/terminal-safe.js';

/** Where the live view draws and reads: a terminal (`isTTY`) for output, and the keyboard for a pause's answer. */
export interface LiveTerminal {
  output: NodeJS.WritableStream & { isTTY?: boolean | undefined; columns?: number | undefined };
  input: NodeJS.ReadableStream;
}

/** One artifact as the view counts it. */
interface Progress {
  name: string;
  chunks: number;
  bytes: number;
  done: boolean;
}

const encoder = new TextEncoder();
const ESC = '\u001b[';
/** A control sequence of the view's own (never built from what the agent sent). */
interface Control {
  control: string;
}
const DIM: Control = { control: `${ESC}2m` };
const NORMAL: Control = { control: `${ESC}0m` };
/** An agent's value shown on one line of the view (a name, an id), escaped. */
const shown = (value: string): string => oneLine(escapeUnsafe(value));
const textOf = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : p.kind === 'data' ? JSON.stringify(p.data) : `[file ${p.filename ?? p.uri ?? ''}]`)).join('');

/**
 * The live view of one task on a terminal: the agent's text as it streams, and under it a status block
 * redrawn in place — the state, the connection (live, reconnecting n, polling, waiting), each artifact's
 * chunks and bytes. At `input-required` / `auth-required` it asks for the answer inline and sends it
 * (`handle.reply`); the same task goes on. Only for a TTY: elsewhere the CLI prints plain lines.
 *
 * The view writes its own control sequences (dim, cursor up, clear) and nothing else raw: what the
 * agent sent is escaped as it comes in (so the width arithmetic counts what is shown), and every write
 * of content escapes again (G12).
 */
export class LiveView {
  private state: TaskState = 'unknown';
  private connection = 'connecting';
  private readonly artifacts = new Map<string, Progress>();
  /** Lines of the status block now on screen (erased before the next draw). */
  private drawn = 0;
  /** The artifact whose text was printed last. */
  private printing: string | undefined;
  /**
   * The text's last line, not ended yet: drawn as the first line of the status block, so the block can be
   * erased and drawn again without breaking the text into a line per chunk. Longer than the terminal is
   * wide, it is written out in lines of that width.
   */
  private pending = '';

  constructor(
    private readonly terminal: LiveTerminal,
    private readonly handle: TaskHandle,
  ) {}

  /**
   * Follows the task to its end (or to the end of its follow), answering pauses from the keyboard.
   * Resolves `paused` when the keyboard closed at a pause (Ctrl+D: nothing was answered), else `ended`;
   * `signal` stops watching (the task runs on).
   */
  async run(signal?: AbortSignal): Promise<'ended' | 'paused'> {
    this.absorbView();
    this.draw();
    try {
      for await (const event of this.handle.events({ signal })) {
        if ((await this.apply(event)) === 'unanswered') return 'paused';
        if (event.type === 'status' && isTerminalState(event.state)) break;
      }
      return 'ended';
    } finally {
      this.erase();
      this.endText();
      this.write(`${this.statusLines().join('\n')}\n`);
    }
  }

  private absorbView(): void {
    const view = this.handle.view;
    this.state = view.state;
    this.connection = view.connection;
    for (const artifact of view.artifacts) {
      this.artifacts.set(artifact.artifactId, { name: shown(artifact.name ?? artifact.artifactId), chunks: artifact.parts.length, bytes: bytes(artifact.parts), done: false });
    }
  }

  private async apply(event: TaskEvent): Promise<'unanswered' | undefined> {
    switch (event.type) {
      case 'status':
        this.state = event.state;
        if (isInterruptedState(event.state)) {
          const answered = await this.ask(event.message ? textOf(event.message.parts) : `the agent is waiting (${event.state})`);
          if (!answered) return 'unanswered';
          this.redraw();
          return undefined;
        }
        break;
      case 'connection':
        this.connection = event.state === 'reconnecting' ? `reconnecting ${event.attempt ?? 1}` : event.state;
        break;
      case 'artifact':
        this.artifact(event.artifactId, event.name, event.parts, event.append, event.lastChunk);
        break;
      case 'message':
        this.erase();
        this.endText();
        this.write(`${textOf(event.message.parts)}\n`);
        break;
      case 'store-error':
        this.erase();
        this.endText();
        this.write(`warning: not saved for a resume: ${shown(event.error.message)}\n`);
        break;
    }
    this.redraw();
    return undefined;
  }

  private artifact(id: string, name: string | undefined, parts: Part[], append: boolean, last: boolean): void {
    const known = this.artifacts.get(id);
    const progress = known ?? { name: shown(name ?? id), chunks: 0, bytes: 0, done: false };
    if (append) {
      progress.chunks += parts.length;
      progress.bytes += bytes(parts);
    } else {
      progress.chunks = parts.length;
      progress.bytes = bytes(parts);
    }
    progress.done = last;
    this.artifacts.set(id, progress);
    // The text itself scrolls above the status block; a replaced artifact starts a new paragraph.
    this.erase();
    if (this.printing !== id || !append) {
      this.endText();
      this.write(`── ${progress.name} ──\n`);
      this.printing = id;
    }
    this.text(textOf(parts));
  }

  /** Writes out the complete lines of `text` (after what is pending); keeps the last, unended one pending. */
  private text(text: string): void {
    const lines = (this.pending + escapeUnsafe(text)).split('\n');
    this.pending = lines.pop() ?? '';
    const width = this.width();
    while (this.pending.length > width) {
      lines.push(this.pending.slice(0, width));
      this.pending = this.pending.slice(width);
    }
    if (lines.length > 0) this.write(`${lines.join('\n')}\n`);
  }

  /**
   * Asks the pause's question on the terminal and sends the answer; the view goes on with the task.
   * `false` when the keyboard closed first (Ctrl+D): nothing was sent.
   */
  private async ask(question: string): Promise<boolean> {
    this.erase();
    this.endText();
    const rl = createInterface({ input: this.terminal.input, output: this.terminal.output, terminal: true });
    try {
      const answer = await new Promise<string | undefined>((resolve) => {
        rl.once('close', () => resolve(undefined));
        rl.question(`? ${escapeUnsafe(question)}\n> `, resolve);
      });
      if (answer === undefined) return false;
      this.write('sending your answer…\n');
      await this.handle.reply(answer);
      return true;
    } finally {
      rl.close();
    }
  }

  private statusLines(): string[] {
    const lines = [`Task ${shown(this.handle.taskId ?? '')} · ${this.state}${isTerminalState(this.state) ? '' : ` · ${this.connection}`}`];
    for (const a of this.artifacts.values()) lines.push(`  ${a.name}: ${a.chunks} chunk${a.chunks === 1 ? '' : 's'}, ${a.bytes} bytes${a.done ? ' (complete)' : ''}`);
    return lines;
  }

  private redraw(): void {
    this.erase();
    this.draw();
  }

  private width(): number {
    return Math.max(20, (this.terminal.output.columns ?? 80) - 1);
  }

  /** Draws the status block under the text: the pending line of text first, then the status lines (dim). */
  private draw(): void {
    const width = this.width();
    const lines = this.statusLines().map((l) => (l.length > width ? `${l.slice(0, width - 1)}…` : l));
    this.write(this.pending === '' ? '' : `${this.pending}\n`, DIM, lines.join('\n'), NORMAL, '\n');
    this.drawn = (this.pending === '' ? 0 : 1) + lines.length;
  }

  /** Removes the status block and the pending line (cursor up, clear to the end of the screen). */
  private erase(): void {
    if (this.drawn === 0) return;
    this.write({ control: `${ESC}${this.drawn}F${ESC}0J` });
    this.drawn = 0;
  }

  /** Ends the pending line of text (written out for good). */
  private endText(): void {
    if (this.pending !== '') this.write(`${this.pending}\n`);
    this.pending = '';
  }

  /** Writes content, every unsafe code point escaped, and the view's own control sequences raw (the only raw bytes it writes), in one write. */
  private write(...pieces: (string | Control)[]): void {
    this.terminal.output.write(pieces.map((p) => (typeof p === 'string' ? escapeUnsafe(p) : p.control)).join(''));
  }
}

function bytes(parts: readonly Part[]): number {
  let n = 0;
  for (const p of parts) n += p.kind === 'text' ? encoder.encode(p.text).length : p.kind === 'data' ? encoder.encode(JSON.stringify(p.data)).length : 0;
  return n;
}
