import { randomUUID } from 'node:crypto';
import type { PushRelay, RelayedTask } from '../push/push-relay.js';
import { bounded, type CallSite } from './redis-call.js';
import type { RedisStoreClient } from './open-client.js';

/** What the relay needs of a node-redis client beyond the store's commands: raw commands and a second connection. */
export interface RelayCapableClient extends RedisStoreClient {
  sendCommand(args: string[]): Promise<unknown>;
  duplicate(): RelayCapableClient;
}

/** Whether the store's client can carry a relay (node-redis clients can). */
export function canRelay(client: RedisStoreClient): client is RelayCapableClient {
  const c = client as Partial<RelayCapableClient>;
  return typeof c.sendCommand === 'function' && typeof c.duplicate === 'function';
}

const REGISTER = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1`;
/** Deletes the registration only while it still names this inbox (another replica may have taken the task). */
const UNREGISTER = `
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).inbox == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
return 0`;
const HAND_OVER = `redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], '*', 'task', ARGV[1], 'body', ARGV[2]) redis.call('PEXPIRE', KEYS[1], ARGV[4]) return 1`;

/** Options of {@link createRedisPushRelay}. */
export interface RedisPushRelayOptions {
  prefix: string;
  timeoutMs: number;
  /** How long a registration lives without being renewed (ms). Default 24 h. */
  registrationMs?: number | undefined;
  /** Entries an inbox keeps at most (the oldest dropped). Default 10,000. */
  inboxMax?: number | undefined;
  /** Where a broken read of the inbox is reported. */
  onError?: ((error: unknown) => void) | undefined;
}

/**
 * A {@link PushRelay} on Redis: registrations are `{prefix}push-task:{taskId}` (JSON `{ inbox, tokenSha256 }`),
 * inboxes are streams `{prefix}push-inbox:{id}` (one per replica, read with a blocking XREAD on a second
 * connection). A push is acknowledged to the agent only once its XADD is stored.
 */
export function createRedisPushRelay(client: RelayCapableClient, options: RedisPushRelayOptions): PushRelay {
  const { prefix, timeoutMs } = options;
  const registrationMs = String(options.registrationMs ?? 24 * 60 * 60_000);
  const inboxMax = String(options.inboxMax ?? 10_000);
  const inbox = randomUUID();
  const taskKey = (taskId: string): string => `${prefix}push-task:${taskId}`;
  const inboxKey = (id: string): string => `${prefix}push-inbox:${id}`;
  const site = (operation: string, taskId?: string): CallSite => ({ operation: `PushRelay.${operation}`, taskId, writes: operation !== 'lookup' });
  const evaluate = (where: CallSite, script: string, keys: string[], args: string[]): Promise<unknown> => bounded(where, timeoutMs, () => client.eval(script, { keys, arguments: args }));
  let reader: RelayCapableClient | undefined;
  let closed = false;

  return {
    inbox,
    async register(taskId, tokenSha256) {
      await evaluate(site('register', taskId), REGISTER, [taskKey(taskId)], [JSON.stringify({ inbox, ...(tokenSha256 === undefined ? {} : { tokenSha256 }) }), registrationMs]);
    },
    async unregister(taskId) {
      await evaluate(site('unregister', taskId), UNREGISTER, [taskKey(taskId)], [inbox]);
    },
    async lookup(taskId): Promise<RelayedTask | undefined> {
      const raw = await bounded(site('lookup', taskId), timeoutMs, () => client.get(taskKey(taskId)));
      if (raw === null || raw === undefined) return undefined;
      try {
        const parsed = JSON.parse(String(raw)) as Partial<RelayedTask>;
        if (typeof parsed.inbox !== 'string') return undefined;
        return { inbox: parsed.inbox, ...(typeof parsed.tokenSha256 === 'string' ? { tokenSha256: parsed.tokenSha256 } : {}) };
      } catch {
        return undefined;
      }
    },
    async handOver(to, taskId, body) {
      await evaluate(site('handOver', taskId), HAND_OVER, [inboxKey(to)], [taskId, body, inboxMax, registrationMs]);
    },
    listen(deliver) {
      if (reader) return;
      const connection = client.duplicate();
      reader = connection;
      (connection as unknown as { on?: (event: string, listener: () => void) => void }).on?.('error', () => undefined);
      void (async () => {
        // The inbox is this relay's alone (a fresh id): everything in it is for this replica, from the start.
        let last = '0';
        await connection.connect();
        while (!closed) {
          try {
            const reply = (await connection.sendCommand(['XREAD', 'COUNT', '100', 'BLOCK', '1000', 'STREAMS', inboxKey(inbox), last])) as Array<[string, Array<[string, string[]]>]> | null;
            for (const [, entries] of reply ?? []) {
              for (const [id, fields] of entries) {
                last = id;
                const task = fields[fields.indexOf('task') + 1];
                const body = fields[fields.indexOf('body') + 1];
                if (typeof task === 'string' && typeof body === 'string') deliver(task, body);
              }
            }
          } catch (error) {
            if (closed) break;
            options.onError?.(error);
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        }
      })().catch((error: unknown) => options.onError?.(error));
    },
    async close() {
      closed = true;
      const connection = reader;
      reader = undefined;
      if (connection?.isOpen) await connection.close().catch(() => connection.destroy?.());
    },
  };
}
