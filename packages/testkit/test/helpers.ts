import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestAgent } from '../src/index.js';

// Plain-fetch helpers: the tests speak the wire themselves, independently of any Tether client code.

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface HttpResult {
  status: number;
  headers: Headers;
  body: Json;
}

async function toResult(response: Response): Promise<HttpResult> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Json) };
}

export async function rpc(
  agent: TestAgent,
  method: string,
  params: unknown,
  options: { version?: string | null; headers?: Record<string, string>; id?: number | string } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...options.headers };
  if (options.version !== null && options.version !== undefined) headers['A2A-Version'] = options.version;
  const response = await fetch(agent.jsonRpcUrl, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: options.id ?? 1, method, params }),
  });
  return toResult(response);
}

export async function rest(
  agent: TestAgent,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<HttpResult> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  return toResult(await fetch(`${agent.restUrl}${path}`, init));
}

export interface SseFrame {
  event?: string;
  id?: string;
  data: Json;
}

/** A deliberately simple SSE reader: frames split on blank lines, one `data:` line each. */
export async function readSse(response: Response): Promise<SseFrame[]> {
  const text = await response.text();
  const frames: SseFrame[] = [];
  for (const block of text.split('\n\n')) {
    if (block.trim() === '') continue;
    const frame: Partial<SseFrame> = {};
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).trimStart();
      if (field === 'data') frame.data = JSON.parse(value) as Json;
      else if (field === 'event') frame.event = value;
      else if (field === 'id') frame.id = value;
    }
    frames.push(frame as SseFrame);
  }
  return frames;
}

export const V1_HEADERS = { 'A2A-Version': '1.0' };

/** v1 ProtoJSON user message. */
export function v1Message(text: string, extra: Json = {}): Json {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** v0.3 JSON-RPC user message. */
export function v03Message(text: string, extra: Json = {}): Json {
  return { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }], ...extra };
}

/** v0.3 HTTP+JSON (proto JSON) user message. */
export function v03RestMessage(text: string, extra: Json = {}): Json {
  return { messageId: randomUUID(), role: 'ROLE_USER', content: [{ text }], ...extra };
}

const STATE_NAMES: Record<string, string> = {
  TASK_STATE_SUBMITTED: 'submitted',
  TASK_STATE_WORKING: 'working',
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_CANCELLED: 'canceled',
  TASK_STATE_REJECTED: 'rejected',
};

/** Any dialect's state spelling → kebab. */
export function kebab(state: string): string {
  return STATE_NAMES[state] ?? state;
}

/** A normalized view of a stream payload (already unwrapped from JSON-RPC). */
export interface Event {
  kind: 'task' | 'message' | 'status' | 'artifact';
  state?: string;
  text?: string;
  raw: Json;
}

export type Combo = {
  name: string;
  version: '1.0' | '0.3';
  binding: 'JSONRPC' | 'HTTP+JSON';
  /** send; returns the raw HTTP result and the unwrapped success payload (undefined on error). */
  send(agent: TestAgent, text: string, extra?: SendExtra): Promise<{ http: HttpResult; result: Json | undefined }>;
  stream(agent: TestAgent, text: string, extra?: SendExtra): Promise<{ response: Response; frames: SseFrame[] }>;
  subscribe(agent: TestAgent, taskId: string, headers?: Record<string, string>): Promise<Response>;
  get(agent: TestAgent, taskId: string, historyLength?: number): Promise<{ http: HttpResult; result: Json | undefined }>;
  cancel(agent: TestAgent, taskId: string): Promise<{ http: HttpResult; result: Json | undefined }>;
  pushCreate(agent: TestAgent, taskId: string, url: string, token: string, id?: string): Promise<{ http: HttpResult; result: Json | undefined }>;
  pushGet(agent: TestAgent, taskId: string, id: string): Promise<{ http: HttpResult; result: Json | undefined }>;
  pushList(agent: TestAgent, taskId: string): Promise<{ http: HttpResult; result: Json | undefined }>;
  pushDelete(agent: TestAgent, taskId: string, id: string): Promise<{ http: HttpResult }>;
  /** Classify a stream frame's data. */
  event(frame: SseFrame): Event;
  /** The task inside a send result (undefined for a Message). */
  taskOfSend(result: Json): Json | undefined;
  /** The message inside a send result. */
  messageOfSend(result: Json): Json | undefined;
  /** Texts of all parts of a message in this dialect. */
  messageText(message: Json): string;
  /** Push config id in a create/get result. */
  pushId(config: Json): string;
  /** Push config list → ids. */
  pushIds(list: Json): string[];
  /** The error code of an error answer (JSON-RPC code; REST: the HTTP status). */
  errorCode(http: HttpResult): number;
};

export interface SendExtra {
  taskId?: string;
  contextId?: string;
  blocking?: boolean;
  push?: { url: string; token?: string };
}

function textOfParts(parts: Json[] | undefined): string {
  return (parts ?? []).map((p) => (typeof p['text'] === 'string' ? p['text'] : '')).join('');
}

function rpcUnwrap(http: HttpResult): Json | undefined {
  return http.body['error'] === undefined ? (http.body['result'] as Json) : undefined;
}

function restUnwrap(http: HttpResult): Json | undefined {
  return http.status >= 200 && http.status < 300 ? http.body : undefined;
}

function wrapperEvent(data: Json, messageKey: 'parts' | 'content'): Event {
  if (data['task'] !== undefined) return { kind: 'task', state: kebab(data['task'].status.state), raw: data['task'] };
  if (data['message'] !== undefined) {
    return { kind: 'message', text: textOfParts(data['message'][messageKey]), raw: data['message'] };
  }
  if (data['statusUpdate'] !== undefined) {
    const status = data['statusUpdate'].status;
    const event: Event = { kind: 'status', state: kebab(status.state), raw: data['statusUpdate'] };
    if (status.message !== undefined) event.text = textOfParts(status.message[messageKey]);
    return event;
  }
  if (data['artifactUpdate'] !== undefined) {
    return { kind: 'artifact', text: textOfParts(data['artifactUpdate'].artifact.parts), raw: data['artifactUpdate'] };
  }
  throw new Error(`Unknown stream payload ${JSON.stringify(data)}`);
}

function kindEvent(data: Json): Event {
  switch (data['kind']) {
    case 'task':
      return { kind: 'task', state: data['status'].state, raw: data };
    case 'message':
      return { kind: 'message', text: textOfParts(data['parts']), raw: data };
    case 'status-update': {
      const event: Event = { kind: 'status', state: data['status'].state, raw: data };
      if (data['status'].message !== undefined) event.text = textOfParts(data['status'].message.parts);
      return event;
    }
    case 'artifact-update':
      return { kind: 'artifact', text: textOfParts(data['artifact'].parts), raw: data };
    default:
      throw new Error(`Unknown stream payload ${JSON.stringify(data)}`);
  }
}

async function rpcStream(agent: TestAgent, method: string, params: unknown, version: string | null, headers: Record<string, string> = {}): Promise<Response> {
  const all: Record<string, string> = { 'Content-Type': 'application/json', ...headers };
  if (version !== null) all['A2A-Version'] = version;
  return fetch(agent.jsonRpcUrl, {
    method: 'POST',
    headers: all,
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
}

export const v1JsonRpc: Combo = {
  name: 'v1 JSON-RPC',
  version: '1.0',
  binding: 'JSONRPC',
  async send(agent, text, extra = {}) {
    const http = await rpc(agent, 'SendMessage', v1SendBody(text, extra), { version: '1.0' });
    return { http, result: rpcUnwrap(http) };
  },
  async stream(agent, text, extra = {}) {
    const response = await rpcStream(agent, 'SendStreamingMessage', v1SendBody(text, extra), '1.0');
    return { response, frames: await readSse(response) };
  },
  subscribe: (agent, taskId, headers) => rpcStream(agent, 'SubscribeToTask', { id: taskId }, '1.0', headers),
  async get(agent, taskId, historyLength) {
    const params: Json = { id: taskId };
    if (historyLength !== undefined) params['historyLength'] = historyLength;
    const http = await rpc(agent, 'GetTask', params, { version: '1.0' });
    return { http, result: rpcUnwrap(http) };
  },
  async cancel(agent, taskId) {
    const http = await rpc(agent, 'CancelTask', { id: taskId }, { version: '1.0' });
    return { http, result: rpcUnwrap(http) };
  },
  async pushCreate(agent, taskId, url, token, id) {
    const params: Json = { taskId, url, token };
    if (id !== undefined) params['id'] = id;
    const http = await rpc(agent, 'CreateTaskPushNotificationConfig', params, { version: '1.0' });
    return { http, result: rpcUnwrap(http) };
  },
  async pushGet(agent, taskId, id) {
    const http = await rpc(agent, 'GetTaskPushNotificationConfig', { taskId, id }, { version: '1.0' });
    return { http, result: rpcUnwrap(http) };
  },
  async pushList(agent, taskId) {
    const http = await rpc(agent, 'ListTaskPushNotificationConfigs', { taskId }, { version: '1.0' });
    return { http, result: rpcUnwrap(http) };
  },
  async pushDelete(agent, taskId, id) {
    return { http: await rpc(agent, 'DeleteTaskPushNotificationConfig', { taskId, id }, { version: '1.0' }) };
  },
  event: (frame) => wrapperEvent(frame.data['result'] as Json, 'parts'),
  taskOfSend: (result) => result['task'] as Json | undefined,
  messageOfSend: (result) => result['message'] as Json | undefined,
  messageText: (message) => textOfParts(message['parts']),
  pushId: (config) => config['id'] as string,
  pushIds: (list) => (list['configs'] as Json[]).map((c) => c['id'] as string),
  errorCode: (http) => http.body['error'].code as number,
};

function v1SendBody(text: string, extra: SendExtra): Json {
  const message = v1Message(text, compactIds(extra));
  const configuration: Json = {};
  if (extra.blocking === false) configuration['returnImmediately'] = true;
  if (extra.push !== undefined) configuration['taskPushNotificationConfig'] = extra.push;
  return { message, configuration };
}

function compactIds(extra: SendExtra): Json {
  const ids: Json = {};
  if (extra.taskId !== undefined) ids['taskId'] = extra.taskId;
  if (extra.contextId !== undefined) ids['contextId'] = extra.contextId;
  return ids;
}

export const v1Rest: Combo = {
  ...v1JsonRpc,
  name: 'v1 HTTP+JSON',
  binding: 'HTTP+JSON',
  async send(agent, text, extra = {}) {
    const http = await rest(agent, 'POST', '/message:send', v1SendBody(text, extra), V1_HEADERS);
    return { http, result: restUnwrap(http) };
  },
  async stream(agent, text, extra = {}) {
    const response = await fetch(`${agent.restUrl}/message:stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...V1_HEADERS },
      body: JSON.stringify(v1SendBody(text, extra)),
    });
    return { response, frames: await readSse(response) };
  },
  subscribe: (agent, taskId, headers = {}) =>
    fetch(`${agent.restUrl}/tasks/${taskId}:subscribe`, { method: 'POST', headers: { ...V1_HEADERS, ...headers } }),
  async get(agent, taskId, historyLength) {
    const q = historyLength === undefined ? '' : `?historyLength=${historyLength}`;
    const http = await rest(agent, 'GET', `/tasks/${taskId}${q}`, undefined, V1_HEADERS);
    return { http, result: restUnwrap(http) };
  },
  async cancel(agent, taskId) {
    const http = await rest(agent, 'POST', `/tasks/${taskId}:cancel`, {}, V1_HEADERS);
    return { http, result: restUnwrap(http) };
  },
  async pushCreate(agent, taskId, url, token, id) {
    const body: Json = { url, token };
    if (id !== undefined) body['id'] = id;
    const http = await rest(agent, 'POST', `/tasks/${taskId}/pushNotificationConfigs`, body, V1_HEADERS);
    return { http, result: restUnwrap(http) };
  },
  async pushGet(agent, taskId, id) {
    const http = await rest(agent, 'GET', `/tasks/${taskId}/pushNotificationConfigs/${id}`, undefined, V1_HEADERS);
    return { http, result: restUnwrap(http) };
  },
  async pushList(agent, taskId) {
    const http = await rest(agent, 'GET', `/tasks/${taskId}/pushNotificationConfigs`, undefined, V1_HEADERS);
    return { http, result: restUnwrap(http) };
  },
  async pushDelete(agent, taskId, id) {
    return { http: await rest(agent, 'DELETE', `/tasks/${taskId}/pushNotificationConfigs/${id}`, undefined, V1_HEADERS) };
  },
  event: (frame) => wrapperEvent(frame.data, 'parts'),
  errorCode: (http) => http.status,
};

function v03SendBody(text: string, extra: SendExtra): Json {
  const configuration: Json = { blocking: extra.blocking ?? true };
  if (extra.push !== undefined) configuration['pushNotificationConfig'] = extra.push;
  return { message: v03Message(text, compactIds(extra)), configuration };
}

export const v03JsonRpc: Combo = {
  name: 'v0.3 JSON-RPC',
  version: '0.3',
  binding: 'JSONRPC',
  async send(agent, text, extra = {}) {
    const http = await rpc(agent, 'message/send', v03SendBody(text, extra), { version: null });
    return { http, result: rpcUnwrap(http) };
  },
  async stream(agent, text, extra = {}) {
    const response = await rpcStream(agent, 'message/stream', v03SendBody(text, extra), null);
    return { response, frames: await readSse(response) };
  },
  subscribe: (agent, taskId, headers) => rpcStream(agent, 'tasks/resubscribe', { id: taskId }, null, headers),
  async get(agent, taskId, historyLength) {
    const params: Json = { id: taskId };
    if (historyLength !== undefined) params['historyLength'] = historyLength;
    const http = await rpc(agent, 'tasks/get', params, { version: null });
    return { http, result: rpcUnwrap(http) };
  },
  async cancel(agent, taskId) {
    const http = await rpc(agent, 'tasks/cancel', { id: taskId }, { version: null });
    return { http, result: rpcUnwrap(http) };
  },
  async pushCreate(agent, taskId, url, token, id) {
    const config: Json = { url, token };
    if (id !== undefined) config['id'] = id;
    const http = await rpc(agent, 'tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: config }, { version: null });
    return { http, result: rpcUnwrap(http) };
  },
  async pushGet(agent, taskId, id) {
    const http = await rpc(agent, 'tasks/pushNotificationConfig/get', { id: taskId, pushNotificationConfigId: id }, { version: null });
    return { http, result: rpcUnwrap(http) };
  },
  async pushList(agent, taskId) {
    const http = await rpc(agent, 'tasks/pushNotificationConfig/list', { id: taskId }, { version: null });
    return { http, result: rpcUnwrap(http) };
  },
  async pushDelete(agent, taskId, id) {
    return { http: await rpc(agent, 'tasks/pushNotificationConfig/delete', { id: taskId, pushNotificationConfigId: id }, { version: null }) };
  },
  event: (frame) => kindEvent(frame.data['result'] as Json),
  taskOfSend: (result) => (result['kind'] === 'task' ? result : undefined),
  messageOfSend: (result) => (result['kind'] === 'message' ? result : undefined),
  messageText: (message) => textOfParts(message['parts']),
  pushId: (config) => config['pushNotificationConfig'].id as string,
  pushIds: (list) => (list as unknown as Json[]).map((c) => c['pushNotificationConfig'].id as string),
  errorCode: (http) => http.body['error'].code as number,
};

function v03RestSendBody(text: string, extra: SendExtra): Json {
  const configuration: Json = { blocking: extra.blocking ?? true };
  if (extra.push !== undefined) configuration['pushNotification'] = extra.push;
  return { message: v03RestMessage(text, compactIds(extra)), configuration };
}

export const v03Rest: Combo = {
  ...v03JsonRpc,
  name: 'v0.3 HTTP+JSON',
  binding: 'HTTP+JSON',
  async send(agent, text, extra = {}) {
    const http = await rest(agent, 'POST', '/v1/message:send', v03RestSendBody(text, extra));
    return { http, result: restUnwrap(http) };
  },
  async stream(agent, text, extra = {}) {
    const response = await fetch(`${agent.restUrl}/v1/message:stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(v03RestSendBody(text, extra)),
    });
    return { response, frames: await readSse(response) };
  },
  subscribe: (agent, taskId, headers = {}) => fetch(`${agent.restUrl}/v1/tasks/${taskId}:subscribe`, { headers }),
  async get(agent, taskId, historyLength) {
    const q = historyLength === undefined ? '' : `?historyLength=${historyLength}`;
    const http = await rest(agent, 'GET', `/v1/tasks/${taskId}${q}`);
    return { http, result: restUnwrap(http) };
  },
  async cancel(agent, taskId) {
    const http = await rest(agent, 'POST', `/v1/tasks/${taskId}:cancel`, {});
    return { http, result: restUnwrap(http) };
  },
  async pushCreate(agent, taskId, url, token, id) {
    const config: Json = { url, token };
    if (id !== undefined) config['id'] = id;
    const http = await rest(agent, 'POST', `/v1/tasks/${taskId}/pushNotificationConfigs`, { pushNotificationConfig: config });
    return { http, result: restUnwrap(http) };
  },
  async pushGet(agent, taskId, id) {
    const http = await rest(agent, 'GET', `/v1/tasks/${taskId}/pushNotificationConfigs/${id}`);
    return { http, result: restUnwrap(http) };
  },
  async pushList(agent, taskId) {
    const http = await rest(agent, 'GET', `/v1/tasks/${taskId}/pushNotificationConfigs`);
    return { http, result: restUnwrap(http) };
  },
  async pushDelete(agent, taskId, id) {
    return { http: await rest(agent, 'DELETE', `/v1/tasks/${taskId}/pushNotificationConfigs/${id}`) };
  },
  event: (frame) => wrapperEvent(frame.data, 'content'),
  taskOfSend: (result) => result['task'] as Json | undefined,
  messageOfSend: (result) => result['message'] as Json | undefined,
  messageText: (message) => textOfParts(message['content']),
  pushIds: (list) => (list['configs'] as Json[]).map((c) => c['pushNotificationConfig'].id as string),
  errorCode: (http) => http.status,
};

export const COMBOS: readonly Combo[] = [v1JsonRpc, v1Rest, v03JsonRpc, v03Rest];

/** A local webhook receiver that records pushes. */
export interface PushReceiver {
  url: string;
  received: { headers: IncomingHttpHeaders; body: Json }[];
  /** Resolves once `count` pushes arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startPushReceiver(status = 200): Promise<PushReceiver> {
  const received: PushReceiver['received'] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json });
      res.writeHead(status).end();
      for (const waiter of [...waiters]) {
        if (received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    waitFor(count, timeoutMs = 2000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${count} pushes arrived`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Poll `check` until it returns true (for server-side state that settles asynchronously). */
export async function until(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
