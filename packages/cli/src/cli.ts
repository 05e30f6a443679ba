#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { processSettingsInput } from './config/settings.js';
import { escapeUnsafe, line } from './output/terminal-safe.js';
import { runCli } from './run.js';

// The `tether` binary: the process's streams, environment and directory, then exit with the run's status
// once stdout is flushed (an agent connection left in a keep-alive pool must not hold the process open).
void runCli(process.argv.slice(2), {
  io: {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    cwd: process.cwd(),
    isTTY: process.stdout.isTTY === true,
  },
  settingsInput: processSettingsInput,
  readStdin: () => readFileSync(0, 'utf8'),
}).then(
  (code) => process.stdout.write('', () => process.stderr.write('', () => process.exit(code))),
  (error: unknown) => {
    process.stderr.write(escapeUnsafe(line`Error: ${error instanceof Error ? error.message : String(error)}\nCode: A2ACLI_ERR_INTERNAL\n`));
    process.exit(1);
  },
);
