#!/usr/bin/env node
// The runtime smoke's host (issue 21): starts the testkit agent (its card signed, a fault proxy in front that
// resets each runtime's first task stream), then runs src/smoke.ts inside each runtime — Node 22 and 24,
// Bun, Deno (npm packages that ship their binaries, through npx) and workerd (Miniflare 4, which needs
// Node ≥ 22: run under node@24, installed once into node_modules/.cache) — printing each runtime's version
// and each check. Any failed check, a runtime that does not start, or a cut that did not happen fails the
// run (exit 1). Built packages are used: run `pnpm build` first.
//
//   node packages/runtimes/run.mjs [runtime …]     runtimes: node22 node24 bun deno workerd (default: all)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transformSync } from 'esbuild';
import { exportJWK, FlattenedSign, generateKeyPair } from 'jose';
import { cardSigningPayload } from '@a2a-tether/core/signing';
import { startFaultProxy, startTestAgent, startWebSocketAgent } from '@a2a-tether/testkit';

const here = fileURLToPath(new URL('.', import.meta.url));
const work = join(here, '.run');
/** Pinned so that a run is the same on every machine. */
export const PINNED = { node22: 'node@22', node24: 'node@24', bun: 'bun@1.4', deno: 'deno@2.9', miniflare: 'miniflare@4.20260730.0' };
const TIMEOUT_MS = 180_000;

/** Runs a command; resolves with its exit and output (the agent answers from this process's event loop). */
function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd ?? here, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? TIMEOUT_MS);
    child.on('error', (error) => (stderr += String(error)));
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

async function keyPair(kid) {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256' } };
}

async function signCard(card, key) {
  const payload = Buffer.from(cardSigningPayload(card), 'utf8');
  const jws = await new FlattenedSign(payload).setProtectedHeader({ alg: 'ES256', typ: 'JOSE', kid: key.kid }).sign(key.privateKey);
  return { ...card, signatures: [{ protected: jws.protected, signature: jws.signature }] };
}

/** The report line the smoke prints (`SMOKE {...}`), or undefined. */
function reportOf(output) {
  const line = output.split('\n').find((l) => l.startsWith('SMOKE '));
  return line === undefined ? undefined : JSON.parse(line.slice('SMOKE '.length));
}

/** src/smoke.ts and the WebSocket binding as JavaScript beside this package's node_modules, so each runtime resolves @a2a-tether/core itself. */
function writeSmokeModule() {
  mkdirSync(work, { recursive: true });
  for (const name of ['smoke', 'websocket-binding']) {
    const source = transformSync(readSource(`src/${name}.ts`), { loader: 'ts', format: 'esm', target: 'es2022' }).code;
    writeFileSync(join(work, `${name}.js`), source);
  }
}

function readSource(path) {
  return readFileSync(join(here, path), 'utf8');
}

/** An entry for a runtime with a `process` or `Deno` global: runs the smoke with `config`, prints the report. */
function writeEntry(config) {
  const entry = join(work, 'entry.mjs');
  writeFileSync(
    entry,
    `import { smoke } from './smoke.js';\n` +
      `const report = await smoke(${JSON.stringify(config)});\n` +
      `console.log('SMOKE ' + JSON.stringify(report));\n` +
      `const exit = globalThis.Deno ? globalThis.Deno.exit : globalThis.process.exit;\n` +
      `exit(report.checks.every((c) => c.ok) ? 0 : 1);\n`,
  );
  return entry;
}

/** The versions line a runtime prints of itself. */
async function versionOf(command, args) {
  const result = await run(command, [...args, '--version'], { timeoutMs: 300_000 });
  return result.status === 0 ? result.stdout.trim().split('\n')[0] : `no version (exit ${result.status}): ${result.stderr.trim().split('\n').slice(-3).join(' | ')}`;
}

const cliRuntimes = {
  node22: { command: 'npx', args: ['-y', PINNED.node22], runArgs: [] },
  node24: { command: 'npx', args: ['-y', PINNED.node24], runArgs: [] },
  bun: { command: 'npx', args: ['-y', PINNED.bun], runArgs: ['run'] },
  // Deno finds @a2a-tether/core in this package's node_modules (pnpm's), as a Deno app in an npm project does.
  deno: { command: 'npx', args: ['-y', PINNED.deno], runArgs: ['run', '--node-modules-dir=manual', '--allow-net', '--allow-read', '--allow-env'] },
};

async function runCli(name, config) {
  const runtime = cliRuntimes[name];
  const version = await versionOf(runtime.command, runtime.args);
  const result = await run(runtime.command, [...runtime.args, ...runtime.runArgs, writeEntry(config)]);
  return { version, result };
}

/** workerd through Miniflare: the smoke bundled as a module worker (esbuild, the workerd/worker conditions), no nodejs_compat. */
async function runWorkerd(config) {
  const cache = join(here, 'node_modules', '.cache', 'workerd');
  if (!existsSync(join(cache, 'node_modules', 'miniflare'))) {
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, 'package.json'), '{ "private": true, "type": "module" }\n');
    // Miniflare needs Node >= 22; npm on Node 20 only warns about that (hidden: it runs under node@24 below).
    const install = await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', '--engine-strict=false', PINNED.miniflare], { cwd: cache, timeoutMs: 300_000 });
    if (install.status !== 0) return { version: 'not installed', result: install };
  }
  await build({
    entryPoints: [join(here, 'src', 'worker.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    target: 'es2022',
    outfile: join(cache, 'worker.mjs'),
    logLevel: 'error',
  });
  writeFileSync(join(cache, 'config.json'), JSON.stringify(config));
  writeFileSync(join(cache, 'driver.mjs'), readSource('src/workerd-driver.mjs'));
  const result = await run('npx', ['-y', PINNED.node24, 'driver.mjs'], { cwd: cache });
  const version = result.stdout.split('\n').find((l) => l.startsWith('workerd '))?.trim() ?? 'workerd (version not printed)';
  return { version, result };
}

const all = ['node22', 'node24', 'bun', 'deno', 'workerd'];
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : all;
const unknown = chosen.filter((name) => !all.includes(name));
if (unknown.length > 0) {
  console.error(`unknown runtime(s): ${unknown.join(', ')} (known: ${all.join(', ')})`);
  process.exit(2);
}

const key = await keyPair('smoke-key');
const other = await keyPair('other-key');
const agent = await startTestAgent({ cardOverride: (card) => signCard(card, key) });
const proxy = await startFaultProxy({ target: agent.origin });
// The same agent behind WebSocket fronts (their cards list a WEBSOCKET interface first, signed again):
// one as it is, one that cuts each run's first task stream.
const wsAgent = await startWebSocketAgent({ target: agent.url, cardOverride: (card) => signCard(card, key) });
const wsCut = await startWebSocketAgent({ target: agent.url });
const http = {
  label: 'over HTTP',
  config: { agent: agent.url, cutAgent: proxy.url, trustedKey: key.publicJwk, otherKey: other.publicJwk },
  arm: () => proxy.addFault({ kind: 'cut', afterEvents: 3, mode: 'reset', times: 1, match: { sse: true } }),
  cuts: () => proxy.stats.cuts.reset,
};
const websocket = {
  label: 'over WebSocket (a binding of its own)',
  config: { agent: wsAgent.url, cutAgent: wsCut.url, trustedKey: key.publicJwk, otherKey: other.publicJwk, binding: 'websocket' },
  arm: () => wsCut.cutStreams(3, 1),
  cuts: () => wsCut.cuts,
};
const failed = [];
try {
  writeSmokeModule();
  for (const [name, via] of chosen.flatMap((n) => [[n, http], [n, websocket]])) {
    const config = via.config;
    const cutsBefore = via.cuts();
    via.arm();
    const started = Date.now();
    const { version, result } = name === 'workerd' ? await runWorkerd(config) : await runCli(name, config);
    const report = reportOf(result.stdout);
    const problems = [];
    if (report === undefined) problems.push(`no report (exit ${result.status ?? result.signal})`);
    for (const c of report?.checks ?? []) if (!c.ok) problems.push(`${c.name}: ${c.detail}`);
    const expected = name === 'workerd' ? 9 : 7; // workerd adds the Durable Object checks
    if ((report?.checks.length ?? 0) !== expected) problems.push(`${report?.checks.length ?? 0} checks ran, ${expected} expected`);
    if (via.cuts() !== cutsBefore + 1) problems.push(`${via.cuts() - cutsBefore} streams were cut, 1 expected`);
    if (result.status !== 0 && problems.length === 0) problems.push(`exit ${result.status ?? result.signal}`);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`\n${problems.length === 0 ? '✔' : '✖'} ${name} ${via.label}: ${version}${report ? ` (the smoke saw: ${report.runtime})` : ''}, ${seconds}s`);
    for (const c of report?.checks ?? []) console.log(`   ${c.ok ? '✔' : '✖'} ${c.name} (${c.ms} ms): ${c.detail}`);
    if (problems.length > 0) {
      failed.push(`${name} ${via.label}`);
      console.log(`   problems: ${problems.join('; ')}`);
      console.log(`   output:\n${result.stdout}${result.stderr}`.split('\n').slice(-30).join('\n   '));
    }
  }
} finally {
  await wsAgent.close();
  await wsCut.close();
  await proxy.close();
  await agent.close();
  rmSync(work, { recursive: true, force: true });
}
if (failed.length > 0) {
  console.error(`\n✖ the smoke failed on: ${failed.join(', ')}`);
  process.exit(1);
}
console.log(`\n✔ the smoke passed on ${chosen.join(', ')}, over HTTP and over WebSocket`);
