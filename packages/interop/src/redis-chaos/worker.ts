// One process of the multi-process Redis chaos run (run-redis-chaos.ts), started with tsx:
//   worker.ts <agentUrl> <redisUrl> <prefix> <name> <leaseMs> <maxHeld>
// It shares the Redis task store with the other workers and, every 200 ms, takes what resumeAll() gives it
// (only tasks whose lease it gets). It prints one line per fact, `<kind> <taskId|-> <ms> [detail]`:
//   ready · follow <id> · done <id> <artifact digest> · failed <id> <code> · store-error <id> <code> · unavailable - <code>
import { connect, type A2AClient, type TaskHandle } from '@a2a-tether/node';
import { createRedisTaskStore, type RedisTaskStore } from '@a2a-tether/node/redis';
import { artifactDigest } from './artifact-digest.js';

const [agentUrl = '', redisUrl = '', prefix = '', name = '', lease = '3000', most = '10'] = process.argv.slice(2);
const say = (kind: string, taskId: string, detail = ''): void => void process.stdout.write(`${kind} ${taskId} ${Date.now()}${detail ? ` ${detail}` : ''}\n`);
const codeOf = (error: unknown): string => String((error as { code?: unknown } | null)?.code ?? (error instanceof Error ? error.name : 'unknown'));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The store, once Redis answers (it may be down or cut off when this process starts). */
async function openStore(): Promise<RedisTaskStore> {
  for (;;) {
    try {
      return await createRedisTaskStore({ url: redisUrl, prefix, leaseMs: Number(lease), commandTimeoutMs: 500, connectTimeoutMs: 1_000 });
    } catch (error) {
      say('unavailable', '-', codeOf(error));
      await sleep(250);
    }
  }
}

const store = await openStore();
const client: A2AClient = await connect(agentUrl, { store, cardCache: false, leaseOwner: name, headers: { 'x-tether-worker': name } });
const held = new Set<TaskHandle>();
let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
  for (const handle of held) handle.detach();
  void store.close().finally(() => process.exit(0));
});
say('ready', '-');

function follow(handle: TaskHandle): void {
  const id = handle.taskId ?? '';
  held.add(handle);
  say('follow', id);
  void (async () => {
    for await (const event of handle.events()) if (event.type === 'store-error') say('store-error', id, event.error.code);
  })().catch(() => undefined);
  handle.done().then(
    (task) => say('done', id, artifactDigest(task)),
    (error: unknown) => say('failed', id, codeOf(error)),
  ).finally(() => held.delete(handle));
}

while (!stopping) {
  try {
    for (const handle of await client.resumeAll({ limit: Math.max(0, Number(most) - held.size) })) follow(handle);
  } catch (error) {
    say('unavailable', '-', codeOf(error));
  }
  await sleep(200);
}
