// One orchestrator replica of push-replicas.test.ts, run with tsx:
//   <cardUrl> <redisUrl> <prefix> <hookUrl> <tasks> <name>
// A push receiver on 127.0.0.1 (its port printed as `listening <port>`), a Redis task store shared with the
// other replicas, and a client whose webhook URL is `hookUrl` (a round-robin proxy in front of every
// replica's receiver), with a safety poll of 10 minutes: a task completes only through pushes. On a `go` line
// on stdin it starts `tasks` tasks (delivery: push) and prints `task <n> <state> <ms> <artifact text> <id>`
// for each, then `finished`; every refused push is printed `refused <status> <taskId or -> <why>`. A `stats` line prints `stats <json>` (the receiver's); it exits on `exit`.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { writeSync } from 'node:fs';
import { connect, createPushReceiver } from '@a2a-tether/node';
import { createRedisTaskStore } from '@a2a-tether/node/redis';

const [cardUrl = '', redisUrl = '', prefix = '', hookUrl = '', tasksText = '', name = ''] = process.argv.slice(2);
const say = (line: string): void => void writeSync(1, `${line}\n`);
const SAFETY_POLL_MS = 10 * 60_000;

const receiver = createPushReceiver({
  token: 'receiver-wide-token-the-agent-never-sees',
  onRefused: (error) => say(`refused ${error.status ?? '?'} ${error.taskId ?? '-'} ${error.message}`),
});
const server = createServer(receiver.nodeHandler);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const store = await createRedisTaskStore({ url: redisUrl, prefix });
const client = await connect(cardUrl, { store, leaseOwner: name, cardCache: false, push: { receiver, url: hookUrl, safetyPollMs: SAFETY_POLL_MS } });
say(`listening ${(server.address() as AddressInfo).port}`);

async function run(): Promise<void> {
  const count = Number(tasksText);
  await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const started = Date.now();
      try {
        const handle = await client.start(`stream updates=2 chunks=3 delayMs=150`, { delivery: 'push' });
        const task = await handle.done();
        const text = task.artifacts.flatMap((a) => a.parts).map((p) => (p.kind === 'text' ? p.text : '')).join('');
        say(`task ${n} ${task.status.state} ${Date.now() - started} ${text} ${task.id}`);
      } catch (error) {
        say(`task ${n} error ${Date.now() - started} ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
  );
  say('finished');
}

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'go') void run();
  if (line === 'stats') say(`stats ${JSON.stringify(receiver.stats())}`);
  if (line === 'exit') {
    receiver.close();
    server.closeAllConnections();
    server.close();
    void store.close().then(() => process.exit(0));
  }
});
