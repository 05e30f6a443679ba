// An A2A agent with a WebSocket binding, for testing bindings of your own (`connect(url, { bindings })`):
// a front for an agent (the testkit agent, or any v1.0 JSON-RPC agent) whose card gains a `WEBSOCKET`
// interface first. Over it each text message is a JSON-RPC request, answered by JSON-RPC responses with
// the request's id: one for a unary call; one per event for a stream, then the notification
// `{"jsonrpc":"2.0","method":"stream/end","params":{"id":…}}`. Requests are passed to the agent's v1.0
// JSON-RPC interface over HTTP. It can cut streams (the TCP connection dropped, no close frame).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WsConnection } from './ws-connection.js';

/** Options of {@link startWebSocketAgent}. */
export interface WebSocketAgentOptions {
  /** The agent behind it: its base URL, where its card is (`agent.url` of the testkit agent). */
  target: string;
  /** Cut the connection of a stream once it has carried this many events (see `cutTimes`). Default: never. */
  cutAfterEvents?: number | undefined;
  /** How many streams to cut. Default 1 (with `cutAfterEvents`). */
  cutTimes?: number | undefined;
  /** Changes the card after the WebSocket interface was added (to sign it, say). */
  cardOverride?: ((card: Record<string, unknown>) => unknown) | undefined;
}

/** A running {@link startWebSocketAgent}. */
export interface WebSocketAgent {
  /** The base URL to `connect()` to (its card lists the WebSocket interface first). */
  readonly url: string;
  /** The WebSocket interface's URL (`ws://127.0.0.1:<port>/a2a/ws`). */
  readonly wsUrl: string;
  /** JSON-RPC methods received over WebSocket, in order. */
  readonly methods: string[];
  /** Streams cut so far. */
  readonly cuts: number;
  /** Cut the next `times` streams after `afterEvents` events each. */
  cutStreams(afterEvents: number, times?: number): void;
  close(): Promise<void>;
}

interface Rpc {
  id?: unknown;
  method?: unknown;
}

/** Starts a WebSocket front for the agent at `options.target`, on 127.0.0.1 and a free port. */
export async function startWebSocketAgent(options: WebSocketAgentOptions): Promise<WebSocketAgent> {
  const target = options.target.replace(/\/$/, '');
  const methods: string[] = [];
  const connections = new Set<WsConnection>();
  let cutAfter = options.cutAfterEvents;
  let cutsLeft = options.cutAfterEvents === undefined ? 0 : (options.cutTimes ?? 1);
  let cuts = 0;
  let wsUrl = '';
  let rpcUrl: string | undefined;

  async function card(): Promise<Record<string, unknown>> {
    const response = await fetch(`${target}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    const served = (await response.json()) as Record<string, unknown>;
    const interfaces = Array.isArray(served['supportedInterfaces']) ? (served['supportedInterfaces'] as Array<Record<string, unknown>>) : [];
    rpcUrl = interfaces.find((i) => i['protocolBinding'] === 'JSONRPC' && String(i['protocolVersion']).startsWith('1.'))?.['url'] as string | undefined;
    return { ...served, supportedInterfaces: [{ url: wsUrl, protocolBinding: 'WEBSOCKET', protocolVersion: '1.0' }, ...interfaces] };
  }

  async function relay(ws: WsConnection, text: string, authorization: string | undefined): Promise<void> {
    let request: Rpc;
    try {
      request = JSON.parse(text) as Rpc;
    } catch {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    methods.push(String(request.method));
    if (rpcUrl === undefined) await card();
    const headers: Record<string, string> = { 'Content-Type': 'application/json', 'A2A-Version': '1.0', Accept: 'application/json, text/event-stream' };
    if (authorization) headers['Authorization'] = authorization;
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    ws.closeListeners.add(abort);
    try {
      await forward(ws, request, text, headers, controller);
    } finally {
      ws.closeListeners.delete(abort);
    }
  }

  async function forward(ws: WsConnection, request: Rpc, text: string, headers: Record<string, string>, controller: AbortController): Promise<void> {
    let response: Response;
    try {
      response = await fetch(rpcUrl ?? `${target}/`, { method: 'POST', headers, body: text, signal: controller.signal });
    } catch {
      ws.cut();
      return;
    }
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
      ws.send(await response.text());
      return;
    }
    const cutThis = cutsLeft > 0 ? cutAfter : undefined;
    if (cutThis !== undefined) cutsLeft--;
    let events = 0;
    let pending = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        pending += decoder.decode(chunk, { stream: true });
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.startsWith('data:')) continue;
          if (cutThis !== undefined && events >= cutThis) {
            cuts++;
            controller.abort();
            ws.cut();
            return;
          }
          ws.send(line.slice(5).trim());
          events++;
        }
      }
    } catch {
      ws.cut();
      return;
    }
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'stream/end', params: { id: request.id } }));
  }

  const server = createServer((req, res) => {
    if (req.method === 'GET' && (req.url ?? '').endsWith('agent-card.json')) {
      card()
        .then((c) => (options.cardOverride ? options.cardOverride(c) : c))
        .then((c) => {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(c));
        })
        .catch((error: unknown) => {
          res.writeHead(502, { 'Content-Type': 'text/plain' });
          res.end(String(error));
        });
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not here: A2A calls go over WebSocket (or to the agent behind)');
  });
  server.on('upgrade', (req, socket) => {
    if (!(req.url ?? '').startsWith('/a2a/ws')) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    const ws = WsConnection.accept(req, socket);
    if (!ws) return;
    connections.add(ws);
    const authorization = req.headers.authorization;
    ws.onMessage = (text) => void relay(ws, text, authorization);
    ws.closeListeners.add(() => connections.delete(ws));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  wsUrl = `ws://127.0.0.1:${port}/a2a/ws`;
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl,
    methods,
    get cuts() {
      return cuts;
    },
    cutStreams(afterEvents: number, times = 1) {
      cutAfter = afterEvents;
      cutsLeft = times;
    },
    async close() {
      for (const ws of connections) ws.cut();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
