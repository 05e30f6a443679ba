import { quietOfficialServers } from './quiet.js';
import { formatChaosReport } from './report.js';
import { runChaos } from './run-chaos.js';
import { allChaosTargets } from './targets.js';

const USAGE = `Usage: pnpm chaos [--cuts N] [--seed N] [--concurrency N] [--max-minutes N] [--target NAME [--task N]]
  --cuts         cuts to inject over all targets (default 2000)
  --seed         seed of every fault choice, task plan and jitter (default: from the clock, printed)
  --concurrency  tasks in flight at once (default 8)
  --max-minutes  hard wall-clock cap (default 15); a run stopped by it exits non-zero
  --target       run only this target, e.g. 'testkit[default] v1.0 JSONRPC' (names: see the report)
  --task         with --target: run only task N of that target, as the run with the same --seed did
                 (every failure prints this command)`;

interface CliOptions {
  cuts: number;
  seed: number;
  concurrency: number | undefined;
  maxMinutes: number;
  target: string | undefined;
  task: number | undefined;
}

// `pnpm chaos …` (through scripts/chaos.mjs).
function parse(argv: string[]): CliOptions {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(USAGE);
    process.exit(0);
  }
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const [key = '', inline] = arg.slice(2).split('=', 2);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${key} needs a value`);
    values.set(key, value);
  }
  const number = (key: string, fallback: number | undefined): number | undefined => {
    const raw = values.get(key);
    values.delete(key);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${key} must be a non-negative number, got ${raw}`);
    return value;
  };
  const target = values.get('target');
  values.delete('target');
  const parsed: CliOptions = {
    cuts: number('cuts', 2000) as number,
    seed: number('seed', Date.now() % 0x1_0000_0000) as number,
    concurrency: number('concurrency', undefined),
    maxMinutes: number('max-minutes', 15) as number,
    target,
    task: number('task', undefined),
  };
  if (values.size > 0) throw new Error(`unknown option --${[...values.keys()].join(', --')}`);
  if (parsed.task !== undefined && !Number.isInteger(parsed.task)) throw new Error(`--task must be a task index, got ${parsed.task}`);
  if (parsed.task !== undefined && target === undefined) throw new Error('--task needs --target (a task index is per target)');
  return parsed;
}

let options: ReturnType<typeof parse>;
try {
  options = parse(process.argv.slice(2));
} catch (error) {
  console.error(`${String(error instanceof Error ? error.message : error)}\n${USAGE}`);
  process.exit(2);
}
const targets = allChaosTargets();
const chosen = options.target === undefined ? targets : targets.filter((t) => t.name === options.target);
if (chosen.length === 0) {
  console.error(`no target named ${JSON.stringify(options.target)}; the targets are:\n${targets.map((t) => `  ${t.name}`).join('\n')}`);
  process.exit(2);
}
quietOfficialServers();
const report = await runChaos({
  cuts: options.cuts,
  seed: options.seed,
  targets: chosen,
  task: options.task,
  concurrency: options.concurrency,
  maxWallMs: options.maxMinutes * 60_000,
  log: (line) => console.error(line),
});
console.log(formatChaosReport(report));
if (options.task !== undefined) {
  // A replay: what the proxy did to each of the task's requests, failed or not.
  for (const task of report.tasks) {
    console.log(`\nTask #${task.taskIndex} on ${task.target}: ${task.plan}`);
    for (const [i, r] of task.requests.entries()) console.log(`  ${i + 1}. ${r.request}${r.fault === undefined ? '' : ` → ${r.fault}`}`);
  }
}
process.exitCode = report.totals.failures > 0 || report.capHit !== undefined ? 1 : 0;
