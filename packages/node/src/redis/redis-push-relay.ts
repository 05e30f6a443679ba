import { randomUUID } from 'node:crypto';
import { refusal, type Verdict } from '../push/push-answer.js';
import { decodeRelayed, encodeRelayed, verdictOf, type PushRelay, type RelayedPush, type RelayRegistration, type TokenEntry } from '../push/push-relay.js';
import { bounded, type CallSite } from './redis-call.js';
import type { RedisStoreClient } from './open-client.js';

/** What the relay needs of a node-redis client beyond the store's commands: raw commands and more connections. */
export interface RelayCapableClient extends RedisStoreClient {
  sendCommand(args: string[]): Promise<unknown>;
  duplicate(): RelayCapableClient;
}

/** Whether the store's client can carry a relay (node-redis clients can). */
export function canRelay(client: RedisStoreClient): client is RelayCapableClient {
  const c = client as Partial<RelayCapableClient>;
  return typeof c.sendCommand === 'function' && typeof c.duplicate === 'function';
}

/** The defaults of {@link createRedisPushRelay}. */
export const REDIS_PUSH_RELAY_DEFAULTS = {
  /** How often a replica re-writes its registrations and its liveness (ms): a registration lost with Redis's data is back within it. */
  renewMs: 15_000,
  /** How long a replica waits for the verdict of the replica it handed a push to (ms); none → 503. */
  handOverMs: 2_000,
  /** Pushes an inbox holds unread at most; beyond → 503. */
  inboxMaxEntries: 1_000,
  /** Bytes an inbox holds unread at most; beyond → 503. 32 MiB. */
  inboxMaxBytes: 32 * 1024 * 1024,
  /** How long a forgotten token's registration is remembered as gone (ms), so its late pushes are answered 410. */
  goneMs: 300_000,
} as const;

const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
/** KEYS: liveness, then registrations; ARGV: liveness ms, registration ms, inbox, then per registration its JSON (a token's) or '' (a task's field). */
const REGISTER = `${NOW}
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
for i = 2, #KEYS do
  local value = ARGV[i + 2]
  if value == '' then
    redis.call('HSET', KEYS[i], ARGV[3], now + tonumber(ARGV[2]))
    if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
  else
    redis.call('SET', KEYS[i], value, 'PX', ARGV[2])
  end
end
return 1`;
/** A token's registration becomes a tombstone (only while it is this inbox's); a task's field is removed. */
const UNREGISTER = `
if ARGV[2] == 'task' then return redis.call('HDEL', KEYS[1], ARGV[1]) end
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).inbox == ARGV[1] then redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4]) return 1 end
return 0`;
/** The inboxes whose registration of a task is live (the others are removed). */
const FIND_TASK = `${NOW}
local fields = redis.call('HGETALL', KEYS[1])
local live = {}
for i = 1, #fields, 2 do
  if tonumber(fields[i + 1]) > now then table.insert(live, fields[i]) else redis.call('HDEL', KEYS[1], fields[i]) end
end
return live`;
/** KEYS: the owner's liveness, inbox, inbox bytes; ARGV: the entry, max entries, max bytes, ms to keep. 0: no live owner; -1: full. */
const HAND_OVER = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local length = redis.call('LLEN', KEYS[2])
if length == 0 then redis.call('DEL', KEYS[3]) end
local size = string.len(ARGV[1])
if length >= tonumber(ARGV[2]) or tonumber(redis.call('GET', KEYS[3]) or '0') + size > tonumber(ARGV[3]) then return -1 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('INCRBY', KEYS[3], size)
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return 1`;
/** An entry taken: its bytes leave the count (which goes when the inbox is empty). */
const TAKEN = `if redis.call('LLEN', KEYS[1]) == 0 then redis.call('DEL', KEYS[2]) else redis.call('DECRBY', KEYS[2], ARGV[1]) end return 1`;
/** A hand-over nobody answered in time is taken back, if still unread. */
const WITHDRAW = `if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 1 then redis.call('DECRBY', KEYS[2], string.len(ARGV[1])) return 1 end return 0`;
const REPLY = `redis.call('RPUSH', KEYS[1], ARGV[1]) redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1) redis.call('PEXPIRE', KEYS[1], ARGV[3]) return 1`;

/** Options of {@link createRedisPushRelay}; the rest default to {@link REDIS_PUSH_RELAY_DEFAULTS}. */
export interface RedisPushRelayOptions {
  prefix: string;
  timeoutMs: number;
  renewMs?: number | undefined;
  handOverMs?: number | undefined;
  inboxMaxEntries?: number | undefined;
  inboxMaxBytes?: number | undefined;
  goneMs?: number | undefined;
  /** Where a broken read of the inbox, or a failed renewal, is reported. */
  onError?: ((error: unknown) => void) | undefined;
}

const RENEW_BATCH = 200;

/**
 * A {@link PushRelay} on Redis. Keys under `prefix`: `push-token:{sha256}` (JSON `{ inbox, taskId? }`, or a
 * tombstone `{ gone, taskId? }` for `goneMs` once forgotten), `push-task:{taskId}` (a hash: inbox → until
 * when, for registrations without a token), `push-alive:{inbox}` (the replica is live), `push-inbox:{inbox}`
 * (a list of handed-over pushes, each taken — and so removed — as it is read; at most `inboxMaxEntries` and
 * `inboxMaxBytes`), `push-reply:{inbox}` (the verdicts coming back). Registrations and liveness are written
 * again every `renewMs` and live `4 × renewMs` (liveness `3 × renewMs`), so a replica's registrations
 * leave with it and come back after Redis lost them. Two blocking connections read the inbox and the replies.
 */
export function createRedisPushRelay(client: RelayCapableClient, options: RedisPushRelayOptions): PushRelay {
  const { prefix, timeoutMs } = options;
  const d = REDIS_PUSH_RELAY_DEFAULTS;
  const renewMs = options.renewMs ?? d.renewMs;
  const [aliveMs, registrationMs] = [String(3 * renewMs), String(4 * renewMs)];
  const handOverMs = options.handOverMs ?? d.handOverMs;
  const limits = [String(options.inboxMaxEntries ?? d.inboxMaxEntries), String(options.inboxMaxBytes ?? d.inboxMaxBytes), aliveMs];
  const goneMs = String(options.goneMs ?? d.goneMs);
  const inbox = randomUUID();
  const key = {
    token: (sha: string): string => `${prefix}push-token:${sha}`,
    task: (taskId: string): string => `${prefix}push-task:${taskId}`,
    alive: (id: string): string => `${prefix}push-alive:${id}`,
    inbox: (id: string): string => `${prefix}push-inbox:${id}`,
    bytes: (id: string): string => `${prefix}push-inbox-bytes:${id}`,
    reply: (id: string): string => `${prefix}push-reply:${id}`,
  };
  const site = (operation: string, taskId?: string): CallSite => ({ operation: `PushRelay.${operation}`, taskId, writes: !operation.startsWith('find') });
  const evaluate = (where: CallSite, script: string, keys: string[], args: string[]): Promise<unknown> => bounded(where, timeoutMs, () => client.eval(script, { keys, arguments: args }));
  const report = (error: unknown): void => options.onError?.(error);
  /** What this replica holds: registration key → what REGISTER writes there. */
  const live = new Map<string, string>();
  const waiting = new Map<string, (verdict: Verdict | undefined) => void>();
  const readers: RelayCapableClient[] = [];
  let renewal: ReturnType<typeof setInterval> | undefined;
  let replies = false;
  let serving = false;
  let closed = false;

  const entryOf = (registration: RelayRegistration): [string, string] | undefined => {
    if (registration.tokenSha256 !== undefined) return [key.token(registration.tokenSha256), JSON.stringify({ inbox, ...(registration.taskId === undefined ? {} : { taskId: registration.taskId }) })];
    return registration.taskId === undefined ? undefined : [key.task(registration.taskId), ''];
  };
  const write = (entries: Array<[string, string]>): Promise<unknown> =>
    evaluate(site('register'), REGISTER, [key.alive(inbox), ...entries.map(([k]) => k)], [aliveMs, registrationMs, inbox, ...entries.map(([, v]) => v)]);
  const renew = async (): Promise<void> => {
    const entries = [...live];
    for (let i = 0; i === 0 || i < entries.length; i += RENEW_BATCH) await write(entries.slice(i, i + RENEW_BATCH));
  };
  const startRenewing = (): void => {
    if (renewal !== undefined || closed) return;
    renewal = setInterval(() => void renew().catch(report), renewMs);
    renewal.unref();
  };

  /** Reads `list` with a blocking pop on a connection of its own until closed, handing each entry to `take`. */
  const readLoop = (list: string, take: (entry: string) => void): void => {
    const connection = client.duplicate();
    readers.push(connection);
    (connection as unknown as { on?: (event: string, listener: () => void) => void }).on?.('error', () => undefined);
    void (async () => {
      await connection.connect();
      while (!closed) {
        try {
          const popped = (await connection.sendCommand(['BLPOP', list, '1'])) as [string, string] | null;
          if (popped !== null) take(popped[1]);
        } catch (error) {
          if (closed) break;
          report(error);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    })().catch(report);
  };

  return {
    inbox,
    async register(registration) {
      const entry = entryOf(registration);
      if (entry === undefined || closed) return;
      live.set(entry[0], entry[1]);
      startRenewing();
      await write([entry]);
    },
    async unregister(registration) {
      const entry = entryOf(registration);
      if (entry === undefined || !live.delete(entry[0])) return;
      const token = registration.tokenSha256 !== undefined;
      const tombstone = JSON.stringify({ gone: true, ...(registration.taskId === undefined ? {} : { taskId: registration.taskId }) });
      await evaluate(site('unregister', registration.taskId), UNREGISTER, [entry[0]], [inbox, token ? 'token' : 'task', tombstone, goneMs]);
    },
    async findToken(sha): Promise<TokenEntry | undefined> {
      const raw = await bounded(site('findToken'), timeoutMs, () => client.get(key.token(sha)));
      if (raw === null || raw === undefined) return undefined;
      try {
        const parsed = JSON.parse(String(raw)) as { inbox?: unknown; taskId?: unknown; gone?: unknown };
        const taskId = typeof parsed.taskId === 'string' ? parsed.taskId : undefined;
        if (parsed.gone === true) return { gone: true, taskId };
        return typeof parsed.inbox === 'string' ? { inbox: parsed.inbox, taskId } : undefined;
      } catch {
        return undefined;
      }
    },
    async findTask(taskId) {
      const found = await evaluate(site('findTask', taskId), FIND_TASK, [key.task(taskId)], []);
      return Array.isArray(found) ? found.map(String) : [];
    },
    async handOver(to, push: RelayedPush) {
      if (!replies) {
        replies = true;
        readLoop(key.reply(inbox), (entry) => {
          try {
            const { req, verdict } = JSON.parse(entry) as { req?: unknown; verdict?: unknown };
            if (typeof req === 'string') waiting.get(req)?.(verdictOf(verdict));
          } catch {
            // not a reply of this relay's: nobody waits for it
          }
        });
      }
      const req = randomUUID();
      const entry = `${JSON.stringify({ from: inbox, req })}\n${encodeRelayed(push)}`;
      const answered = new Promise<Verdict | undefined>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(req);
          // Nobody answered in time: take the push back if it is still unread, so it is not delivered after a 503.
          void evaluate(site('handOver', push.taskId), WITHDRAW, [key.inbox(to), key.bytes(to)], [entry]).catch(report);
          resolve(undefined);
        }, handOverMs);
        waiting.set(req, (verdict) => {
          clearTimeout(timer);
          waiting.delete(req);
          resolve(verdict);
        });
      });
      const stored = await evaluate(site('handOver', push.taskId), HAND_OVER, [key.alive(to), key.inbox(to), key.bytes(to)], [entry, ...limits]).catch((error: unknown) => {
        waiting.get(req)?.(undefined);
        throw error;
      });
      if (stored === -1) {
        waiting.get(req)?.(undefined);
        return refusal(503, 'the inbox of the replica following the task is full', { taskId: push.taskId, retryAfterSec: 1 });
      }
      if (stored !== 1) waiting.get(req)?.(undefined); // no live replica holds that inbox
      return answered;
    },
    serve(admit) {
      if (serving || closed) return;
      serving = true;
      startRenewing();
      void write([]).catch(report); // liveness, at once
      readLoop(key.inbox(inbox), (entry) => {
        void evaluate(site('serve'), TAKEN, [key.inbox(inbox), key.bytes(inbox)], [String(Buffer.byteLength(entry, 'utf8'))]).catch(report);
        const newline = entry.indexOf('\n');
        let route: { from?: unknown; req?: unknown };
        try {
          route = JSON.parse(entry.slice(0, newline)) as typeof route;
        } catch {
          return;
        }
        const push = decodeRelayed(entry.slice(newline + 1));
        if (typeof route.from !== 'string' || typeof route.req !== 'string') return;
        const verdict = push === undefined ? refusal(400, 'a corrupted hand-over') : admit(push);
        const answer = JSON.stringify({ req: route.req, verdict });
        void evaluate(site('serve'), REPLY, [key.reply(route.from)], [answer, limits[0] as string, aliveMs]).catch(report);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      if (renewal !== undefined) clearInterval(renewal);
      for (const resolve of [...waiting.values()]) resolve(undefined);
      const registrations = [...live.keys()];
      await Promise.allSettled([
        evaluate(site('close'), `return redis.call('DEL', KEYS[1])`, [key.alive(inbox)], []),
        ...registrations.map((k) => evaluate(site('close'), UNREGISTER, [k], [inbox, k.startsWith(key.task('')) ? 'task' : 'token', '{"gone":true}', goneMs])),
      ]);
      live.clear();
      for (const connection of readers.splice(0)) if (connection.isOpen) await connection.close().catch(() => connection.destroy?.());
    },
  };
}
