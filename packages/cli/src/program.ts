import { Command, Option } from 'commander';
import { resolveGlobals, type GlobalFlags } from './agent/global-options.js';
import { debugLine } from './agent/open-client.js';
import { Settings, type SettingsInput } from './config/settings.js';
import { line } from './output/terminal-safe.js';
import type { CliIO } from './io.js';
import { cardGet } from './commands/card-get.js';
import { completion } from './commands/completion.js';
import { configShow } from './commands/config-show.js';
import { conformance } from './commands/conformance.js';
import type { RunContext } from './commands/context.js';
import { taskDownload } from './commands/download.js';
import { PartFlags } from './commands/parts.js';
import { pushCreate, pushDelete, pushGet, pushList } from './commands/push-config.js';
import { send } from './commands/send.js';
import { taskFollowHelp } from './help-text.js';
import { taskCancel, taskGet } from './commands/task-get.js';
import { taskResume, taskSubscribe } from './commands/task-follow.js';
import { taskList } from './commands/task-list.js';
import { DEFAULTS_HELP } from './help-text.js';
import { VERSION } from './version.js';

/** What a run needs from outside: the streams, the environment and files, stdin. */
export interface ProgramEnv {
  io: CliIO;
  settingsInput: (configPath: string | undefined) => SettingsInput;
  readStdin: () => string;
  /** Set by the command that ran: its exit status when it is not 0 (conformance). */
  exitCode: number;
  /** The context of the command that ran (for the error's hint), once it was made. */
  context: RunContext | undefined;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** The run context of a command: global flags through the configuration layers. */
function contextOf(env: ProgramEnv, command: Command): RunContext {
  const flags = command.optsWithGlobals<GlobalFlags>();
  const settings = Settings.load(env.settingsInput(flags.config));
  const context: RunContext = { io: env.io, settings, globals: resolveGlobals(flags, settings), readStdin: env.readStdin };
  env.context = context;
  for (const warning of [...settings.warnings, ...context.globals.warnings]) env.io.err(line`Warning: ${warning}\n`);
  if (settings.files.length > 0) debugLine(context, `configuration files: ${settings.files.join(', ')}`);
  return context;
}

/** Options shared by the commands that wait. */
function waitFlags(command: Command): Command {
  return command
    .option('--poll-interval <duration>', 'how often to check the task while waiting (default: 2s; env A2ACLI_POLL_INTERVAL)')
    .option('--timeout <duration>', 'stop waiting after this long, exit 5 (default: none; env A2ACLI_TIMEOUT)');
}

/** Builds the `tether` program; each command's action runs with a context made from its flags. */
export function buildProgram(env: ProgramEnv): Command {
  const program = new Command('tether');
  program
    .description('A2A command-line client (a2a-cli specification v0.2, tiers 1–2) on Tether\'s resilient engine')
    .version(VERSION, '-v, --version', 'print the version and exit')
    .helpOption('-h, --help', 'show usage and exit')
    .exitOverride()
    .configureOutput({ writeOut: (s) => env.io.out(s), writeErr: (s) => env.io.err(s), outputError: () => undefined })
    .configureHelp({ showGlobalOptions: true })
    .option('-a, --agent-card <ref>', 'the agent: a host or origin (well-known path appended), a card URL, or a card file (env A2ACLI_AGENT_CARD)')
    .option('-o, --output <format>', 'text or json; json with --stream is JSON Lines (default: text; env A2ACLI_OUTPUT)')
    .option('--transport <binding>', 'preferred binding, repeatable, highest first: JSONRPC, HTTP+JSON (GRPC is skipped) (default: the card\'s order)', collect)
    .option('--a2a-version <version>', 'protocol version: 1.0, or 0.3 for legacy agents (explicit opt-in) (default: 1.0)')
    .option('--svc-param <key:value>', 'a service parameter, sent as an HTTP header; repeatable', collect)
    .option('--bearer <token>', 'bearer token (visible in the process list and shell history: prefer A2ACLI_BEARER)')
    .option('--api-key <key>', 'API key, placed as the card\'s scheme says (prefer A2ACLI_API_KEY)')
    .option('--config <path>', 'read this .env file instead of the local .env')
    .option('--store <dir>', '[Tether extension] the local task store (default: $XDG_STATE_HOME/tether/tasks or ~/.local/state/tether/tasks)')
    .option('--debug', 'diagnostics on stderr: Tether\'s debug log (negotiation, requests, events, reconnects), credentials redacted')
    .option('--verbose', 'show every part and the history, not one text per artifact')
    .option('--live', '[Tether extension] on a terminal, send / task subscribe / task resume show a live view (state, connection, progress) and ask a pause\'s question inline; plain text elsewhere')
    .addHelpText('after', DEFAULTS_HELP);

  const card = program.command('card').description('agent cards');
  card
    .command('get')
    .description('fetch the agent card and show its identity, capabilities, interfaces, security schemes and skills')
    .option('--validate', 'check the card\'s required fields (exit 1, A2ACLI_ERR_CARD_INVALID, when one is missing)')
    .option('--extended', 'fetch the authenticated extended card (when the card offers one)')
    .action(async (flags: { validate?: boolean; extended?: boolean }, command: Command) => cardGet(contextOf(env, command), flags));

  const parts = new PartFlags();
  waitFlags(
    program
      .command('send')
      .description('send a message (ordered parts) to start or continue a task; waits for its end or pause (Tether extension: through dropped connections; the task is recorded in --store)')
      .option('--text <text>', 'a text part (repeatable, order kept)', (v: string) => parts.add('text', v))
      .option('--file <path|url>', 'a file part: a path is sent inline, a URL by reference (repeatable)', (v: string) => parts.add('file', v))
      .option('--data <path|->', 'a data part: JSON from a file, or - for stdin (repeatable)', (v: string) => parts.add('data', v))
      .option('--media-type <type>', 'media type of the part flag just before it', (v: string) => parts.mediaType(v))
      .option('--stream', 'follow live: each event as it arrives (JSON Lines with -o json); never from env or files')
      .option('--async', 'return the task ids at once instead of waiting (env A2ACLI_ASYNC)')
      .addOption(new Option('--return-immediately', 'alias of --async').hideHelp())
      .option('--wait', 'wait for the end or a pause (the default; overrides A2ACLI_ASYNC)')
      .option('--context-id <id>', 'start a new task in this context')
      .option('--task-id <id>', 'continue this task (e.g. answer input-required)')
      .option('--metadata <json>', 'request metadata, a JSON object'),
  ).action(async (flags: Record<string, unknown>, command: Command) => {
    const merged = { ...flags, async: flags['async'] === true || flags['returnImmediately'] === true ? true : undefined };
    return send(contextOf(env, command), parts, merged);
  });

  const task = program.command('task').description('tasks: get, cancel, list, subscribe, push-config, download; resume (Tether extension)');
  waitFlags(
    task
      .command('get')
      .description('show a task; --wait polls until it ends or pauses')
      .argument('<taskId>')
      .option('--wait', 'poll until a terminal or interrupted state')
      .option('--history <n>', 'how many history messages to include'),
  ).action(async (taskId: string, flags: Record<string, string | boolean | undefined>, command: Command) => taskGet(contextOf(env, command), taskId, flags));
  task
    .command('cancel')
    .description('ask the agent to cancel a task; reports the state it answered with')
    .argument('<taskId>')
    .action(async (taskId: string, _flags: unknown, command: Command) => taskCancel(contextOf(env, command), taskId));
  task
    .command('list')
    .description('list the agent\'s tasks (ListTasks, v1.0); --local lists the local store instead (Tether extension)')
    .option('--context-id <id>', 'only this context\'s tasks')
    .option('--status <state>', 'only tasks in this state')
    .option('--page-size <n>', 'tasks per page (1–100)')
    .option('--page-token <token>', 'the page after this token')
    .option('--history <n>', 'history messages per task')
    .option('--local', '[Tether extension] the local store\'s records: id, state, outcome, last error')
    .action(async (flags: Record<string, string | boolean | undefined>, command: Command) => taskList(contextOf(env, command), flags));
  task
    .command('subscribe')
    .description('follow a running task\'s events to its end (Tether extension: reconnects through drops)')
    .argument('<taskId>')
    .option('--stream', 'render each event as it arrives (JSON Lines with -o json)')
    .option('--timeout <duration>', 'stop after this long, exit 5')
    .action(async (taskId: string, flags: Record<string, string | boolean | undefined>, command: Command) => taskSubscribe(contextOf(env, command), taskId, flags));
  task
    .command('resume')
    .description('[Tether extension] follow a task of the local store again, through drops, to its end')
    .argument('<taskId>')
    .option('--stream', 'render each event as it arrives (JSON Lines with -o json)')
    .option('--timeout <duration>', 'stop after this long, exit 5')
    .addHelpText('after', taskFollowHelp)
    .action(async (taskId: string, flags: Record<string, string | boolean | undefined>, command: Command) => taskResume(contextOf(env, command), taskId, flags));
  task
    .command('download')
    .description('save a task\'s artifacts as files: text as .txt, data as .json, inline files as their bytes')
    .argument('<taskId>')
    .option('--dir <dir>', 'where to write (created if needed; default: the current directory)')
    .action(async (taskId: string, flags: { dir?: string }, command: Command) => taskDownload(contextOf(env, command), taskId, flags));

  const push = task.command('push-config').description('push-notification configurations of a task');
  push
    .command('create')
    .argument('<taskId>')
    .requiredOption('--url <url>', 'the webhook URL')
    .option('--id <id>', 'the config id')
    .option('--token <token>', 'a token the agent sends back with each push')
    .option('--auth-scheme <scheme>', 'how the agent authenticates to the webhook, e.g. Bearer')
    .option('--auth-credentials <credentials>', 'the credentials for that scheme')
    .action(async (taskId: string, flags: { url: string }, command: Command) => pushCreate(contextOf(env, command), taskId, flags));
  push.command('get').argument('<taskId>').argument('<configId>').action(async (taskId: string, configId: string, _f: unknown, command: Command) => pushGet(contextOf(env, command), taskId, configId));
  push.command('list').argument('<taskId>').action(async (taskId: string, _f: unknown, command: Command) => pushList(contextOf(env, command), taskId));
  push.command('delete').argument('<taskId>').argument('<configId>').action(async (taskId: string, configId: string, _f: unknown, command: Command) => pushDelete(contextOf(env, command), taskId, configId));

  program
    .command('completion')
    .description('print a shell completion script: source <(tether completion bash)')
    .argument('<shell>', 'bash or zsh')
    .action((shell: string) => env.io.out(completion(program, shell)));

  program
    .command('config')
    .description('configuration (read-only)')
    .command('show')
    .description('each setting\'s effective value and where it came from: flag, env, local file, global file, default (secrets masked)')
    .action(async (_flags: unknown, command: Command) => configShow(contextOf(env, command), command.optsWithGlobals<GlobalFlags>()));

  program
    .command('conformance')
    .description('smoke-check a live agent: card, send, get, list, cancel, stream, subscribe, errors (exit 1 when a required check fails)')
    .option('--text <text>', 'the prompt of the quick sends (default: hello)')
    .option('--slow-text <text>', 'the prompt of a task that keeps running for a while (default: "slow steps=40 delayMs=100")')
    .action(async (flags: { text?: string; slowText?: string }, command: Command) => {
      env.exitCode = await conformance(contextOf(env, command), flags);
    });
  return program;
}
