import { once } from 'node:events';
import { createServer, connect as connectTcp, type AddressInfo, type Socket } from 'node:net';

/**
 * How a {@link TcpProxy} cuts its link:
 * - `reset`: every open connection is destroyed and new ones are closed at once (a crashed peer, a
 *   firewall that rejects) — the client sees errors and reconnects;
 * - `partition`: connections stay open but nothing passes either way (a cable pulled, a firewall that
 *   drops) — the client waits. What was sent meanwhile is held, up to `maxHeldBytes` per connection, and
 *   delivered when the link heals, as TCP delivers a stalled segment late; past that the connection is reset.
 */
export type TcpCut = 'reset' | 'partition';

/** Options of {@link startTcpProxy}. */
export interface TcpProxyOptions {
  /** Where connections go, e.g. `{ host: '127.0.0.1', port: 6379 }`. */
  target: { host: string; port: number };
  /** Bytes held per connection and direction during a `partition` before it is reset. Default 1 MiB. */
  maxHeldBytes?: number | undefined;
  /**
   * Resets connection number `n` (0-based, in the order accepted) once it relayed this many bytes from the
   * target to the client — a link that breaks mid-response (e.g. inside a gRPC stream); `undefined`: never.
   * Exactly that many bytes are delivered, then the connection is reset.
   */
  resetAfterBytes?: ((connection: number) => number | undefined) | undefined;
}

/** What a {@link TcpProxy} has seen. */
export interface TcpProxyStats {
  /** Connections accepted. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** Connections reset by a cut (or by too much held data, or by `resetAfterBytes`). */
  readonly reset: number;
  /** Of those, the resets `resetAfterBytes` planned. */
  readonly plannedResets: number;
}

/** A TCP proxy on 127.0.0.1 whose link a test cuts and heals (see {@link startTcpProxy}). */
export interface TcpProxy extends AsyncDisposable {
  readonly port: number;
  /** `127.0.0.1:<port>`, to put in a URL (`redis://${proxy.address}`). */
  readonly address: string;
  /** Whether the link is cut, and how. */
  readonly cut: TcpCut | undefined;
  /** Cuts the link (see {@link TcpCut}). */
  cutLink(how: TcpCut): void;
  /** Lets traffic through again; a `partition`'s held bytes are delivered first, in order. */
  heal(): void;
  stats(): TcpProxyStats;
  close(): Promise<void>;
}

interface Pipe {
  /** Downstream bytes left before a planned reset (`resetAfterBytes`), if one is planned. */
  budget: number | undefined;
  client: Socket;
  upstream: Socket;
  /** Held while partitioned: to the upstream, to the client. */
  held: [Buffer[], Buffer[]];
  heldBytes: [number, number];
}

/**
 * Starts a TCP proxy to `options.target` on a free port of 127.0.0.1, for tests of what a process does
 * when cut off from a server it depends on (a Redis, an agent) while both stay alive.
 *
 * @example
 * ```ts
 * const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: 6379 } });
 * const store = await createRedisTaskStore({ url: `redis://${proxy.address}` });
 * proxy.cutLink('partition'); // … the process is alive but cut off
 * proxy.heal();
 * ```
 */
export async function startTcpProxy(options: TcpProxyOptions): Promise<TcpProxy> {
  const maxHeld = options.maxHeldBytes ?? 1024 * 1024;
  const pipes = new Set<Pipe>();
  let cut: TcpCut | undefined;
  let accepted = 0;
  let reset = 0;
  let planned = 0;

  const destroy = (pipe: Pipe): void => {
    if (!pipes.delete(pipe)) return;
    pipe.client.destroy();
    pipe.upstream.destroy();
  };
  const resetPipe = (pipe: Pipe): void => {
    if (!pipes.has(pipe)) return;
    reset += 1;
    // An RST rather than a FIN where the platform allows: the peer sees a broken link, not a goodbye.
    pipe.client.resetAndDestroy?.();
    pipe.upstream.resetAndDestroy?.();
    destroy(pipe);
  };
  const forward = (pipe: Pipe, direction: 0 | 1, chunk: Buffer): void => {
    if (cut === 'partition') {
      pipe.held[direction].push(chunk);
      pipe.heldBytes[direction] += chunk.length;
      if (pipe.heldBytes[direction] > maxHeld) resetPipe(pipe);
      return;
    }
    if (direction === 1 && pipe.budget !== undefined) {
      const left = pipe.budget;
      pipe.budget -= chunk.length;
      if (pipe.budget <= 0) {
        // Deliver up to the planned byte (mid-frame, as a link breaks), then reset.
        pipe.budget = undefined;
        planned += 1;
        if (left > 0) pipe.client.write(chunk.subarray(0, left), () => resetPipe(pipe));
        else resetPipe(pipe);
        return;
      }
    }
    (direction === 0 ? pipe.upstream : pipe.client).write(chunk);
  };

  const server = createServer((client) => {
    accepted += 1;
    if (cut === 'reset') {
      reset += 1;
      client.resetAndDestroy?.();
      client.destroy();
      return;
    }
    const upstream = connectTcp(options.target.port, options.target.host);
    const pipe: Pipe = { budget: options.resetAfterBytes?.(accepted - 1), client, upstream, held: [[], []], heldBytes: [0, 0] };
    pipes.add(pipe);
    client.on('data', (chunk: Buffer) => forward(pipe, 0, chunk));
    upstream.on('data', (chunk: Buffer) => forward(pipe, 1, chunk));
    for (const socket of [client, upstream]) {
      socket.on('error', () => destroy(pipe));
      socket.on('close', () => destroy(pipe));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const proxy: TcpProxy = {
    port,
    address: `127.0.0.1:${port}`,
    get cut() {
      return cut;
    },
    cutLink(how) {
      cut = how;
      if (how === 'reset') for (const pipe of [...pipes]) resetPipe(pipe);
    },
    heal() {
      cut = undefined;
      for (const pipe of pipes) {
        for (const direction of [0, 1] as const) {
          const target = direction === 0 ? pipe.upstream : pipe.client;
          for (const chunk of pipe.held[direction]) target.write(chunk);
          pipe.held[direction] = [];
          pipe.heldBytes[direction] = 0;
        }
      }
    },
    stats: () => ({ accepted, open: pipes.size, reset, plannedResets: planned }),
    async close() {
      for (const pipe of [...pipes]) destroy(pipe);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async [Symbol.asyncDispose]() {
      await proxy.close();
    },
  };
  return proxy;
}
