import type { StatusEvent, StreamEvent, TaskEvent, TaskStatus, TaskView } from '@a2a-tether/node';
import { isInterruptedState, isTerminalState } from '@a2a-tether/node';
import { wireSendResult, wireStreamEvent, wireTask } from '../output/wire.js';
import type { CliIO } from '../io.js';
import type { FollowEnd, Renderer, RendererOptions } from './renderer.js';

function statusOf(event: StatusEvent): TaskStatus {
  return { state: event.state, ...(event.message ? { message: event.message } : {}), ...(event.timestamp ? { timestamp: event.timestamp } : {}) };
}

/**
 * JSON output: one document at the end (the SendMessageResponse, or the Task for `task subscribe`), or
 * with `--stream` JSON Lines, one StreamResponse per event — the task first, then its status and
 * artifact updates; the last line carries the terminal (or paused) status.
 */
export class JsonRenderer implements Renderer {
  private opened = false;
  private lastLineTerminal = false;

  constructor(
    private readonly io: CliIO,
    private readonly options: RendererOptions,
  ) {}

  private line(event: StreamEvent): void {
    this.io.out(`${JSON.stringify(wireStreamEvent(event, this.options.version))}\n`);
  }

  onEvent(event: TaskEvent, view: TaskView): void {
    if (!this.options.stream) return;
    if (event.type === 'connection' || event.type === 'store-error') return;
    const ids = { taskId: view.taskId, contextId: view.contextId };
    if (!this.opened) {
      // The first line is the Task (as a stream's first event is): its status from this event, or the view's.
      this.opened = true;
      const status = event.type === 'status' ? statusOf(event) : { state: view.state };
      this.line({ kind: 'task', id: view.taskId, contextId: view.contextId, status, artifacts: [], history: [] });
      if (event.type === 'status') {
        this.lastLineTerminal = isTerminalState(event.state) || isInterruptedState(event.state);
        return;
      }
    }
    switch (event.type) {
      case 'status': {
        const ends = isTerminalState(event.state) || isInterruptedState(event.state);
        this.line({ kind: 'status-update', ...ids, status: statusOf(event), final: ends });
        this.lastLineTerminal = ends;
        return;
      }
      case 'artifact': {
        const artifact = { artifactId: event.artifactId, parts: event.parts, ...(event.name ? { name: event.name } : {}), ...(event.description ? { description: event.description } : {}), ...(event.metadata ? { metadata: event.metadata } : {}) };
        this.line({ kind: 'artifact-update', ...ids, artifact, append: event.append, lastChunk: event.lastChunk });
        this.lastLineTerminal = false;
        return;
      }
      case 'message':
        this.line(event.message);
        this.lastLineTerminal = false;
        return;
    }
  }

  onEnd(end: FollowEnd): void {
    const version = this.options.version;
    if (end.kind === 'message') {
      this.io.out(`${JSON.stringify(wireSendResult(end.message, version))}\n`);
      return;
    }
    if (this.options.stream) {
      // The last line must carry the terminal state: restate it when an artifact or message came after it.
      if (!this.lastLineTerminal) {
        const { task } = end;
        this.line({ kind: 'status-update', taskId: task.id, contextId: task.contextId, status: task.status, final: true });
      }
      return;
    }
    const body = this.options.result === 'send' ? wireSendResult(end.task, version) : wireTask(end.task, version);
    this.io.out(`${JSON.stringify(body, null, 2)}\n`);
  }
}
