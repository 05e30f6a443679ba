import { isTerminalState, redact, TASK_RECORD_VERSION, type A2AClient, type Metadata, type SendResult, type TaskStore } from '@a2a-tether/node';
import { localStore, openClient } from '../agent/open-client.js';
import { CliError } from '../errors/cli-error.js';
import { field, messageReport, taskFields } from '../output/text.js';
import { wireSendResult } from '../output/wire.js';
import { chooseRenderer } from '../render/choose-renderer.js';
import { shellWord } from '../output/shell-word.js';
import { line } from '../output/terminal-safe.js';
import { resumeCommand } from '../render/renderer.js';
import { waitOptions, type RunContext } from './context.js';
import { followHandle, warnOutcome } from './follow.js';
import { settleRecord } from './settle-record.js';
import { buildParts, type PartFlags } from './parts.js';

/** The flags of `send`. */
export interface SendFlags {
  stream?: boolean | undefined;
  async?: boolean | undefined;
  wait?: boolean | undefined;
  pollInterval?: string | undefined;
  timeout?: string | undefined;
  contextId?: string | undefined;
  taskId?: string | undefined;
  metadata?: string | undefined;
}

function parseMetadata(value: string | undefined): Metadata | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw CliError.usage(`--metadata: not JSON (${(error as Error).message})`, `pass an object, e.g. --metadata '{"k":"v"}'`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw CliError.usage('--metadata: expected a JSON object', `e.g. --metadata '{"k":"v"}'`);
  return parsed as Metadata;
}

/** Records a task sent with `--async` in the local store, so `tether task resume <id>` can follow it later. */
async function recordTask(client: A2AClient, store: TaskStore, result: SendResult): Promise<void> {
  if (result.kind !== 'task' || isTerminalState(result.status.state)) return;
  const now = Date.now();
  const existing = await store.get(client.taskKey(result.id));
  if (existing) return;
  await store.put({
    schemaVersion: TASK_RECORD_VERSION,
    taskId: result.id,
    contextId: result.contextId,
    // The engine keeps records per agent by the card URL with credential-like values masked.
    agentUrl: redact(client.cardUrl),
    state: result.status.state,
    createdAt: now,
    updatedAt: now,
    delivery: client.card.capabilities.streaming ? 'stream' : 'poll',
  });
}

/**
 * `send`: one message with ordered parts, to start or continue a task. Waits (Tether's engine: a stream
 * where the card offers one, polling otherwise, reconnecting through drops) until the task ends or
 * pauses; `--async` returns at once. Every task is recorded in the local store (a Tether extension).
 */
export async function send(context: RunContext, parts: PartFlags, flags: SendFlags): Promise<void> {
  const { io, globals, settings } = context;
  // --stream only from the command line (spec §11.3).
  const stream = flags.stream === true;
  const async = settings.boolean('ASYNC', flags.async) ?? false;
  const wait = settings.boolean('WAIT', flags.wait);
  if (flags.async === true && flags.wait === true) throw CliError.usage('--async and --wait contradict each other');
  const returnNow = flags.wait === true ? false : async && wait !== true;
  if (returnNow && stream) throw CliError.usage('--async and --stream contradict each other', 'use --stream to follow live, or --async to return at once');
  if (parts.flags.length === 0) throw CliError.usage('send needs a message: --text, --file or --data (repeatable, in order)', 'for example: tether send -a <agent> --text "hello"');
  const metadata = parseMetadata(flags.metadata);
  const contextId = settings.string('CONTEXT_ID', flags.contextId);
  const taskId = settings.string('TASK_ID', flags.taskId);
  const { pollMs, timeoutMs, pollGiven } = waitOptions(context, flags);
  const input = {
    parts: buildParts(parts.flags, io.cwd, context.readStdin),
    ...(contextId ? { contextId } : {}),
    ...(taskId ? { taskId } : {}),
  };
  const store = localStore(globals);
  // --poll-interval sets the engine's polling cadence (used when the agent cannot stream, or a stream keeps failing).
  const client = await openClient(context, { store, ...(pollGiven ? { resilience: { pollMinMs: pollMs, pollMaxMs: pollMs } } : {}) });
  const version = client.interface.protocolVersion;
  const agentRef = globals.agentCard ?? '';
  if (returnNow) {
    const result = await client.sendMessage(input, { returnImmediately: true, ...(metadata ? { metadata } : {}), ...(timeoutMs ? { timeoutMs } : {}) });
    await recordTask(client, store, result).catch((error: unknown) => io.err(line`Warning: the task could not be recorded in ${globals.store}: ${(error as Error).message}\n`));
    if (globals.output === 'json') io.out(`${JSON.stringify(wireSendResult(result, version), null, 2)}\n`);
    else if (result.kind === 'message') io.out(messageReport(result, globals.verbose));
    else io.out(taskFields(result) + field('Poll', `tether task get --wait ${shellWord(result.id)} -a ${shellWord(agentRef)}`));
    return;
  }
  const renderer = chooseRenderer(globals.output, io, { stream, verbose: globals.verbose, version, result: 'send', agentRef, live: globals.live });
  const handle = await client.start(input, metadata ? { metadata } : {});
  // The id is known (and stored) now: say it before waiting, so an interrupted wait does not lose it.
  if (handle.taskId !== undefined && !stream) io.err(line`Waiting for task ${handle.taskId} (interrupting stops watching, not the task: tether task resume ${shellWord(handle.taskId)})\n`);
  const end = await followHandle(handle, renderer, { timeoutMs });
  await settleRecord(store, client, end);
  warnOutcome(io, end, end.kind === 'task' ? resumeCommand(end.task.id, agentRef) : undefined);
}
