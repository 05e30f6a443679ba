import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';

export const REDIS_BIN = process.env['TETHER_REDIS_SERVER'] ?? 'redis-server';

/** Whether redis-server can be run here. */
export function redisAvailable(): boolean {
  return spawnSync(REDIS_BIN, ['--version'], { encoding: 'utf8' }).status === 0;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A redis-server that writes every command to its append-only file before answering, so a kill -9 loses nothing acknowledged. */
export interface DurableRedis {
  readonly port: number;
  readonly url: string;
  /** kill -9. */
  kill(): Promise<void>;
  /** Starts it again on the same port and files (after kill). */
  restart(): Promise<void>;
  readonly running: boolean;
  stop(): Promise<void>;
}

async function spawnRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    REDIS_BIN,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
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

/** Starts a durable redis-server on a free port of 127.0.0.1, its files in `dir`. */
export async function startDurableRedis(dir: string): Promise<DurableRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined = await spawnRedis(port, dir);
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
    kill,
    async restart() {
      await kill();
      child = await spawnRedis(port, dir);
    },
    get running() {
      return child !== undefined;
    },
    stop: kill,
  };
}
