import { CommanderError } from 'commander';
import { Settings, type SettingsInput } from './config/settings.js';
import { classify, type Failure } from './errors/envelope.js';
import { CliError } from './errors/cli-error.js';
import type { CliIO } from './io.js';
import { maskLine, secretsOf } from './agent/open-client.js';
import { field } from './output/text.js';
import { terminalSafe } from './output/terminal-safe.js';
import { buildProgram, type ProgramEnv } from './program.js';

/** What {@link runCli} is run with (the `tether` binary passes the process's own). */
export interface RunOptions {
  io: CliIO;
  /** The environment, working directory and `--config` path the settings are read from. */
  settingsInput: (configPath: string | undefined) => SettingsInput;
  /** Reads all of stdin (`--data -`). */
  readStdin: () => string;
}

/** `-o json` from the command line or the configuration, for errors raised before the options are resolved. */
function wantsJson(argv: readonly string[], options: RunOptions): boolean {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if ((arg === '-o' || arg === '--output') && argv[i + 1] !== undefined) return argv[i + 1] === 'json';
    if (arg.startsWith('--output=')) return arg.slice(9) === 'json';
    if (arg === '-ojson') return true;
  }
  try {
    return Settings.load(options.settingsInput(undefined)).lookup('OUTPUT')?.value === 'json';
  } catch {
    return false;
  }
}

function report(failure: Failure, json: boolean, io: CliIO, secrets: readonly string[]): void {
  const { error } = failure.envelope;
  if (json) {
    io.out(`${maskLine(JSON.stringify(failure.envelope), secrets)}\n`);
    return;
  }
  // One line each: the agent's message cannot end the `Error:` line and forge a `Code:` line.
  let text = field('Error', error.message) + field('Code', error.code);
  if (error.a2aCode !== null) text += field('A2A Code', error.a2aCode);
  if (error.hint) text += field('Hint', error.hint);
  io.err(maskLine(text, secrets));
}

/**
 * Runs one `tether` invocation and resolves with its exit status: 0 when the command did its job
 * (whatever the task's outcome), 1 failure, 2 usage, 3 unreachable, 4 credentials, 5 timeout. On failure,
 * `-o json` prints the error envelope on stdout; text prints `Error:` lines on stderr.
 */
export async function runCli(argv: readonly string[], options: RunOptions): Promise<number> {
  // The output boundary: whatever any command writes, no agent's control character reaches the terminal (G12).
  const io = terminalSafe(options.io);
  const env: ProgramEnv = { io, settingsInput: options.settingsInput, readStdin: options.readStdin, exitCode: 0, context: undefined };
  const program = buildProgram(env);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return env.exitCode;
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode === 0) return 0;
    const globals = env.context?.globals;
    const json = globals ? globals.output === 'json' : wantsJson(argv, options);
    const failure =
      error instanceof CommanderError
        ? classify(CliError.usage(error.message === '(outputHelp)' ? 'a command is missing (usage above)' : error.message.replace(/^error: /, '')), { hasCredentials: false })
        : classify(error, { hasCredentials: globals ? globals.bearer !== undefined || globals.apiKey !== undefined : false, agentRef: globals?.agentCard });
    report(failure, json, io, globals ? secretsOf(globals) : []);
    return failure.exitCode;
  }
}
