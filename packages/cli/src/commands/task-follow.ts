import { createA2AError, MemoryTaskStore } from '@a2a-tether/node';
import { localStore, openClient } from '../agent/open-client.js';
import { CliError } from '../errors/cli-error.js';
import { shellWord } from '../output/shell-word.js';
import { chooseRenderer } from '../render/choose-renderer.js';
import { resumeCommand } from '../render/renderer.js';
import { waitOptions, type RunContext } from './context.js';
import { followHandle, warnOutcome } from './follow.js';
import { settleRecord } from './settle-record.js';

/** The flags of `task subscribe` and `task resume`. */
export interface FollowFlags {
  stream?: boolean | undefined;
  timeout?: string | undefined;
}

/**
 * `task subscribe <taskId>`: follows a running task's events (SubscribeToTask) to its end. Tether's
 * engine resubscribes after a drop and polls when the agent refuses; nothing is stored (the
 * command stays stateless).
 */
export async function taskSubscribe(context: RunContext, taskId: string, flags: FollowFlags): Promise<void> {
  const { io, globals } = context;
  const { timeoutMs } = waitOptions(context, flags);
  const client = await openClient(context, { store: new MemoryTaskStore() });
  if (!client.card.capabilities.streaming) {
    // Checked on the card first (spec §13.3); the protocol's own name for the condition.
    throw createA2AError(-32004, `agent "${client.card.name}" does not stream (capabilities.streaming is false); poll with \`tether task get --wait ${shellWord(taskId)}\``);
  }
  const agentRef = globals.agentCard ?? '';
  const renderer = chooseRenderer(globals.output, io, { stream: flags.stream === true, verbose: globals.verbose, version: client.interface.protocolVersion, result: 'task', agentRef, live: globals.live });
  const handle = await client.resume(taskId, { delivery: 'stream' });
  const end = await followHandle(handle, renderer, { timeoutMs });
  warnOutcome(io, end, end.kind === 'task' ? resumeCommand(end.task.id, agentRef) : undefined);
}

/**
 * `task resume <taskId>` (a Tether extension): follows a task of the local store again — after
 * `send --async`, a timeout, a cut or a crash — through drops, to its end. Without `-a`, the agent is
 * the one the record names.
 */
export async function taskResume(context: RunContext, taskId: string, flags: FollowFlags): Promise<void> {
  const { io, globals } = context;
  const { timeoutMs } = waitOptions(context, flags);
  const store = localStore(globals);
  let agentRef = globals.agentCard;
  if (agentRef === undefined || agentRef === '') {
    // Task ids belong to their agent: the store may hold a task of this id for several agents (G11).
    const agentsOf = [...new Set((await store.list()).filter((r) => r.taskId === taskId).map((r) => r.agentUrl))];
    if (agentsOf.length === 0) throw CliError.usage(`task ${taskId} is not in the local store (${globals.store}) and no agent was given`, 'pass -a <agent> to follow a task the store does not know');
    if (agentsOf.length > 1) throw CliError.usage(`task ${taskId} is in the local store for ${agentsOf.length} agents (${agentsOf.join(', ')})`, 'pass -a <agent> to say whose task to follow');
    agentRef = agentsOf[0] as string;
  }
  const client = await openClient(context, { store, ref: agentRef });
  const renderer = chooseRenderer(globals.output, io, { stream: flags.stream === true, verbose: globals.verbose, version: client.interface.protocolVersion, result: 'send', agentRef, live: globals.live });
  const handle = await client.resume(taskId);
  const end = await followHandle(handle, renderer, { timeoutMs });
  await settleRecord(store, client, end);
  warnOutcome(io, end, end.kind === 'task' ? resumeCommand(end.task.id, agentRef) : undefined);
}
