#!/usr/bin/env node
// The whole test suite, in the order a failure is cheapest to read:
// build (tsdown + publint + attw) → typecheck → docs snippets (every ```ts block of the docs compiles
// against the built packages) → the API reference (TypeDoc, warnings are errors) → lint → vitest (unit, integration, interop, browser; the
// misbehaving-agent model check and the chaos run are vitest files) → the runtime smoke (workerd, Deno, Bun,
// Node 22 and 24) and the core and node suites on Node 22 and 24 → bundle-size
// budgets (everything the browser package exports; what a web app loads before its first request) →
// self-checking examples → mutants (each planted engine bug must fail the core tests).
// Run through pnpm (`npx pnpm@10.34.8 test`), which installs dependencies first.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.TETHER_CHROMIUM ?? '/usr/bin/chromium';
const ci = process.env.CI === 'true';

function step(title, command, args, env = {}) {
  const started = Date.now();
  console.log(`\n▶ ${title}: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`✖ ${title} failed (exit ${result.status ?? result.signal}) after ${seconds}s`);
    process.exit(result.status ?? 1);
  }
  console.log(`✔ ${title} (${seconds}s)`);
}

if (!existsSync(CHROMIUM)) {
  if (ci) {
    console.error(`✖ CI=true but no Chromium at ${CHROMIUM}: the browser tests cannot be skipped in CI (.ci/run installs it).`);
    process.exit(1);
  }
  console.warn(`⚠ No Chromium at ${CHROMIUM}: the real-browser tests will be SKIPPED (install Debian's chromium to run them).`);
}

// --force: every package, whatever scripts/build.mjs thinks is fresh.
step('build', 'node', ['scripts/build.mjs', '--force']);
step('typecheck', 'pnpm', ['typecheck']);
step('docs snippets', 'node', ['scripts/docs-snippets.mjs']);
// The runnable ones (```ts runnable) also run, each doc's as one program, against the testkit agent.
step('docs run', 'node', ['scripts/docs-run.mjs']);
// The API reference (TypeDoc, into docs/api/): a broken {@link} or a warning fails it.
step('API reference', 'pnpm', ['docs:api']);
step('lint', 'pnpm', ['lint']);
step('tests', 'pnpm', ['exec', 'vitest', 'run']);
// Other runtimes (issue 21): the smoke inside workerd (Miniflare), Deno, Bun and Node 22 and 24 — each prints its
// version; then the core and node suites on Node 22 and 24 (Node binaries from npm packages, through npx).
step('runtimes', 'node', ['packages/runtimes/run.mjs']);
for (const node of ['node@22', 'node@24']) {
  step(`core and node suites on ${node}`, 'npx', ['-y', node, 'node_modules/vitest/vitest.mjs', 'run', '--project', 'core', '--project', 'node']);
}
step('bundle size', 'pnpm', ['size']);
step('initial load', 'node', ['scripts/bundle-shape.mjs', '--check']);
// --loglevel=info: .npmrc's warn level would hide each example's own output under `pnpm -r` (a failure then said nothing).
step('examples', 'pnpm', ['--loglevel=info', '-r', '--filter', './examples/*', 'run', 'check']);
// The README's demo command as a user runs it: a few lines before the demo, then the demo, passing.
step('first run', 'node', ['scripts/first-run.mjs']);
// The test step above ran every test green: the mutants need no baseline of their own.
step('mutants', 'node', ['scripts/mutants.mjs', '--after-tests']);
console.log('\n✔ all checks passed');
