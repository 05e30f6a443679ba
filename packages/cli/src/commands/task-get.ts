import { isInterruptedState, isTerminalState, type A2AClient, type Task } from '@a2a-tether/node';
import { openClient } from '../agent/open-client.js';
import { CliError } from '../errors/cli-error.js';
import { field, taskText } from '../output/text.js';
import { wireTask } from '../output/wire.js';
import { shellWord } from '../output/shell-word.js';
import { line } from '../output/terminal-safe.js';
import { resumeCommand } from '../render/renderer.js';
import { parseCount, waitOptions, type RunContext } from './context.js';

/** The flags of `task get`. */
export interface TaskGetFlags {
  wait?: boolean | undefined;
  history?: string | undefined;
  pollInterval?: string | undefined;
  timeout?: string | undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Longest wait between two polls, as a multiple of `--poll-interval`. */
const MAX_BACKOFF = 4;

/**
 * Polls GetTask until the task is terminal or paused: first every `pollMs`, then 1.5 times longer after
 * each poll that shows the same state, up to 4 × `pollMs`; a change of state starts over. `unknown`
 * (TASK_STATE_UNSPECIFIED) keeps it polling. Past `timeoutMs`: `A2ACLI_ERR_TIMEOUT`.
 */
async function pollTask(client: A2AClient, taskId: string, historyLength: number | undefined, pollMs: number, timeoutMs: number | undefined): Promise<Task> {
  const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
  let wait = pollMs;
  let last: string | undefined;
  for (;;) {
    const left = deadline - Date.now();
    const task = await client.getTask(taskId, { ...(historyLength === undefined ? {} : { historyLength }), ...(Number.isFinite(left) ? { timeoutMs: Math.max(1, left) } : {}) });
    if (isTerminalState(task.status.state) || isInterruptedState(task.status.state)) return task;
    wait = task.status.state === last ? Math.min(wait * 1.5, pollMs * MAX_BACKOFF) : pollMs;
    last = task.status.state;
    if (Date.now() + wait > deadline) {
      throw new CliError('A2ACLI_ERR_TIMEOUT', `--timeout expired before task ${taskId} reached a terminal state (last state: ${task.status.state})`, `the task keeps running: \`tether task get --wait ${shellWord(taskId)}\` again, with a longer --timeout`);
    }
    await sleep(wait);
  }
}

/** Prints a task: the bare Task in JSON, fields and artifact blocks in text (with the resume command when paused). */
export function printTask(context: RunContext, task: Task, version: '1.0' | '0.3'): void {
  const { io, globals } = context;
  if (globals.output === 'json') {
    io.out(`${JSON.stringify(wireTask(task, version), null, 2)}\n`);
    return;
  }
  const paused = isInterruptedState(task.status.state);
  io.out(taskText(task, globals.verbose, paused ? field('Resume', resumeCommand(task.id, globals.agentCard ?? '')) : ''));
}

/** `task get <taskId> [--wait] [--history n]`. */
export async function taskGet(context: RunContext, taskId: string, flags: TaskGetFlags): Promise<void> {
  const historyLength = flags.history === undefined ? undefined : parseCount('--history', flags.history);
  const { pollMs, timeoutMs } = waitOptions(context, flags);
  const wait = context.settings.boolean('WAIT', flags.wait) ?? false;
  const client = await openClient(context);
  const task = wait
    ? await pollTask(client, taskId, historyLength, pollMs, timeoutMs)
    : await client.getTask(taskId, { ...(historyLength === undefined ? {} : { historyLength }), ...(timeoutMs ? { timeoutMs } : {}) });
  printTask(context, task, client.interface.protocolVersion);
  if (isInterruptedState(task.status.state)) context.io.err(line`Warning: task ${task.id} is waiting at ${task.status.state}\n`);
}

/** `task cancel <taskId>`: asks the agent to cancel and reports the state it answered with. */
export async function taskCancel(context: RunContext, taskId: string): Promise<void> {
  const client = await openClient(context);
  const task = await client.cancelTask(taskId);
  printTask(context, task, client.interface.protocolVersion);
  if (task.status.state !== 'canceled') context.io.err(line`Warning: the agent answered the cancel with state ${task.status.state}\n`);
}
