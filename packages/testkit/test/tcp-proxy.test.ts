import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../src/index.js';

// An echo server behind the proxy: what a client sends comes back.
async function echoServer(): Promise<Server> {
  const server = createServer((socket) => socket.pipe(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** Resolves with what the socket received once `bytes` bytes arrived, or with what it had after `ms`. */
function receive(socket: Socket, bytes: number, ms = 2_000): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(got);
    };
    const onData = (chunk: Buffer): void => {
      got += chunk.toString();
      if (got.length >= bytes) done();
    };
    const timer = setTimeout(done, ms);
    socket.on('data', onData);
  });
}

/** Resolves when the socket closes (an RST is an 'error' first: `events.once` would reject on it). */
const closed = (socket: Socket): Promise<void> => new Promise((resolve) => socket.once('close', () => resolve()));

describe('startTcpProxy', () => {
  const cleanup: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function setup(maxHeldBytes?: number): Promise<{ proxy: TcpProxy; client: Socket }> {
    const server = await echoServer();
    cleanup.push(() => new Promise((resolve) => server.close(resolve)));
    const proxy = await startTcpProxy({ target: { host: '127.0.0.1', port: (server.address() as AddressInfo).port }, maxHeldBytes });
    cleanup.push(() => proxy.close());
    const client = connect(proxy.port, '127.0.0.1');
    client.on('error', () => undefined);
    cleanup.push(() => client.destroy());
    await once(client, 'connect');
    return { proxy, client };
  }

  it('forwards both ways', async () => {
    const { proxy, client } = await setup();
    client.write('hello');
    expect(await receive(client, 5)).toBe('hello');
    expect(proxy.stats()).toMatchObject({ accepted: 1, open: 1, reset: 0 });
  });

  it('a partition holds what is sent, keeps the connection open, and delivers it in order when it heals', async () => {
    const { proxy, client } = await setup();
    proxy.cutLink('partition');
    client.write('one,');
    client.write('two');
    expect(await receive(client, 1, 200)).toBe('');
    expect(client.destroyed).toBe(false);
    const arrived = receive(client, 7);
    proxy.heal();
    expect(await arrived).toBe('one,two');
  });

  it('a partition resets a connection that sends more than maxHeldBytes meanwhile', async () => {
    const { proxy, client } = await setup(8);
    proxy.cutLink('partition');
    const gone = closed(client);
    client.write('more than eight bytes');
    await gone;
    expect(proxy.stats()).toMatchObject({ reset: 1, open: 0 });
  });

  it('a reset closes open connections and every new one until it heals', async () => {
    const { proxy, client } = await setup();
    const gone = closed(client);
    proxy.cutLink('reset');
    await gone;
    const again = connect(proxy.port, '127.0.0.1');
    again.on('error', () => undefined);
    await closed(again);
    proxy.heal();
    const healed = connect(proxy.port, '127.0.0.1');
    cleanup.push(() => healed.destroy());
    await once(healed, 'connect');
    healed.write('back');
    expect(await receive(healed, 4)).toBe('back');
    expect(proxy.stats().reset).toBe(2);
  });
});
