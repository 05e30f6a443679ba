// Pushes across replicas (issues 22 and 33): three orchestrator processes share one Redis; the official v1.0
// server (@a2a-js/sdk 1.3.0, which posts each push once and never retries) posts to a round-robin proxy in
// front of their three push receivers, so two pushes in three reach a replica that does not follow the task.
// With the safety poll at 10 minutes, a task completes only if its pushes reach the replica that follows it:
// every one of 60 tasks must complete with the agent's exact artifact, and every push handed to another
// replica must have been decided there. The agent pushes as it creates a task, before the client knows its id:
// the engine registers the task's token before the send, so no push is refused for coming early (0 × 404,
// 0 × 401), whatever the machine's load. The only refusal allowed is 410, a push after its task's follow ended.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { redisServerAvailable, startRedisServer } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quietOfficialServers } from '../src/chaos/quiet.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';

const REPLICA = fileURLToPath(new URL('../src/push-replicas/replica.ts', import.meta.url));
const INTEROP = fileURLToPath(new URL('..', import.meta.url));
const REPLICAS = 3;
const TASKS_EACH = 20;
const WAIT_MS = 60_000;
const available = redisServerAvailable();

if (!available && process.env['CI'] === 'true') {
  it('redis-server is installed (required when CI=true)', () => {
    throw new Error('redis-server not found: install it with `apt-get install -y redis-server`');
  });
}

interface Replica {
  child: ChildProcess;
  lines: string[];
  waitFor(match: (line: string) => boolean): Promise<string>;
}

/** p50 / p99 / max of a list of milliseconds. */
function quantiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): string => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1);
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${at(1)} ms`;
}

function startReplica(args: string[]): Replica {
  const child = spawn(process.execPath, ['--conditions=@a2a-tether/source', '--import', 'tsx', REPLICA, ...args], { cwd: INTEROP, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiters: Array<{ match: (line: string) => boolean; resolve: (line: string) => void }> = [];
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  return {
    child,
    lines,
    waitFor: (match) => {
      const found = lines.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no such line within ${WAIT_MS} ms; got ${lines.slice(-5).join(' | ')}`)), WAIT_MS);
        waiters.push({ match, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      });
    },
  };
}

describe.skipIf(!available)('pushes across three replicas on one Redis', () => {
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let agent: OfficialServer;
  let restore: () => void;
  beforeAll(async () => {
    restore = quietOfficialServers();
    redis = await startRedisServer({});
    agent = await startOfficialV1Server();
  });
  afterAll(async () => {
    await agent?.close();
    redis?.process?.kill('SIGTERM');
    restore?.();
  });

  it(`${REPLICAS * TASKS_EACH} tasks by push through a round-robin proxy: each completes exactly, nothing acknowledged is lost`, async () => {
    // The round-robin proxy: each webhook call goes to the next replica's receiver, whichever task it is for.
    const targets: number[] = [];
    const statuses: number[] = [];
    const latencies: number[] = [];
    let next = 0;
    const proxy = createServer((req, res) => {
      const port = targets[next++ % targets.length] as number;
      const sent = performance.now();
      const forward = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        statuses.push(answer.statusCode ?? 0);
        latencies.push(performance.now() - sent);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.writeHead(502).end());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/hook`;
    const replicas = Array.from({ length: REPLICAS }, (_, i) => startReplica([agent.cardUrl, redis.url, 'replicas:', hookUrl, String(TASKS_EACH), `replica-${i}`]));
    try {
      for (const replica of replicas) targets.push(Number((await replica.waitFor((l) => l.startsWith('listening '))).split(' ')[1]));
      for (const replica of replicas) replica.child.stdin?.write('go\n');
      await Promise.all(replicas.map((replica) => replica.waitFor((l) => l === 'finished')));

      const tasks = replicas.flatMap((replica) => replica.lines.filter((l) => l.startsWith('task ')).map((l) => l.split(' ')));
      expect(tasks).toHaveLength(REPLICAS * TASKS_EACH);
      expect(tasks.filter((t) => t[2] !== 'completed' || t[4] !== 'chunk-0;chunk-1;chunk-2;').map((t) => t.join(' '))).toEqual([]);
      expect(new Set(tasks.map((t) => t[5])).size).toBe(REPLICAS * TASKS_EACH);
      const ms = tasks.map((t) => Number(t[3])).sort((a, b) => a - b);
      // Quiet first (the agent's last pushes of finished tasks), then every replica's count at once.
      for (let seen = -1; seen !== statuses.length; ) {
        seen = statuses.length;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      for (const replica of replicas) replica.child.stdin?.write('stats\n');
      const stats = await Promise.all(
        replicas.map(async (replica) => JSON.parse((await replica.waitFor((l) => l.startsWith('stats '))).slice(6)) as { handedOver: number; relayedIn: number }),
      );
      const handedOver = stats.reduce((n, s) => n + s.handedOver, 0);
      const relayedIn = stats.reduce((n, s) => n + s.relayedIn, 0);
      console.info(
        `${tasks.length} tasks on ${REPLICAS} replicas: done in ${ms[0]}–${ms.at(-1)} ms (median ${ms[Math.floor(ms.length / 2)]}); ${statuses.length} pushes through the proxy, ` +
          `${handedOver} handed to another replica, ${relayedIn} arrived there; answered in ${quantiles(latencies)}; statuses ${JSON.stringify(Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])))}`,
      );
      // Pushes reached replicas that do not follow their task, and each was decided where the task is followed.
      expect(handedOver).toBeGreaterThan(0);
      expect(relayedIn).toBe(handedOver);
      // No push refused for coming early (404, 401), nor for want of a replica to take it (429, 5xx).
      expect(statuses.filter((s) => s === 404)).toEqual([]);
      expect(statuses.filter((s) => ![200, 202, 410].includes(s))).toEqual([]);
      const refused = replicas.flatMap((r) => r.lines.filter((l) => l.startsWith('refused ')).map((l) => l.split(' ')));
      expect(refused.filter(([, status]) => status !== '410').map((l) => l.join(' '))).toEqual([]);
      // Every 410 names a task whose follow had ended (its registration is remembered as gone once forgotten).
      const ended = new Set(tasks.map((t) => t[5]));
      expect(refused.filter(([, , taskId]) => !ended.has(taskId)).map((l) => l.join(' '))).toEqual([]);
    } finally {
      for (const replica of replicas) replica.child.stdin?.write('exit\n');
      await Promise.all(replicas.map((replica) => (replica.child.exitCode === null ? once(replica.child, 'exit') : undefined)));
      proxy.closeAllConnections();
      proxy.close();
    }
  }, 120_000);
});
