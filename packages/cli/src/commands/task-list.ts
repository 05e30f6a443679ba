import { type TaskRecord, type TaskState } from '@a2a-tether/node';
import { localStore, openClient } from '../agent/open-client.js';
import { CliError } from '../errors/cli-error.js';
import { field, recordText, taskFields } from '../output/text.js';
import { line } from '../output/terminal-safe.js';
import { wireTaskPage } from '../output/wire.js';
import { parseCount, type RunContext } from './context.js';

/** The flags of `task list`. */
export interface TaskListFlags {
  contextId?: string | undefined;
  status?: string | undefined;
  pageSize?: string | undefined;
  pageToken?: string | undefined;
  history?: string | undefined;
  local?: boolean | undefined;
}

const STATES: readonly TaskState[] = ['submitted', 'working', 'input-required', 'auth-required', 'completed', 'failed', 'canceled', 'rejected'];

function parseState(value: string): TaskState {
  const state = value.trim().toLowerCase().replace(/^task_state_/, '').replace(/_/g, '-').replace('cancelled', 'canceled') as TaskState;
  if (!STATES.includes(state)) throw CliError.usage(`--status ${value}: not a task state`, `use one of ${STATES.join(', ')}`);
  return state;
}

/** `task list --local` (a Tether extension): the local store's records, oldest first. */
async function listLocal(context: RunContext): Promise<void> {
  const { io, globals } = context;
  const records: TaskRecord[] = (await localStore(globals).list()).sort((a, b) => a.createdAt - b.createdAt);
  if (globals.output === 'json') {
    io.out(`${JSON.stringify(records, null, 2)}\n`);
    return;
  }
  if (records.length === 0) io.err(line`No tasks in the local store (${globals.store})\n`);
  io.out(records.map(recordText).join('\n'));
}

/** `task list`: ListTasks, filtered by context and status, one page (`--page-token` for the next). */
export async function taskList(context: RunContext, flags: TaskListFlags): Promise<void> {
  if (flags.local) return listLocal(context);
  const { io, globals } = context;
  const client = await openClient(context);
  const page = await client.listTasks({
    ...(flags.contextId ? { contextId: flags.contextId } : {}),
    ...(flags.status ? { status: parseState(flags.status) } : {}),
    ...(flags.pageSize ? { pageSize: parseCount('--page-size', flags.pageSize) } : {}),
    ...(flags.pageToken ? { pageToken: flags.pageToken } : {}),
    ...(flags.history ? { historyLength: parseCount('--history', flags.history) } : {}),
  });
  if (globals.output === 'json') {
    io.out(`${JSON.stringify(wireTaskPage(page), null, 2)}\n`);
    return;
  }
  let out = field('Total', page.totalSize) + field('Next Page Token', page.nextPageToken || '(none)') + '\n';
  out += page.tasks.map((task) => taskFields(task)).join('\n');
  io.out(out);
}
