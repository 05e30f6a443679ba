import { formatMisbehaveReport } from './report.js';
import { runMisbehave } from './run-misbehave.js';

const USAGE = `Usage: tsx --conditions=@a2a-tether/source src/misbehave/cli.ts [--runs N] [--seed S] [--concurrency C] [--only I] [--keep K] [--time-scale F]
  --runs         runs to make (default 200)
  --seed         suite seed (default: from the clock, printed); run i is drawn from (seed, i) alone
  --concurrency  runs in flight at once (default 16)
  --only         make only run I (reproduce one failure)
  --keep         failures printed in full (default 20; all are counted)
  --time-scale   virtual ms per real ms of each run's clock (default 100)`;

interface CliOptions {
  runs: number;
  seed: number;
  concurrency: number | undefined;
  only: number | undefined;
  keep: number | undefined;
  timeScale: number | undefined;
}

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
  const number = (key: string): number | undefined => {
    const raw = values.get(key);
    values.delete(key);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`--${key} must be a non-negative number, got ${raw}`);
    return value;
  };
  const parsed: CliOptions = {
    runs: number('runs') ?? 200,
    seed: number('seed') ?? Date.now() % 0x1_0000_0000,
    concurrency: number('concurrency'),
    only: number('only'),
    keep: number('keep'),
    timeScale: number('time-scale'),
  };
  if (values.size > 0) throw new Error(`unknown option --${[...values.keys()].join(', --')}`);
  return parsed;
}

let options: CliOptions;
try {
  options = parse(process.argv.slice(2));
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  process.exit(2);
}
const report = await runMisbehave({
  runs: options.runs,
  seed: options.seed,
  concurrency: options.concurrency,
  only: options.only,
  keepFailures: options.keep,
  timeScale: options.timeScale,
  log: (line) => console.error(line),
});
console.log(formatMisbehaveReport(report));
process.exitCode = report.failed > 0 ? 1 : 0;
