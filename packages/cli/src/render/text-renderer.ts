import type { TaskEvent, TaskView } from '@a2a-tether/node';
import { block, field, messageReport, messageText, partContent, taskText } from '../output/text.js';
import { line } from '../output/terminal-safe.js';
import type { CliIO } from '../io.js';
import { resumeCommand, type FollowEnd, type Renderer, type RendererOptions } from './renderer.js';

/**
 * Text output (the default): the final task's fields and artifact blocks; with `--stream`, each event
 * as it arrives in the same field-and-block form, and at the end the task's ids and state again.
 * Connection changes go to stderr. A paused task ends with the command that answers it.
 */
export class TextRenderer implements Renderer {
  constructor(
    private readonly io: CliIO,
    private readonly options: RendererOptions,
  ) {}

  onEvent(event: TaskEvent, _view: TaskView): void {
    if (!this.options.stream) return;
    switch (event.type) {
      case 'status': {
        let out = field('Event', 'status') + field('State', event.state);
        const text = messageText(event.message);
        if (text !== '') out += field('Status Message', text);
        this.io.out(`${out}\n`);
        return;
      }
      case 'artifact':
        this.io.out(field('Event', 'artifact') + field('Artifact ID', event.artifactId) + field('Append', event.append) + field('Last Chunk', event.lastChunk) + block(`Artifact ${event.name ?? event.artifactId}`, event.parts.map(partContent).join('')));
        return;
      case 'message':
        this.io.out(field('Event', 'message') + messageReport(event.message, this.options.verbose));
        return;
      case 'connection':
        this.io.err(line`Connection: ${event.state}${event.attempt ? ` (attempt ${event.attempt})` : ''}${event.error ? ` — ${event.error.message}` : ''}\n`);
        return;
      case 'store-error':
        this.io.err(line`Warning: the local task store failed: ${event.error.message}\n`);
        return;
    }
  }

  onEnd(end: FollowEnd): void {
    if (end.kind === 'message') {
      this.io.out(messageReport(end.message, this.options.verbose));
      return;
    }
    const { task } = end;
    const resume = end.interrupted ? field('Resume', resumeCommand(task.id, this.options.agentRef)) : '';
    this.io.out(taskText(task, this.options.verbose, resume));
  }
}
