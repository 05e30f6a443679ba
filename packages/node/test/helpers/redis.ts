// A real redis-server for the Redis tests (the testkit's startRedisServer), started on a free port of
// 127.0.0.1 without persistence; without one, the tests fail under CI=true and are skipped otherwise.
import type { ChildProcess } from 'node:child_process';
import { redisServerAvailable, startRedisServer } from '@a2a-tether/testkit';
import { it } from 'vitest';

export const available = redisServerAvailable();
const MISSING = 'redis-server not found: install it with `apt-get install -y redis-server` (or set TETHER_REDIS_SERVER)';

/** Without redis-server: a failing test under CI=true, a warning otherwise (call at a file's top level). */
export function requireRedis(what: string): void {
  if (available) return;
  if (process.env['CI'] === 'true') {
    it('redis-server is installed (required when CI=true)', () => {
      throw new Error(MISSING);
    });
  } else {
    console.warn(`⚠ skipping ${what}: ${MISSING}`);
  }
}

/**
 * Starts redis-server without persistence, on `port` (default: a free one, e.g. the port of one that was
 * killed, to start it again); resolves once it accepts connections (at most 10 s).
 */
export async function startRedis(port?: number): Promise<{ url: string; process: ChildProcess }> {
  const server = await startRedisServer({ port });
  return { url: server.url, process: server.process as ChildProcess };
}
