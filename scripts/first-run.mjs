#!/usr/bin/env node
// The README's demo command, run as a user runs it (`pnpm demo`, on the tree `pnpm test` has built): what
// it prints before the demo itself must be a few lines (pnpm's script header, one `build:` line — no
// build tools' output, no install progress: .npmrc), the demo must pass, and no line may say `undefined`.
// Exits 1 otherwise, printing what it saw.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Lines with text before the demo: pnpm's script header (two) and the `build:` line, and one to spare. */
const MAX_LINES_BEFORE = 4;
// Under `pnpm test` the pnpm running it (npm_execpath); run alone, the README's own spelling.
const pnpm = process.env['npm_execpath'];
const [command, args] = pnpm?.includes('pnpm') ? [process.execPath, [pnpm, 'demo']] : ['npx', ['--yes', 'pnpm@10.34.8', 'demo']];
const run = spawnSync(command, args, { cwd: root, encoding: 'utf8', timeout: 300_000 });
const output = `${run.stdout ?? ''}${run.stderr ?? ''}`;
const lines = output.split('\n');
const first = lines.findIndex((line) => line.startsWith('── v1.0 agent'));
const problems = [];
if (run.status !== 0) problems.push(`pnpm demo exited ${run.status ?? run.signal}`);
if (first < 0) problems.push('the demo never started (no "── v1.0 agent" line)');
const before = first < 0 ? [] : lines.slice(0, first).filter((line) => line.trim() !== '');
if (before.length > MAX_LINES_BEFORE) problems.push(`${before.length} lines before the demo (at most ${MAX_LINES_BEFORE}): ${before.join(' | ')}`);
if (!output.includes('demo: ok')) problems.push('no "demo: ok" line');
const undef = lines.filter((line) => /\bundefined\b/.test(line));
if (undef.length > 0) problems.push(`lines saying undefined: ${undef.join(' | ')}`);
if (problems.length > 0) {
  console.error(output);
  console.error(`✖ first run: ${problems.join('; ')}`);
  process.exit(1);
}
console.log(`✔ pnpm demo: ${before.length} line(s) before the demo (${before.join(' ⏎ ').slice(0, 200)}), and it passed`);
