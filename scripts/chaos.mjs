#!/usr/bin/env node
// Seeded chaos against Tether's task engine (packages/interop/src/chaos):
//   pnpm chaos --cuts 20000 [--seed N] [--concurrency N] [--max-minutes N] [--target NAME [--task N]]
// Prints the report table (per target: tasks, cuts by kind, stalls, injected 503/429, reconnects,
// polling fallbacks, failures) and exits non-zero on any failed task or when the run was cut short.
// Each failure prints the command that replays just that task:
//   pnpm chaos --seed S --target 'NAME' --task N
// The misbehaving-agent model check (packages/interop/src/misbehave) runs from here too:
//   pnpm chaos --misbehave 5000 [--seed S] [--concurrency C] [--only I] [--keep K] [--time-scale F]
// (CI runs 2,000 of them in packages/interop/test/misbehave.test.ts; a failure prints `--only I` to replay it.)
// Several processes on one Redis under partitions, kills and Redis restarts (packages/interop/src/redis-chaos):
//   pnpm chaos --redis 20 [--seed S] [--tasks T] [--workers W] [--lease-ms L] [--fault-ms F] [--verbose 1]
// (CI runs one seed in packages/interop/test/redis-chaos.test.ts; a failure prints `--redis 1 --seed S`.)
// Seeded workflows (packages/core/test/orchestrate-chaos.test.ts) behind chaos proxies, with corrections:
//   pnpm chaos --workflows 200 [--seed S]      (CI runs 12; a failing seed is named in its test title)
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
let args = process.argv.slice(2);
const workflows = args.findIndex((arg) => arg === '--workflows');
if (workflows >= 0) {
  const runs = args[workflows + 1];
  const seedAt = args.indexOf('--seed');
  if (runs === undefined || !/^\d+$/.test(runs)) {
    console.error('✖ --workflows needs a number of runs, e.g. pnpm chaos --workflows 200');
    process.exit(2);
  }
  const root = fileURLToPath(new URL('../', import.meta.url));
  const env = { ...process.env, WORKFLOW_CHAOS_RUNS: runs, WORKFLOW_CHAOS_VERBOSE: '1', ...(seedAt >= 0 ? { WORKFLOW_CHAOS_SEED: args[seedAt + 1] } : {}) };
  const run = spawnSync(`${root}node_modules/.bin/vitest`, ['run', '--project', 'core', 'packages/core/test/orchestrate-chaos.test.ts'], { cwd: root, stdio: 'inherit', env });
  process.exit(run.status ?? 1);
}
let cli = 'src/chaos/cli.ts';
const redis = args.findIndex((arg) => arg === '--redis');
if (redis >= 0) {
  const runs = args[redis + 1];
  if (runs === undefined || !/^\d+$/.test(runs)) {
    console.error('✖ --redis needs a number of seeded runs, e.g. pnpm chaos --redis 20 --seed 7');
    process.exit(2);
  }
  args = ['--runs', runs, ...args.slice(0, redis), ...args.slice(redis + 2)];
  cli = 'src/redis-chaos/cli.ts';
}
const misbehave = args.findIndex((arg) => arg === '--misbehave' || arg.startsWith('--misbehave='));
if (misbehave >= 0) {
  const arg = args[misbehave];
  const runs = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[misbehave + 1];
  if (runs === undefined || !/^\d+$/.test(runs)) {
    console.error('✖ --misbehave needs a number of runs, e.g. pnpm chaos --misbehave 5000');
    process.exit(2);
  }
  args = [...args.slice(0, misbehave), ...args.slice(misbehave + (arg.includes('=') ? 1 : 2))];
  args = ['--runs', runs, ...args];
  cli = 'src/misbehave/cli.ts';
}
const result = spawnSync(tsx, ['--conditions=@a2a-tether/source', cli, ...args], {
  cwd: interop,
  stdio: 'inherit',
});
if (result.error) console.error(`✖ could not run the chaos runner: ${result.error.message}`);
process.exit(result.status ?? 1);
