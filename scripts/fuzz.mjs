#!/usr/bin/env node
// Property-based fuzzing (fast-check) of what an agent can send: the tests under packages/*/test/fuzz/.
//   pnpm fuzz [--runs N] [--seed S] [FILTER…]
// CI runs the same tests inside `pnpm test` with a fixed seed (20261201) and each property's own
// default count; this runs N cases per property (FUZZ_RUNS), from seed S (FUZZ_SEED), and prints
// both so a failure can be replayed. fast-check prints a failing case's seed and path; FILTER
// narrows the files (e.g. `pnpm fuzz --runs 100000 sse-reader`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const args = process.argv.slice(2);
const env = { ...process.env };
const filters = [];
for (let i = 0; i < args.length; i++) {
  const [flag, inline] = args[i].split('=', 2);
  if (flag !== '--runs' && flag !== '--seed') {
    filters.push(args[i]);
    continue;
  }
  const value = inline ?? args[++i];
  const valid = flag === '--runs' ? /^[1-9]\d*$/ : /^-?\d+$/;
  if (value === undefined || !valid.test(value)) {
    console.error(`✖ ${flag} needs ${flag === '--runs' ? 'a positive number of cases' : 'an integer seed'}, e.g. pnpm fuzz --runs 10000 --seed 7`);
    process.exit(2);
  }
  env[flag === '--runs' ? 'FUZZ_RUNS' : 'FUZZ_SEED'] = value;
}
console.log(`fuzz: ${env.FUZZ_RUNS ?? 'the default number of'} cases per property, seed ${env.FUZZ_SEED ?? '20261201 (the default)'}`);
const files = filters.length > 0 ? filters.map((f) => `test/fuzz/${f}`) : ['test/fuzz/'];
// A large --runs takes longer than vitest's 5 s per test: no time limit here (each property bounds its own cases).
const run = spawnSync(`${root}node_modules/.bin/vitest`, ['run', '--testTimeout=0', ...files], { cwd: root, stdio: 'inherit', env });
if (run.error) console.error(`✖ could not run vitest: ${run.error.message}`);
process.exit(run.status ?? 1);
