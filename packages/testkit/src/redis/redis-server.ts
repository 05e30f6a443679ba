import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

/** The redis-server binary the testkit starts: `TETHER_REDIS_SERVER`, else `redis-server` on the PATH. */
export function redisServerBinary(): string {
  return process.env['TETHER_REDIS_SERVER'] ?? 'redis-server';
}

/** Whether `redis-server` can be run here. */
export function redisServerAvailable(): boolean {
  return spawnSync(redisServerBinary(), ['--version'], { encoding: 'utf8' }).status === 0;
}

/** A port of 127.0.0.1 that nothing listens on right now (taken, then freed). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Options of {@link startRedisServer}. */
export interface RedisServerOptions {
  /** The port (default: a free one). */
  port?: number | undefined;
  /**
   * A directory for an append-only file written with `appendfsync always`, so a `kill()` (SIGKILL) loses
   * nothing Redis acknowledged and `restart()` brings the data back. Default: no persistence at all.
   */
  durableIn?: string | undefined;
}

/** A redis-server of a test's own (see {@link startRedisServer}). */
export interface RedisServer extends AsyncDisposable {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** The running process (undefined between `kill()` and `restart()`). */
  readonly process: ChildProcess | undefined;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /** Starts it again on the same port (and, when durable, the same files). */
  restart(): Promise<void>;
  /** Stops it for good. */
  stop(): Promise<void>;
}

async function spawnRedis(port: number, durableIn: string | undefined): Promise<ChildProcess> {
  const persistence = durableIn === undefined ? ['--save', '', '--appendonly', 'no'] : ['--dir', durableIn, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'];
  const child = spawn(redisServerBinary(), ['--port', String(port), '--bind', '127.0.0.1', ...persistence], { stdio: ['ignore', 'pipe', 'pipe'] });
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
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
  return child;
}

/**
 * Starts a `redis-server` on 127.0.0.1 for a test (Debian's `redis-server` package, or the binary
 * `TETHER_REDIS_SERVER` names); resolves once it accepts connections (at most 10 s). For tests of a
 * Redis task store under faults: `kill()` it, `restart()` it, and with `durableIn` keep its data across.
 *
 * @example
 * ```ts
 * await using redis = await startRedisServer();
 * const store = await createRedisTaskStore({ url: redis.url });
 * ```
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  let child: ChildProcess | undefined = await spawnRedis(port, options.durableIn);
  const kill = async (): Promise<void> => {
    const current = child;
    child = undefined;
    if (!current || current.exitCode !== null || current.signalCode !== null) return;
    current.kill('SIGKILL');
    await once(current, 'exit');
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get process() {
      return child;
    },
    kill,
    async restart() {
      await kill();
      child = await spawnRedis(port, options.durableIn);
    },
    stop: kill,
    [Symbol.asyncDispose]: kill,
  };
}
