import { isInterruptedState, isTerminalState, type TaskHandle } from '@a2a-tether/node';
import { CliError } from '../errors/cli-error.js';
import type { CliIO } from '../io.js';
import { shellWord } from '../output/shell-word.js';
import { line } from '../output/terminal-safe.js';
import { taskFromView, type FollowEnd, type Renderer } from '../render/renderer.js';
import { isLiveRenderer } from '../live/live-renderer.js';

/**
 * Follows a task handle to its end with Tether's engine (through drops: resubscribes, polls), giving
 * every event to the renderer. Stops at a pause (`input-required`, `auth-required`) and leaves the task
 * there for the caller; `timeoutMs` stops waiting with `A2ACLI_ERR_TIMEOUT`. The task keeps running at
 * the agent in both cases: stopping to watch is never a cancel.
 */
export async function followHandle(handle: TaskHandle, renderer: Renderer, options: { timeoutMs?: number | undefined }): Promise<FollowEnd> {
  if (handle.kind === 'message' && handle.message) {
    const end: FollowEnd = { kind: 'message', message: handle.message };
    renderer.onEnd(end);
    return end;
  }
  // --live on a terminal: the live view follows the task itself (and answers pauses inline).
  if (isLiveRenderer(renderer)) return renderer.follow(handle, options);
  const abort = new AbortController();
  let timedOut = false;
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), abort.abort()), options.timeoutMs);
  let interrupted = false;
  try {
    for await (const event of handle.events({ signal: abort.signal })) {
      renderer.onEvent(event, handle.view);
      if (event.type === 'status' && isInterruptedState(event.state)) {
        interrupted = true;
        break;
      }
      if (event.type === 'status' && isTerminalState(event.state)) break;
    }
  } catch (error) {
    if (!timedOut) {
      handle.detach();
      throw error;
    }
  } finally {
    if (timer) clearTimeout(timer);
  }
  if (timedOut) {
    handle.detach();
    throw new CliError('A2ACLI_ERR_TIMEOUT', `--timeout expired before task ${handle.taskId ?? ''} reached a terminal state (last state: ${handle.view.state})`, `the task keeps running: \`tether task get --wait ${shellWord(handle.taskId ?? '<taskId>')}\` or \`tether task resume ${shellWord(handle.taskId ?? '<taskId>')}\` follows it`);
  }
  if (interrupted) {
    const end: FollowEnd = { kind: 'task', task: taskFromView(handle.view), interrupted: true };
    handle.detach();
    renderer.onEnd(end);
    return end;
  }
  const end: FollowEnd = { kind: 'task', task: await handle.done(), interrupted: false };
  renderer.onEnd(end);
  return end;
}

/** Names a non-success or paused outcome on stderr (the exit status stays 0: spec §6.6). */
export function warnOutcome(io: CliIO, end: FollowEnd, resume: string | undefined): void {
  if (end.kind !== 'task') return;
  const { state } = end.task.status;
  if (end.interrupted) {
    io.err(line`Warning: task ${end.task.id} is waiting at ${state}; answer it with: ${resume ?? ''}\n`);
  } else if (state !== 'completed') {
    io.err(line`Warning: task ${end.task.id} ended ${state}\n`);
  }
}
