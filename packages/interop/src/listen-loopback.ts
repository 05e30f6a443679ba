import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';

export interface LoopbackListener {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Closes the listener and destroys every connection, including open SSE responses. */
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 with an OS-assigned port, so parallel test files never collide. */
export async function listenOnLoopback(app: RequestListener): Promise<LoopbackListener> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // close() alone waits for every keep-alive socket and never-ending SSE body.
        server.closeAllConnections();
      }),
  };
}
