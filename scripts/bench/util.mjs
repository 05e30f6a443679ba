/* global AbortController */
// Helpers of scripts/bench.mjs: the agent child process, heap sampling, statistics, formatting.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const AGENT_SCRIPT = fileURLToPath(new URL('./agent.mjs', import.meta.url));
const OFFICIAL_SCRIPT = fileURLToPath(new URL('./official-agent.mjs', import.meta.url));
const TSX = fileURLToPath(new URL('../../packages/interop/node_modules/.bin/tsx', import.meta.url));
const FIREHOSE_SCRIPT = fileURLToPath(new URL('./firehose-server.mjs', import.meta.url));

/** Starts the built testkit agent in its own process; resolves with its URL and a stop function. */
export async function startAgentProcess(options = {}) {
  const child = await startChild(AGENT_SCRIPT, [JSON.stringify(options)], 'the bench agent');
  return { ...child.info, stop: child.stop };
}

/** Starts the official v1.0 server (@a2a-js/sdk, scripts/bench/official-agent.mjs) in its own process, through tsx. */
export async function startOfficialAgentProcess() {
  const child = await startChild(OFFICIAL_SCRIPT, [], 'the official v1.0 server', TSX);
  return { ...child.info, stop: child.stop };
}

/** Starts the firehose server (scripts/bench/firehose-server.mjs) in its own process. */
export async function startFirehoseProcess(config) {
  const child = await startChild(FIREHOSE_SCRIPT, [JSON.stringify(config)], 'the firehose');
  return { ...child.info, stop: child.stop };
}

/**
 * Runs a Node script in a child process that prints one JSON line once ready and exits when its
 * stdin closes; resolves with that JSON and a stop function.
 */
async function startChild(script, args, what, command = process.execPath) {
  const child = spawn(command, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`${what} exited with code ${code} before it was ready`);
  });
  exited.catch(() => undefined);
  const [line] = await withTimeout(60_000, `${what} did not start within 60 s`, Promise.race([once(lines, 'line'), exited]));
  return {
    info: JSON.parse(line),
    async stop() {
      const gone = once(child, 'exit');
      child.stdin.end();
      await withTimeout(5_000, 'kill', gone).catch(() => child.kill('SIGKILL'));
      lines.close();
    },
  };
}

/** `promise`, or a rejection with `message` after `ms` (the timer does not outlive the promise). */
export async function withTimeout(ms, message, promise) {
  const timer = new AbortController();
  try {
    return await Promise.race([
      promise,
      delay(ms, undefined, { signal: timer.signal }).then(() => {
        throw new Error(message);
      }),
    ]);
  } finally {
    timer.abort();
  }
}

/** heapUsed after full collections, with turns of the event loop so finalizers run in between. */
export async function heapAfterGc() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await delay(10);
  }
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

/** Least-squares slope of y over x. */
export function slope(points) {
  const n = points.length;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxy / sxx;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The p-th percentile (0–100), nearest rank. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Runs `fn(i)` for i in [0, count) with at most `limit` in flight. */
export async function pool(count, limit, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** Polls until `check()` holds; throws after `ms`. */
export async function until(ms, what, check) {
  const started = Date.now();
  for (let i = 0; !check(); i++) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await delay(i < 10 ? 1 : 20);
  }
}

/** A plain text table. */
export function table(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map(String));
  const widths = headers.map((_, c) => Math.max(...cells.map((row) => row[c].length)));
  const line = (row) => row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export const round = (value, digits = 0) => Number(value.toFixed(digits));
