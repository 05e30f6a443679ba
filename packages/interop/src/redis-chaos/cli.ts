// `pnpm chaos --redis N [--seed S] [--tasks T] [--workers W] [--lease-ms L] [--fault-ms F] [--verbose 1]` (through scripts/chaos.mjs):
// N seeded multi-process Redis fault runs, seeds S, S+1, … (default S: from the clock, printed). Prints one
// row per seed and exits non-zero if any run broke a property; `--seed S --redis 1` replays a run.
import { redisServerAvailable } from '@a2a-tether/testkit';
import { formatRedisChaosReport, formatRedisChaosRow } from './report.js';
import { redisChaosPassed, runRedisChaos } from './run-redis-chaos.js';

function parse(argv: string[]): Map<string, number> {
  const values = new Map<string, number>();
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i] ?? '';
    const raw = argv[++i];
    if (!key.startsWith('--') || raw === undefined || !/^\d+$/.test(raw)) throw new Error(`expected --name <whole number>, got ${key} ${raw ?? ''}`);
    values.set(key.slice(2), Number(raw));
  }
  return values;
}

const values = parse(process.argv.slice(2));
const runs = values.get('runs') ?? 1;
const seed = values.get('seed') ?? Date.now() % 1_000_000;
if (!redisServerAvailable()) {
  console.error('✖ redis-server not found: install it (apt-get install -y redis-server) or set TETHER_REDIS_SERVER');
  process.exit(1);
}
console.log(`Redis chaos: ${runs} run${runs === 1 ? '' : 's'} from seed ${seed}`);
let failed = 0;
for (let i = 0; i < runs; i++) {
  const report = await runRedisChaos({
    seed: seed + i,
    tasks: values.get('tasks'),
    workers: values.get('workers'),
    leaseMs: values.get('lease-ms'),
    faultMs: values.get('fault-ms'),
    ...(values.get('verbose') ? { log: (line: string) => console.log(`  ${line}`) } : {}),
  });
  console.log(formatRedisChaosRow(report));
  if (!redisChaosPassed(report)) {
    failed += 1;
    console.log(formatRedisChaosReport(report));
    console.log(`  replay: pnpm chaos --redis 1 --seed ${report.seed}`);
  }
}
if (failed > 0) {
  console.error(`✖ ${failed} of ${runs} runs broke a property`);
  process.exit(1);
}
console.log(`✔ ${runs} runs: no task driven twice, every artifact exact, no record lost or overwritten by a former holder`);
