import type { Settings } from '../config/settings.js';
import type { GlobalOptions } from '../agent/global-options.js';
import type { CliIO } from '../io.js';
import { CliError } from '../errors/cli-error.js';

/** What every command runs with: where to write, the configuration, the global options. */
export interface RunContext {
  io: CliIO;
  settings: Settings;
  globals: GlobalOptions;
  /** Reads all of stdin (`--data -`). */
  readStdin: () => string;
}

/** `2s`, `500ms`, `1.5m`, `1h`, or a bare number of seconds → milliseconds. */
export function parseDuration(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(value.trim());
  if (!match) throw CliError.usage(`${flag} ${value}: not a duration`, 'use e.g. 500ms, 2s, 5m or 1h (a bare number is seconds)');
  const n = Number(match[1]);
  const unit = (match[2] ?? 's').toLowerCase();
  const ms = unit === 'ms' ? n : unit === 's' ? n * 1000 : unit === 'm' ? n * 60_000 : n * 3_600_000;
  if (!Number.isFinite(ms) || ms <= 0) throw CliError.usage(`${flag} ${value}: must be more than zero`);
  return Math.round(ms);
}

/** A non-negative integer flag. */
export function parseCount(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw CliError.usage(`${flag} ${value}: expected a non-negative integer`);
  return n;
}

/** The wait options of `send` and `task get --wait`, through the configuration layers. */
export function waitOptions(
  context: RunContext,
  flags: { pollInterval?: string | undefined; timeout?: string | undefined },
): { pollMs: number; pollGiven: boolean; timeoutMs: number | undefined } {
  const poll = context.settings.string('POLL_INTERVAL', flags.pollInterval);
  const timeout = context.settings.string('TIMEOUT', flags.timeout);
  return {
    pollMs: poll === undefined ? 2_000 : parseDuration('--poll-interval', poll),
    pollGiven: poll !== undefined,
    timeoutMs: timeout === undefined ? undefined : parseDuration('--timeout', timeout),
  };
}
