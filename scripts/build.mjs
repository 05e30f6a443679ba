#!/usr/bin/env node
// Builds the packages (tsdown, with publint and attw) quietly, and only those whose build is stale.
//
//   node scripts/build.mjs            skip a package whose last build is newer than its sources, its
//                                     config and the builds of the packages it depends on
//   node scripts/build.mjs --force    build every package (what `pnpm test` does)
//
// The build tools' output (~190 lines: sizes, publint, attw, timings, a Node deprecation notice) is
// kept back and printed whole only when a build fails; otherwise one line says what was built. Run it
// through pnpm (`pnpm build`, or the example scripts): attw packs each package with pnpm.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const force = args.includes('--force');
// `--root <dir>`: another workspace (the script's own test builds a fake one).
const root = args.includes('--root') ? args[args.indexOf('--root') + 1] : fileURLToPath(new URL('..', import.meta.url));
// Where each package's last successful build is stamped: not in dist, which is published.
const stamps = join(root, 'node_modules/.cache/tether-build');
// Two builds at a time: tsdown is mostly single-threaded, and the machines this runs on have two cores.
const PARALLEL = 2;

/** The workspace packages that build, with the workspace packages each depends on. */
function packages() {
  const dirs = readdirSync(join(root, 'packages'), { withFileTypes: true }).filter((d) => d.isDirectory());
  const list = [];
  for (const dir of dirs) {
    const file = join(root, 'packages', dir.name, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    if (!manifest.scripts?.build) continue;
    // Built after every workspace package it depends on (as `pnpm -r` orders them, dev dependencies
    // included); stale when a build it ships against is newer (dependencies and peers: a package that
    // only tests with another one need not rebuild when that one does).
    const deps = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.devDependencies });
    const shipsWith = Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies });
    list.push({ name: manifest.name, short: dir.name, dir: join(root, 'packages', dir.name), deps, shipsWith });
  }
  const names = new Set(list.map((p) => p.name));
  for (const p of list) {
    p.deps = p.deps.filter((d) => names.has(d) && d !== p.name);
    p.shipsWith = p.shipsWith.filter((d) => p.deps.includes(d));
  }
  return list;
}

/** The newest modification time under `path` (directories count: removing a file changes its directory). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    // Tests do not go into dist.
    if (entry.isFile() && /\.test\.tsx?$/.test(entry.name)) continue;
    latest = Math.max(latest, newest(join(path, entry.name)));
  }
  return latest;
}

const stampOf = (p) => join(stamps, `${p.short}.stamp`);
const builtAt = (p) => (existsSync(stampOf(p)) && existsSync(join(p.dir, 'dist')) ? statSync(stampOf(p)).mtimeMs : 0);

/** What makes a package's build stale: its sources, its config, and the builds it depends on. */
function inputsChangedAt(p, byName) {
  const own = ['src', 'package.json', 'tsdown.config.ts', 'tsconfig.json'].map((f) => newest(join(p.dir, f)));
  const deps = p.shipsWith.map((d) => builtAt(byName.get(d)));
  return Math.max(newest(join(root, 'tsconfig.base.json')), ...own, ...deps);
}

function run(p) {
  return new Promise((resolve) => {
    const started = Date.now();
    const bin = join(p.dir, 'node_modules/.bin/tsdown');
    const child = spawn(bin, [], { cwd: p.dir, env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${bin}: ${error.message}\n`)));
    child.on('close', (code, signal) => resolve({ p, ok: code === 0, why: signal ?? `exit ${code}`, output: Buffer.concat(output).toString('utf8'), ms: Date.now() - started }));
  });
}

const all = packages();
const byName = new Map(all.map((p) => [p.name, p]));
const done = new Set();
const built = [];
const started = Date.now();
mkdirSync(stamps, { recursive: true });

// In dependency order, up to PARALLEL at a time: a package starts once everything it depends on is done
// (so its staleness is judged against their new builds).
const waiting = [...all];
const running = new Map();
let failure;
while ((waiting.length > 0 || running.size > 0) && !failure) {
  while (running.size < PARALLEL) {
    const index = waiting.findIndex((p) => p.deps.every((d) => done.has(d)));
    if (index < 0) break;
    const [p] = waiting.splice(index, 1);
    if (!force && builtAt(p) > inputsChangedAt(p, byName)) {
      done.add(p.name);
      continue;
    }
    running.set(p.name, run(p));
  }
  if (running.size === 0) {
    if (waiting.length > 0) failure = { p: waiting[0], why: 'a dependency cycle', output: '' };
    break;
  }
  const result = await Promise.race(running.values());
  running.delete(result.p.name);
  if (!result.ok) {
    failure = result;
    break;
  }
  writeFileSync(stampOf(result.p), `${new Date().toISOString()}\n`);
  done.add(result.p.name);
  built.push(`${result.p.short} ${(result.ms / 1000).toFixed(1)}s`);
}

if (failure) {
  await Promise.all(running.values());
  process.stderr.write(failure.output);
  console.error(`✖ build of ${failure.p.name} failed (${failure.why}); its output is above.`);
  process.exit(1);
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (built.length > 0) console.log(`build: ${built.join(', ')} (${seconds}s; the other ${all.length - built.length} up to date)`);
else console.log(`build: all ${all.length} packages up to date`);
