/**
 * How each operation is spelled on the wire for the four version × binding combinations
 * the official servers expose. Plain request descriptions for raw `fetch`: no client SDK
 * sits in between, so frames and tests see exactly what the servers accept and answer.
 */
import { randomUUID } from 'node:crypto';
import type { OfficialServer } from './official-server.js';

// Made-up webhook on a closed port: configs are stored and listed, deliveries simply fail.
export const WEBHOOK_URL = 'http://127.0.0.1:9/tether-webhook';
export const WEBHOOK_TOKEN = 'capture-token';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface WireRequest {
  readonly method: HttpMethod;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON; a string is sent verbatim (for malformed bodies). */
  readonly body?: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The data payloads of an SSE body (these servers send one `data:` line per event). */
export function sseData(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5).trim()) as unknown);
}

/** Finds the Task in any of the four answer shapes (wrapped or bare, JSON-RPC or REST). */
export function taskIn(body: unknown): { id: string; contextId: string; state: string } {
  const candidates: unknown[] = [body];
  if (isRecord(body)) candidates.push(body['result'], body['task']);
  if (isRecord(body) && isRecord(body['result'])) candidates.push(body['result']['task']);
  for (const candidate of candidates) {
    if (isRecord(candidate) && typeof candidate['id'] === 'string' && isRecord(candidate['status'])) {
      return { id: candidate['id'], contextId: String(candidate['contextId']), state: String(candidate['status']['state']) };
    }
  }
  throw new Error(`no task in ${JSON.stringify(body).slice(0, 300)}`);
}

/** One version × binding: how each operation is spelled on the wire. */
export interface Dialect {
  readonly prefix: string;
  send(text: string, options: { blocking: boolean; stream?: boolean; taskId?: string; contextId?: string }): WireRequest;
  get(taskId: string, historyLength?: number): WireRequest;
  cancel(taskId: string): WireRequest;
  subscribe(taskId: string, method?: HttpMethod): WireRequest;
  pushCreate(taskId: string): WireRequest;
  pushGet(taskId: string, configId: string): WireRequest;
  pushList(taskId: string): WireRequest;
  pushDelete(taskId: string, configId: string): WireRequest;
  extendedCard(): WireRequest;
  /** Reads the stored config id out of a create answer's body. */
  configIdOf(body: unknown): string;
}

// Process-wide, so every JSON-RPC frame in one capture has a distinct id to match answers by.
let rpcId = 0;

export function jsonRpc(url: string, headers: Record<string, string>, method: string, params: unknown): WireRequest {
  rpcId += 1;
  return { method: 'POST', url, headers, body: { jsonrpc: '2.0', id: rpcId, method, params } };
}

// v1 servers read a missing A2A-Version as 0.3 and refuse it (-32009), so every v1 request sends it.
export const V1_JSON = { 'content-type': 'application/json', 'A2A-Version': '1.0' };
export const V1_REST_BODY = { 'content-type': 'application/a2a+json', 'A2A-Version': '1.0' };
export const V1_REST_NO_BODY = { 'A2A-Version': '1.0' };
export const V03_JSON = { 'content-type': 'application/json' };

export function v1Message(text: string, taskId?: string, contextId?: string): Record<string, unknown> {
  return {
    messageId: randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(taskId === undefined ? {} : { taskId }),
    ...(contextId === undefined ? {} : { contextId }),
  };
}

export function v1JsonRpc(server: OfficialServer): Dialect {
  const call = (method: string, params: unknown): WireRequest => jsonRpc(server.jsonRpcUrl, V1_JSON, method, params);
  return {
    prefix: 'v1-jsonrpc',
    send: (text, o) =>
      call(o.stream ? 'SendStreamingMessage' : 'SendMessage', {
        message: v1Message(text, o.taskId, o.contextId),
        ...(o.stream ? {} : { configuration: { returnImmediately: !o.blocking } }),
      }),
    get: (id, historyLength) => call('GetTask', { id, ...(historyLength === undefined ? {} : { historyLength }) }),
    cancel: (id) => call('CancelTask', { id }),
    subscribe: (id) => call('SubscribeToTask', { id }),
    pushCreate: (taskId) => call('CreateTaskPushNotificationConfig', { taskId, url: WEBHOOK_URL, token: WEBHOOK_TOKEN }),
    pushGet: (taskId, id) => call('GetTaskPushNotificationConfig', { taskId, id }),
    pushList: (taskId) => call('ListTaskPushNotificationConfigs', { taskId }),
    pushDelete: (taskId, id) => call('DeleteTaskPushNotificationConfig', { taskId, id }),
    extendedCard: () => call('GetExtendedAgentCard', {}),
    configIdOf: (body) => String((body as { result: { id: string } }).result.id),
  };
}

export function v1Rest(server: OfficialServer): Dialect {
  const base = server.restUrl;
  return {
    prefix: 'v1-rest',
    send: (text, o) => ({
      method: 'POST',
      url: `${base}/message:${o.stream ? 'stream' : 'send'}`,
      headers: V1_REST_BODY,
      body: {
        message: v1Message(text, o.taskId, o.contextId),
        ...(o.stream ? {} : { configuration: { returnImmediately: !o.blocking } }),
      },
    }),
    get: (id, historyLength) => ({
      method: 'GET',
      url: `${base}/tasks/${id}${historyLength === undefined ? '' : `?historyLength=${historyLength}`}`,
      headers: V1_REST_NO_BODY,
    }),
    cancel: (id) => ({ method: 'POST', url: `${base}/tasks/${id}:cancel`, headers: V1_REST_BODY, body: {} }),
    subscribe: (id, method = 'POST') => ({ method, url: `${base}/tasks/${id}:subscribe`, headers: V1_REST_NO_BODY }),
    pushCreate: (taskId) => ({
      method: 'POST',
      url: `${base}/tasks/${taskId}/pushNotificationConfigs`,
      headers: V1_REST_BODY,
      body: { url: WEBHOOK_URL, token: WEBHOOK_TOKEN },
    }),
    pushGet: (taskId, id) => ({ method: 'GET', url: `${base}/tasks/${taskId}/pushNotificationConfigs/${id}`, headers: V1_REST_NO_BODY }),
    pushList: (taskId) => ({ method: 'GET', url: `${base}/tasks/${taskId}/pushNotificationConfigs`, headers: V1_REST_NO_BODY }),
    pushDelete: (taskId, id) => ({
      method: 'DELETE',
      url: `${base}/tasks/${taskId}/pushNotificationConfigs/${id}`,
      headers: V1_REST_NO_BODY,
    }),
    extendedCard: () => ({ method: 'GET', url: `${base}/extendedAgentCard`, headers: V1_REST_NO_BODY }),
    configIdOf: (body) => String((body as { id: string }).id),
  };
}

export function v03Message(text: string, taskId?: string, contextId?: string): Record<string, unknown> {
  return {
    kind: 'message',
    messageId: randomUUID(),
    role: 'user',
    parts: [{ kind: 'text', text }],
    ...(taskId === undefined ? {} : { taskId }),
    ...(contextId === undefined ? {} : { contextId }),
  };
}

export function v03JsonRpc(server: OfficialServer): Dialect {
  const call = (method: string, params: unknown): WireRequest => jsonRpc(server.jsonRpcUrl, V03_JSON, method, params);
  return {
    prefix: 'v03-jsonrpc',
    send: (text, o) =>
      call(o.stream ? 'message/stream' : 'message/send', {
        message: v03Message(text, o.taskId, o.contextId),
        ...(o.stream ? {} : { configuration: { blocking: o.blocking } }),
      }),
    get: (id, historyLength) => call('tasks/get', { id, ...(historyLength === undefined ? {} : { historyLength }) }),
    cancel: (id) => call('tasks/cancel', { id }),
    subscribe: (id) => call('tasks/resubscribe', { id }),
    pushCreate: (taskId) =>
      call('tasks/pushNotificationConfig/set', { taskId, pushNotificationConfig: { url: WEBHOOK_URL, token: WEBHOOK_TOKEN } }),
    pushGet: (id, pushNotificationConfigId) => call('tasks/pushNotificationConfig/get', { id, pushNotificationConfigId }),
    pushList: (id) => call('tasks/pushNotificationConfig/list', { id }),
    pushDelete: (id, pushNotificationConfigId) => call('tasks/pushNotificationConfig/delete', { id, pushNotificationConfigId }),
    extendedCard: () => call('agent/getAuthenticatedExtendedCard', {}),
    configIdOf: (body) =>
      String((body as { result: { pushNotificationConfig: { id: string } } }).result.pushNotificationConfig.id),
  };
}

export function v03Rest(server: OfficialServer): Dialect {
  const base = `${server.restUrl}/v1`;
  return {
    prefix: 'v03-rest',
    send: (text, o) => ({
      method: 'POST',
      url: `${base}/message:${o.stream ? 'stream' : 'send'}`,
      headers: V03_JSON,
      body: {
        // v0.3 HTTP+JSON speaks the v0.3 proto JSON: ROLE_USER and `content`, not `parts`.
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          content: [{ text }],
          ...(o.taskId === undefined ? {} : { taskId: o.taskId }),
          ...(o.contextId === undefined ? {} : { contextId: o.contextId }),
        },
        ...(o.stream ? {} : { configuration: { blocking: o.blocking } }),
      },
    }),
    get: (id, historyLength) => ({
      method: 'GET',
      url: `${base}/tasks/${id}${historyLength === undefined ? '' : `?historyLength=${historyLength}`}`,
    }),
    cancel: (id) => ({ method: 'POST', url: `${base}/tasks/${id}:cancel`, headers: V03_JSON, body: {} }),
    subscribe: (id, method = 'POST') => ({ method, url: `${base}/tasks/${id}:subscribe` }),
    // The 0.3.14 server reads the task from `parent` in the body (CreateTaskPushNotificationConfigRequest).
    pushCreate: (taskId) => ({
      method: 'POST',
      url: `${base}/tasks/${taskId}/pushNotificationConfigs`,
      headers: V03_JSON,
      body: {
        parent: `tasks/${taskId}`,
        configId: 'cfg-1',
        config: {
          name: `tasks/${taskId}/pushNotificationConfigs/cfg-1`,
          pushNotificationConfig: { id: 'cfg-1', url: WEBHOOK_URL, token: WEBHOOK_TOKEN },
        },
      },
    }),
    pushGet: (taskId, id) => ({ method: 'GET', url: `${base}/tasks/${taskId}/pushNotificationConfigs/${id}` }),
    pushList: (taskId) => ({ method: 'GET', url: `${base}/tasks/${taskId}/pushNotificationConfigs` }),
    pushDelete: (taskId, id) => ({ method: 'DELETE', url: `${base}/tasks/${taskId}/pushNotificationConfigs/${id}` }),
    extendedCard: () => ({ method: 'GET', url: `${base}/card` }),
    configIdOf: (body) => {
      const name = String((body as { name: string }).name);
      return name.slice(name.lastIndexOf('/') + 1);
    },
  };
}

