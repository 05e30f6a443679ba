import { PassThrough, Writable } from 'node:stream';
import { TetherError, type Task, type TaskEvent, type TaskHandle, type TaskView } from '@a2a-tether/node';
import { describe, expect, it } from 'vitest';
import { LiveRenderer } from '../src/live/live-renderer.js';
import type { LiveTerminal } from '../src/live/live-view.js';
import type { Renderer } from '../src/render/renderer.js';
import { forbiddenIn, LINE, PART } from './hostile.js';

// Issue 33, point 9 (G12), the live view: it draws on the terminal itself (its own dim, cursor-up and
// clear sequences), so it escapes what the agent sent on its own. Driven here with a handle that yields
// a hostile agent's events, on a terminal that records every byte.

/** A terminal that keeps every byte written to it. */
function terminal(input: PassThrough): LiveTerminal & { written: () => string } {
  let written = '';
  const output = Object.assign(
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        written += chunk.toString();
        done();
      },
    }),
    { isTTY: true, columns: 80 },
  );
  return { output, input, written: () => written };
}

const ID = `t-1${LINE}`;
const CONTEXT = `c-1${LINE}`;

/** A handle (the parts of one the live view uses) whose task yields `events`, then ends as `final`. */
function handle(events: TaskEvent[], final: Task): TaskHandle & { replies: string[] } {
  const view: TaskView = { taskId: ID, contextId: CONTEXT, state: 'working', artifacts: [{ artifactId: `old${LINE}`, name: LINE, parts: [{ kind: 'text', text: PART }] }], history: [], connection: 'live' } as unknown as TaskView;
  const replies: string[] = [];
  const fake = {
    kind: 'task',
    message: undefined,
    taskId: ID,
    view,
    replies,
    events: () => ({
      async *[Symbol.asyncIterator]() {
        for (const event of events) yield event;
      },
    }),
    reply: async (text: string) => {
      replies.push(text);
      return fake;
    },
    done: async () => final,
    detach: () => undefined,
  };
  return fake as unknown as TaskHandle & { replies: string[] };
}

const message = (text: string) => ({ kind: 'message' as const, messageId: `m${LINE}`, role: 'agent' as const, parts: [{ kind: 'text' as const, text }] });
const agentError = new TetherError('NETWORK', LINE);

const EVENTS: TaskEvent[] = [
  { type: 'connection', state: 'reconnecting', attempt: 1, error: agentError },
  { type: 'status', state: 'working', message: message(LINE) },
  { type: 'artifact', artifactId: `a1${LINE}`, name: LINE, parts: [{ kind: 'text', text: PART }], append: false, lastChunk: false },
  { type: 'artifact', artifactId: `a1${LINE}`, name: LINE, parts: [{ kind: 'text', text: PART }, { kind: 'file', bytes: 'Ynl0ZXM=', filename: LINE }, { kind: 'data', data: { [LINE]: PART } }], append: true, lastChunk: true },
  { type: 'message', message: message(PART) },
  { type: 'store-error', error: agentError },
];

const FINAL: Task = { kind: 'task', id: ID, contextId: CONTEXT, status: { state: 'completed', message: message(LINE) }, artifacts: [], history: [] };

/** What is left once the view's own sequences (and readline's cursor moves) are taken out. */
// eslint-disable-next-line no-control-regex
const withoutOwnSequences = (text: string): string => text.replace(/\u001b\[(?:2m|0m|\d+F|0J|\d*G|\d*K|\d+[AB])/g, '');

const notUsed: Renderer = { onEvent: () => undefined, onEnd: () => undefined };

describe('the live view and a hostile agent', () => {
  it('a task to its end: every byte but the view\'s own sequences is free of the agent\'s controls', async () => {
    const term = terminal(new PassThrough());
    const end = await new LiveRenderer(term, notUsed).follow(handle([...EVENTS, { type: 'status', state: 'completed', message: message(LINE) }], FINAL), {});
    expect(end.kind).toBe('task');
    const written = term.written();
    expect(forbiddenIn(withoutOwnSequences(written))).toEqual([]);
    // The agent's text and names were shown, escaped.
    expect(written).toContain('\\u202e');
    expect(written).toContain('Task ID: t-1x\\u001b[2J');
  });

  it('a pause: the question is the agent\'s status message, escaped; unanswered, the view ends', async () => {
    const input = new PassThrough();
    const term = terminal(input);
    const paused = handle([EVENTS[2] as TaskEvent, { type: 'status', state: 'input-required', message: message(`${PART}\n${LINE}`) }], FINAL);
    const following = new LiveRenderer(term, notUsed).follow(paused, {});
    setTimeout(() => input.end(), 50);
    const end = await following;
    expect(end).toMatchObject({ kind: 'task', interrupted: true });
    const written = term.written();
    expect(forbiddenIn(withoutOwnSequences(written))).toEqual([]);
    expect(written).toContain('? text\\u001b]52');
  });
});
