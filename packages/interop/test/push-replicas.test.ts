// Pushes across replicas (issue 22): three orchestrator processes share one Redis; the official v1.0 server
// (@a2a-js/sdk 1.3.0, which posts each push once and never retries) posts to a round-robin proxy in front of
// their three push receivers, so two pushes in three reach a replica that does not follow the task. With the
// safety poll at 10 minutes, a task completes only if its pushes reach the replica that follows it: every one
// of 60 tasks must complete with the agent's exact artifact, and every push a replica acknowledged for another
// replica's task must have arrived there. Pushes for a task no replica follows (yet: the agent pushes as it
// creates the task, before the client knows its id; or any more: after it ended) are answered 404, as
// with one process.
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
    let next = 0;
    const proxy = createServer((req, res) => {
      const port = targets[next++ % targets.length] as number;
      const forward = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        statuses.push(answer.statusCode ?? 0);
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
          `${handedOver} handed to another replica, ${relayedIn} arrived there; statuses ${JSON.stringify(Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])))}`,
      );
      // Most pushes reached a replica that does not follow the task, and each of those arrived where it had to.
      expect(handedOver).toBeGreaterThan(statuses.length / 3);
      expect(relayedIn).toBe(handedOver);
      // Accepted, or a task no replica follows; never refused for want of a replica to take it (401, 429, 5xx).
      expect(statuses.filter((s) => ![200, 202, 404].includes(s))).toEqual([]);
      expect(replicas.flatMap((r) => r.lines.filter((l) => l.startsWith('refused ') && !l.startsWith('refused 404 ')))).toEqual([]);
    } finally {
      for (const replica of replicas) replica.child.stdin?.write('exit\n');
      await Promise.all(replicas.map((replica) => (replica.child.exitCode === null ? once(replica.child, 'exit') : undefined)));
      proxy.closeAllConnections();
      proxy.close();
    }
  }, 120_000);
});
