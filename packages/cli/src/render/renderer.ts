import type { Message, Task, TaskEvent, TaskView } from '@a2a-tether/node';
import { shellWord } from '../output/shell-word.js';

/** How a follow ended: the agent's direct message, or the task (terminal, or paused for the caller). */
export type FollowEnd = { kind: 'message'; message: Message } | { kind: 'task'; task: Task; interrupted: boolean };

/**
 * What `send`, `task subscribe` and `task resume` print while they follow a task. One is chosen per
 * run by {@link chooseRenderer} (render/choose-renderer.ts): text or JSON today; a live terminal
 * view can be plugged in there without touching the commands.
 */
export interface Renderer {
  /** One event of the task, as Tether's engine delivers it (deduplicated, in order), and the view after it. */
  onEvent(event: TaskEvent, view: TaskView): void;
  /** The follow ended; the last thing rendered. */
  onEnd(end: FollowEnd): void;
}

/** What a renderer is told when it is made. */
export interface RendererOptions {
  /** Follow live (`--stream`): render each event; else only the end. */
  stream: boolean;
  /** `--verbose`: every part on its own, history too. */
  verbose: boolean;
  /** The agent's protocol version: JSON output is written in its shapes. */
  version: '1.0' | '0.3';
  /** The command's JSON result: SendMessageResponse (`send`, `task resume`) or the bare Task (`task subscribe`). */
  result: 'send' | 'task';
  /** The agent reference for the resume hint. */
  agentRef: string;
  /** `--live`: the live terminal view, when stdout is a terminal and the output text. */
  live?: boolean | undefined;
}

/** The exact command that answers a paused task. */
export function resumeCommand(taskId: string, agentRef: string): string {
  return `tether send --task-id ${shellWord(taskId)} --text "<reply>" -a ${shellWord(agentRef)}`;
}

/** The task as the view shows it, for a follow that stops at a pause. */
export function taskFromView(view: TaskView): Task {
  const task: Task = {
    kind: 'task',
    id: view.taskId,
    contextId: view.contextId,
    status: { state: view.state },
    artifacts: view.artifacts,
    history: view.history,
  };
  if (view.statusMessage) task.status.message = view.statusMessage;
  if (view.timestamp) task.status.timestamp = view.timestamp;
  return task;
}
