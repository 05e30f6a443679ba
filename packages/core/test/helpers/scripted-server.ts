import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request the scripted server received. */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export type Handler = (req: IncomingMessage & { body: string }, res: ServerResponse) => void | Promise<void>;

/** A real node:http server on 127.0.0.1:0 whose answers each test scripts by hand (faults included). */
export interface ScriptedServer {
  url: string;
  origin: string;
  requests: Received[];
  /** Handlers by `METHOD /path` (query ignored) or by path; the first match wins. */
  on(route: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const routes: [string, Handler][] = [];
  const requests: Received[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      answerRequestId(body, res);
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      const match = routes.find(([route]) => route === `${req.method} ${path}` || route === path);
      if (!match) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no route');
        return;
      }
      Promise.resolve(match[1](Object.assign(req, { body }), res)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    origin,
    requests,
    on(route, handler) {
      routes.unshift([route, handler]);
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Stands for "the id of the JSON-RPC request being answered" in frames and bodies a test writes. */
export const RPC_ID = '$rpc-id';
const RPC_ID_JSON = JSON.stringify(RPC_ID);

/** Replaces {@link RPC_ID} in everything written to `res` with the id of the JSON-RPC request in `body`. */
function answerRequestId(body: string, res: ServerResponse): void {
  let id: unknown;
  try {
    id = (JSON.parse(body) as { id?: unknown }).id;
  } catch {
    return;
  }
  if (id === undefined) return;
  const real = JSON.stringify(id);
  const patch = (chunk: unknown): unknown => (typeof chunk === 'string' ? chunk.split(RPC_ID_JSON).join(real) : chunk);
  const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
  Object.assign(res, {
    write: (chunk: unknown, ...rest: unknown[]) => write(patch(chunk), ...rest),
    end: (chunk?: unknown, ...rest: unknown[]) => end(patch(chunk), ...rest),
  });
}

/** Writes a JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** Writes an SSE answer made of raw text frames, then ends it (unless `keepOpen`). */
export function sse(res: ServerResponse, frames: string[], keepOpen = false): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const f of frames) res.write(f);
  if (!keepOpen) res.end();
}

/** A `data:` frame holding a JSON-RPC result. */
export function rpcFrame(result: unknown, id: number | string = RPC_ID): string {
  return `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
}

/** A minimal v1 card pointing at this server. */
export function v1Card(origin: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'scripted',
    description: 'scripted test agent',
    version: '1',
    supportedInterfaces: [
      { url: `${origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${origin}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    ...extra,
  };
}
