import { describe, expect, it } from 'vitest';
import { textOf } from './text-of.js';
import type { Artifact, Message, Part, Task } from './types.js';
import type { ArtifactEvent } from '../task/task-event.js';

const t = (text: string): Part => ({ kind: 'text', text });
const file: Part = { kind: 'file', uri: 'https://agent.example/a.pdf', mediaType: 'application/pdf' };
const data: Part = { kind: 'data', data: { n: 1 } };
const message = (...parts: Part[]): Message => ({ kind: 'message', messageId: 'm1', role: 'agent', parts });
const artifact = (artifactId: string, ...parts: Part[]): Artifact => ({ artifactId, parts });
const task = (artifacts: Artifact[], status?: Message): Task => ({
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: { state: status ? 'input-required' : 'completed', ...(status ? { message: status } : {}) },
  artifacts,
  history: [],
});

describe('textOf', () => {
  it('a message or an artifact: its text parts joined as they are (chunks come back whole), other parts left out', () => {
    expect(textOf(message(t('Hello, '), file, t('world'), data))).toBe('Hello, world');
    expect(textOf(artifact('report', t('chunk-1;'), t('chunk-2;')))).toBe('chunk-1;chunk-2;');
    expect(textOf(artifact('pdf', file))).toBe('');
    expect(textOf(undefined)).toBe('');
  });

  it("a task: its artifacts' text, one per line (those without text skipped); else its status message", () => {
    expect(textOf(task([artifact('a', t('first')), artifact('pdf', file), artifact('b', t('sec'), t('ond'))]))).toBe('first\nsecond');
    expect(textOf(task([], message(t('Which city?'))))).toBe('Which city?');
    expect(textOf(task([artifact('pdf', file)], message(t('Here is the file'))))).toBe('Here is the file');
    expect(textOf(task([]))).toBe('');
  });

  it("a handle's view (its status message as statusMessage) and the app's events", () => {
    const view = { artifacts: [] as Artifact[], statusMessage: message(t('need input')) };
    expect(textOf(view)).toBe('need input');
    expect(textOf({ ...view, artifacts: [artifact('a', t('answer'))] })).toBe('answer');
    const event: ArtifactEvent = { type: 'artifact', artifactId: 'a', parts: [t('delta')], append: true, lastChunk: false };
    expect(textOf(event)).toBe('delta');
  });
});
