import type { ServerResponse } from 'node:http';
import { ManualScheduler } from '@a2a-tether/testkit';
import { connect, taskKey, type A2AClient, type ConnectOptions, type TaskEvent, type TaskHandle } from '../../src/index.js';
import { json, rpcFrame, startScriptedServer, v1Card, type ScriptedServer } from './scripted-server.js';

/** One JSON-RPC request the scripted agent received. */
export interface Rpc {
  id: number;
  method: string;
  params: Record<string, unknown>;
}

/** A request as the agent saw it, stamped with the engine's (virtual) clock. */
export interface Call {
  method: string;
  at: number;
  rpc: Rpc;
}

export type RpcHandler = (rpc: Rpc, res: ServerResponse) => void;

/**
 * A v1.0 JSON-RPC agent whose every answer a test scripts by hand, with a manual clock for the
 * client: misbehaviours are written out per test, and every request is logged with the virtual time
 * it arrived at (so a test can assert the request-rate ceiling).
 */
export interface ScriptedAgent {
  server: ScriptedServer;
  clock: ManualScheduler;
  handlers: Record<string, RpcHandler>;
  calls: Call[];
  /** Calls of one method. */
  count(method: string): number;
  /** The most requests (of the given methods, default all but sends) in any window of `windowMs` virtual ms. */
  worstWindow(windowMs?: number, methods?: (m: string) => boolean): number;
  /** A client on this agent (small delays so tests stay short; override per test). */
  client(extra?: ConnectOptions): Promise<A2AClient>;
  /** The store key of this agent's task `taskId` (default {@link T}): `taskKey(card URL, taskId)`. */
  key(taskId?: string): string;
  /** Answers with SSE frames; `end` false keeps the response open (closed when the test ends). */
  sse(res: ServerResponse, frames: string[], end: boolean): void;
  close(): Promise<void>;
}

export async function startScriptedAgent(version: '1.0' | '0.3' = '1.0'): Promise<ScriptedAgent> {
  const server = await startScriptedServer();
  const clock = new ManualScheduler();
  const handlers: Record<string, RpcHandler> = {};
  const calls: Call[] = [];
  const open: ServerResponse[] = [];
  server.on('GET /.well-known/agent-card.json', (_req, res) =>
    json(res, 200, v1Card(server.origin, { supportedInterfaces: [{ url: `${server.origin}/rpc`, protocolBinding: 'JSONRPC', protocolVersion: version }] })),
  );
  server.on('POST /rpc', (req, res) => {
    const rpc = JSON.parse(req.body) as Rpc;
    calls.push({ method: rpc.method, at: clock.now(), rpc });
    const handler = handlers[rpc.method];
    if (!handler) return json(res, 200, { jsonrpc: '2.0', id: rpc.id, error: { code: -32601, message: `no ${rpc.method}` } });
    handler(rpc, res);
  });
  const isSend = (m: string): boolean => m === 'SendStreamingMessage' || m === 'SendMessage' || m === 'message/stream' || m === 'message/send';
  return {
    server,
    clock,
    handlers,
    calls,
    count: (method) => calls.filter((c) => c.method === method).length,
    worstWindow(windowMs = 10_000, methods = (m) => !isSend(m)) {
      const times = calls.filter((c) => methods(c.method)).map((c) => c.at);
      let worst = 0;
      for (let i = 0; i < times.length; i++) {
        let n = 0;
        for (let j = i; j < times.length && (times[j] as number) < (times[i] as number) + windowMs; j++) n++;
        worst = Math.max(worst, n);
      }
      return worst;
    },
    key: (taskId = T) => taskKey(`${server.url}/.well-known/agent-card.json`, taskId),
    client: (extra = {}) =>
      connect(server.url, {
        cardCache: false,
        scheduler: clock,
        random: () => 0.5,
        ...extra,
        resilience: { idleProbeMs: 30_000, ...extra.resilience },
      }),
    sse(res, frames, end) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      for (const f of frames) res.write(f);
      if (end) res.end();
      else open.push(res);
    },
    async close() {
      for (const res of open.splice(0)) res.destroy();
      await server.close();
    },
  };
}

export const T = 'task-1';
export const CTX = 'ctx';
export const at = (n: number): string => new Date(1_700_000_000_000 + n).toISOString();

/** A v1 Task (ProtoJSON). */
export function task(state: string, n: number, options: { chunks?: string[]; message?: unknown; id?: string; contextId?: string; history?: unknown[] } = {}) {
  return {
    id: options.id ?? T,
    contextId: options.contextId ?? CTX,
    status: { state: `TASK_STATE_${state}`, timestamp: at(n), ...(options.message ? { message: options.message } : {}) },
    artifacts: options.chunks?.length ? [{ artifactId: 'a', parts: options.chunks.map((text) => ({ text })) }] : [],
    ...(options.history ? { history: options.history } : {}),
  };
}

export const agentMessage = (id: string, text: string, taskId = T) => ({ messageId: id, role: 'ROLE_AGENT', taskId, contextId: CTX, parts: [{ text }] });

/** A `statusUpdate` frame. */
export function statusFrame(state: string, n: number, options: { message?: unknown; taskId?: string; contextId?: string; timestamp?: string } = {}): string {
  return rpcFrame({
    statusUpdate: {
      taskId: options.taskId ?? T,
      contextId: options.contextId ?? CTX,
      status: { state: `TASK_STATE_${state}`, timestamp: options.timestamp ?? at(n), ...(options.message ? { message: options.message } : {}) },
    },
  });
}

/** An `artifactUpdate` frame of artifact `a`. */
export function chunkFrame(text: string, append: boolean, last = false, taskId = T): string {
  return rpcFrame({ artifactUpdate: { taskId, contextId: CTX, artifact: { artifactId: 'a', parts: [{ text }] }, append, lastChunk: last } });
}

export const taskFrame = (t: unknown): string => rpcFrame({ task: t });

export function rpcResult(res: ServerResponse, rpc: Rpc, result: unknown): void {
  json(res, 200, { jsonrpc: '2.0', id: rpc.id, result });
}

export function rpcError(res: ServerResponse, rpc: Rpc, code: number, message: string): void {
  json(res, 200, { jsonrpc: '2.0', id: rpc.id, error: { code, message } });
}

/** An `event: error` frame carrying a JSON-RPC error. */
export function errorFrame(code: number, message: string): string {
  return `event: error\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: '$rpc-id', error: { code, message } })}\n\n`;
}

export const userMessage = (rpc: Rpc) => rpc.params['message'] as { messageId: string; taskId?: string; parts: { text?: string }[] };

/** Advances virtual time until the promise settles; fails if still pending after `withinMs`. */
export async function within<T>(clock: ManualScheduler, promise: Promise<T>, withinMs = 120_000, stepMs = 250): Promise<T> {
  let pending = true;
  promise.then(
    () => (pending = false),
    () => (pending = false),
  );
  for (let waited = 0; waited < withinMs && pending; waited += stepMs) await clock.advance(stepMs, 2);
  if (pending) throw new Error(`still pending after ${withinMs} ms of virtual time`);
  return promise;
}

/** Collects a handle's events in the background. */
export function record(handle: TaskHandle): TaskEvent[] {
  const events: TaskEvent[] = [];
  void (async () => {
    for await (const e of handle.events()) events.push(e);
  })().catch(() => undefined); // a failed follow throws after its last event: done() reports it
  return events;
}

/** The text of artifact `a` rebuilt from events as an app would. */
export function rebuild(events: TaskEvent[]): string {
  let out = '';
  for (const e of events) {
    if (e.type === 'artifact' && e.artifactId === 'a') out = (e.append ? out : '') + e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
  }
  return out;
}

export function statuses(events: TaskEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'status' ? [e.state] : []));
}

export function connections(events: TaskEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'connection' ? [e.state] : []));
}
