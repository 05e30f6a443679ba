import type { TaskEvent, TaskHandle, TaskView } from '@a2a-tether/node';
import { CliError } from '../errors/cli-error.js';
import { shellWord } from '../output/shell-word.js';
import { escapeUnsafe } from '../output/terminal-safe.js';
import { field } from '../output/text.js';
import { taskFromView, type FollowEnd, type Renderer } from '../render/renderer.js';
import { LiveView, type LiveTerminal } from './live-view.js';

/**
 * `--live` on a terminal: the follow is the {@link LiveView}'s (it answers pauses inline), not a loop
 * over events. The view has shown the answer as it came; the end adds the identifiers a later command
 * needs (`Task ID`, `Context ID`, `State`, as the text output labels them). A direct message answer,
 * which the view never sees, is rendered by the text renderer it wraps.
 */
export class LiveRenderer implements Renderer {
  constructor(
    private readonly terminal: LiveTerminal,
    private readonly text: Renderer,
  ) {}

  onEvent(event: TaskEvent, view: TaskView): void {
    this.text.onEvent(event, view);
  }

  onEnd(end: FollowEnd): void {
    if (end.kind !== 'task') return this.text.onEnd(end);
    const { task } = end;
    this.terminal.output.write(escapeUnsafe(field('Task ID', task.id) + field('Context ID', task.contextId) + field('State', task.status.state)));
  }

  /** Follows `handle` with the live view to its end, a timeout, or a pause left unanswered (Ctrl+D). */
  async follow(handle: TaskHandle, options: { timeoutMs?: number | undefined }): Promise<FollowEnd> {
    const abort = new AbortController();
    let timedOut = false;
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), abort.abort()), options.timeoutMs);
    let how: 'ended' | 'paused';
    try {
      how = await new LiveView(this.terminal, handle).run(abort.signal);
    } catch (error) {
      handle.detach();
      throw error;
    } finally {
      if (timer) clearTimeout(timer);
    }
    if (timedOut) {
      handle.detach();
      throw new CliError('A2ACLI_ERR_TIMEOUT', `--timeout expired before task ${handle.taskId ?? ''} reached a terminal state (last state: ${handle.view.state})`, `the task keeps running: \`tether task resume ${shellWord(handle.taskId ?? '<taskId>')} --live\` follows it`);
    }
    if (how === 'paused') {
      const end: FollowEnd = { kind: 'task', task: taskFromView(handle.view), interrupted: true };
      handle.detach();
      this.onEnd(end);
      return end;
    }
    const end: FollowEnd = { kind: 'task', task: await handle.done(), interrupted: false };
    this.onEnd(end);
    return end;
  }
}

/** Whether a renderer follows the task itself (`--live` on a terminal). */
export function isLiveRenderer(renderer: Renderer): renderer is LiveRenderer {
  return renderer instanceof LiveRenderer;
}
