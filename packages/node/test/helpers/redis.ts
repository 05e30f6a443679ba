// A real redis-server for the Redis tests, started on a free port of 127.0.0.1 without persistence.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { it } from 'vitest';

export const REDIS_BIN = process.env['TETHER_REDIS_SERVER'] ?? 'redis-server';
export const available = spawnSync(REDIS_BIN, ['--version'], { encoding: 'utf8' }).status === 0;
const MISSING = `redis-server not found (${REDIS_BIN}): install it with \`apt-get install -y redis-server\` (or set TETHER_REDIS_SERVER)`;

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


async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts redis-server without persistence, on `port` (default: a free one, e.g. the port of one that was
 * killed, to start it again); resolves once it accepts connections (at most 10 s).
 */
export async function startRedis(port?: number): Promise<{ url: string; process: ChildProcess }> {
  port ??= await freePort();
  const child = spawn(REDIS_BIN, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s:\n${output}`)), 10_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  return { url: `redis://127.0.0.1:${port}`, process: child };
}

