// Helpers of scripts/bench.mjs: the agent child process, heap sampling, statistics, formatting.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const AGENT_SCRIPT = fileURLToPath(new URL('./agent.mjs', import.meta.url));

/** Starts the built testkit agent in its own process; resolves with its URL and a stop function. */
export async function startAgentProcess() {
  const child = spawn(process.execPath, [AGENT_SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const timeout = delay(15_000).then(() => {
    throw new Error('the bench agent did not start within 15 s');
  });
  const [line] = await Promise.race([once(lines, 'line'), timeout]);
  const { url } = JSON.parse(line);
  return {
    url,
    async stop() {
      const exited = once(child, 'exit');
      child.stdin.end();
      await Promise.race([exited, delay(5_000).then(() => child.kill('SIGKILL'))]);
      lines.close();
    },
  };
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
