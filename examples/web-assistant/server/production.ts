/**
 * The production server: the built page (dist/) and the same relay as in development, on one origin.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { relayMiddleware } from './relay.js';

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

/** Serves `dist` and the relay to the agent at `agentUrl`; anything else is a 404. Listens on `port` (0: any). */
export async function startProductionServer(dist: string, agentUrl: string, port = 0): Promise<Server> {
  const relay = relayMiddleware(agentUrl);
  const server = createServer((req, res) => {
    relay(req, res, () => {
      const path = normalize(new URL(req.url ?? '/', 'http://x').pathname).replace(/^([/\\])+/, '');
      const file = join(dist, path === '' ? 'index.html' : path);
      if (!file.startsWith(dist)) return void res.writeHead(404).end();
      readFile(file).then(
        (body) => res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body),
        () => res.writeHead(404).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}
