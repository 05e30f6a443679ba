import { redact, TetherError } from '@a2a-tether/core';
import { createClient } from 'redis';
import { bounded, type CallSite } from './redis-call.js';

/**
 * The commands the Redis stores send, as node-redis (`redis` v5) clients offer them: any client from
 * `createClient()` fits, whatever modules, scripts or functions it was created with.
 */
export interface RedisStoreClient {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  /** Drops the connection at once (used when a client the store created cannot connect in time). */
  destroy?(): void;
  get(key: string): Promise<unknown>;
  mGet(keys: string[]): Promise<unknown>;
  sMembers(key: string): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** A positive whole number of ms from an option, or the default; anything else is `INVALID_ARGUMENT` naming `factory`. */
export function positiveInteger(value: number | undefined, fallback: number, name: string, factory: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new TetherError('INVALID_ARGUMENT', `${factory}: ${name} must be a positive whole number of ms, got ${String(value)}`, { maybeDelivered: false });
  }
  return value;
}

/**
 * The store's client: `client` as given (connected if it is not open yet, never closed by the store), or
 * one created from `url` with an offline queue off (while Redis is unreachable a command fails at once)
 * and owned by the store. Rejects with `STORE_UNAVAILABLE` when it cannot connect within `connectTimeoutMs`.
 */
export async function openRedisClient(
  options: { url?: string | undefined; client?: RedisStoreClient | undefined },
  connectTimeoutMs: number,
  factory: string,
): Promise<{ client: RedisStoreClient; owned: boolean }> {
  let client: RedisStoreClient;
  const owned = options.client === undefined;
  if (options.client !== undefined) {
    client = options.client;
  } else {
    const created = createClient({
      ...(options.url === undefined ? {} : { url: options.url }),
      // While disconnected, a command fails at once: the store answers STORE_UNAVAILABLE, it does not queue.
      disableOfflineQueue: true,
      socket: { connectTimeout: Math.min(connectTimeoutMs, 10_000), reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, 2_000) },
    });
    // Failed commands reject on their own and the client reconnects by itself; without a listener
    // a connection error would crash the process.
    created.on('error', () => undefined);
    client = created;
  }
  if (!client.isOpen) {
    const where = options.url === undefined ? 'Redis' : `Redis at ${redact(options.url)}`;
    // node-redis's own connect() retries without end while Redis is down: bounded here.
    const site: CallSite = { operation: `${factory} (${where})`, writes: false };
    try {
      await bounded(site, connectTimeoutMs, () => client.connect(), `could not connect within ${connectTimeoutMs} ms`);
    } catch (error) {
      if (owned) client.destroy?.();
      throw error;
    }
  }
  return { client, owned };
}
