#!/usr/bin/env node
// Seeded chaos against Tether's task engine (packages/interop/src/chaos):
//   pnpm chaos --cuts 20000 [--seed N] [--concurrency N] [--max-minutes N] [--target NAME [--task N]]
// Prints the report table (per target: tasks, cuts by kind, stalls, injected 503/429, reconnects,
// polling fallbacks, failures) and exits non-zero on any failed task or when the run was cut short.
// Each failure prints the command that replays just that task:
//   pnpm chaos --seed S --target 'NAME' --task N
// Runs the TypeScript sources through tsx (no build needed).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const interop = fileURLToPath(new URL('../packages/interop/', import.meta.url));
const tsx = `${interop}node_modules/.bin/tsx`;
if (!existsSync(tsx)) {
  console.error(`✖ no tsx at ${tsx}: run \`npx pnpm@10.34.8 install\` first`);
  process.exit(1);
}
const result = spawnSync(tsx, ['--conditions=@a2a-tether/source', 'src/chaos/cli.ts', ...process.argv.slice(2)], {
  cwd: interop,
  stdio: 'inherit',
});
if (result.error) console.error(`✖ could not run the chaos runner: ${result.error.message}`);
process.exit(result.status ?? 1);
