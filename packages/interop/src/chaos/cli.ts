import { quietOfficialServers } from './quiet.js';
import { formatChaosReport } from './report.js';
import { runChaos } from './run-chaos.js';

const USAGE = `Usage: pnpm chaos [--cuts N] [--seed N] [--concurrency N] [--max-minutes N]
  --cuts         cuts to inject over all targets (default 2000)
  --seed         seed of every fault choice, task plan and jitter (default: from the clock, printed)
  --concurrency  tasks in flight at once (default 8)
  --max-minutes  hard wall-clock cap (default 15); a run stopped by it exits non-zero`;

// `pnpm chaos …` (through scripts/chaos.mjs).
function parse(argv: string[]): { cuts: number; seed: number; concurrency: number | undefined; maxMinutes: number } {
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
  const parsed = {
    cuts: number('cuts', 2000) as number,
    seed: number('seed', Date.now() % 0x1_0000_0000) as number,
    concurrency: number('concurrency', undefined),
    maxMinutes: number('max-minutes', 15) as number,
  };
  if (values.size > 0) throw new Error(`unknown option --${[...values.keys()].join(', --')}`);
  return parsed;
}

let options: ReturnType<typeof parse>;
try {
  options = parse(process.argv.slice(2));
} catch (error) {
  console.error(`${String(error instanceof Error ? error.message : error)}\n${USAGE}`);
  process.exit(2);
}
quietOfficialServers();
const report = await runChaos({
  cuts: options.cuts,
  seed: options.seed,
  concurrency: options.concurrency,
  maxWallMs: options.maxMinutes * 60_000,
  log: (line) => console.error(line),
});
console.log(formatChaosReport(report));
process.exitCode = report.totals.failures > 0 || report.capHit !== undefined ? 1 : 0;
