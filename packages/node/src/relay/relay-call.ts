/** What the relay lets through, by what it must check first. Anything else is `denied`. */
export type CallKind = 'send' | 'get' | 'cancel' | 'subscribe' | 'list' | 'push' | 'denied';

/** A browser's call as the relay judges it: its kind and the ids it names. */
export interface RelayCall {
  readonly kind: CallKind;
  /** The operation's name as the request gave it (JSON-RPC method, or REST method and path). */
  readonly name: string;
  /** The task it names: get, cancel, subscribe and push by id; a send's `message.taskId`. */
  readonly taskId?: string | undefined;
  /** A send's `message.contextId`; a list's `contextId` filter. */
  readonly contextId?: string | undefined;
  /** A send that names a push config (v1 `taskPushNotificationConfig`, v0.3 `pushNotificationConfig`). */
  readonly pushInSend?: boolean | undefined;
  /** The tasks a send's message refers to (`referenceTaskIds`): the agent may read them for the sender. */
  readonly referenceTaskIds?: readonly string[] | undefined;
}

type Json = Record<string, unknown>;

const RPC: Readonly<Record<string, { kind: CallKind; id: 'id' | 'taskId' | 'message' | 'list' }>> = {
  SendMessage: { kind: 'send', id: 'message' },
  SendStreamingMessage: { kind: 'send', id: 'message' },
  'message/send': { kind: 'send', id: 'message' },
  'message/stream': { kind: 'send', id: 'message' },
  GetTask: { kind: 'get', id: 'id' },
  'tasks/get': { kind: 'get', id: 'id' },
  CancelTask: { kind: 'cancel', id: 'id' },
  'tasks/cancel': { kind: 'cancel', id: 'id' },
  SubscribeToTask: { kind: 'subscribe', id: 'id' },
  'tasks/resubscribe': { kind: 'subscribe', id: 'id' },
  ListTasks: { kind: 'list', id: 'list' },
  CreateTaskPushNotificationConfig: { kind: 'push', id: 'taskId' },
  GetTaskPushNotificationConfig: { kind: 'push', id: 'taskId' },
  ListTaskPushNotificationConfigs: { kind: 'push', id: 'taskId' },
  DeleteTaskPushNotificationConfig: { kind: 'push', id: 'taskId' },
  'tasks/pushNotificationConfig/set': { kind: 'push', id: 'taskId' },
  'tasks/pushNotificationConfig/get': { kind: 'push', id: 'id' },
  'tasks/pushNotificationConfig/list': { kind: 'push', id: 'id' },
  'tasks/pushNotificationConfig/delete': { kind: 'push', id: 'id' },
};

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A send's ids and whether it names a push config, from its params (either version, either binding). */
function sendCall(name: string, params: Json): RelayCall {
  const message = record(params['message'] ?? params['request']);
  const configuration = record(params['configuration']);
  const pushInSend = ['taskPushNotificationConfig', 'pushNotificationConfig', 'pushNotification'].some((key) => configuration[key] !== undefined && configuration[key] !== null);
  const references = Array.isArray(message['referenceTaskIds']) ? message['referenceTaskIds'] : [];
  // A reference that is not a string cannot be checked: it is kept as one no owner holds.
  const referenceTaskIds = references.map((id) => (typeof id === 'string' ? id : ''));
  return { kind: 'send', name, taskId: text(message['taskId']), contextId: text(message['contextId']), pushInSend, referenceTaskIds };
}

/** A JSON-RPC request's call (`params` as given; a method not listed is `denied`). */
export function jsonRpcCall(method: string, params: unknown): RelayCall {
  const entry = Object.hasOwn(RPC, method) ? RPC[method] : undefined;
  const p = record(params);
  if (entry === undefined) return { kind: 'denied', name: method };
  if (entry.id === 'message') return sendCall(method, p);
  if (entry.id === 'list') return { kind: 'list', name: method, contextId: text(p['contextId']) };
  const taskId = text(p[entry.id]);
  // A call that names no task is refused rather than passed on unchecked.
  return taskId === undefined ? { kind: 'denied', name: method } : { kind: entry.kind, name: method, taskId };
}

const REST: readonly { method: RegExp; path: RegExp; kind: CallKind }[] = [
  { method: /^POST$/, path: /^\/message:(send|stream)$/, kind: 'send' },
  { method: /^GET$/, path: /^\/tasks$/, kind: 'list' },
  { method: /^GET$/, path: /^\/tasks\/([^/:]+)$/, kind: 'get' },
  { method: /^POST$/, path: /^\/tasks\/([^/:]+):cancel$/, kind: 'cancel' },
  { method: /^(GET|POST)$/, path: /^\/tasks\/([^/:]+)[:/]subscribe$/, kind: 'subscribe' },
  { method: /^(GET|POST|DELETE)$/, path: /^\/tasks\/([^/:]+)\/pushNotificationConfigs(\/[^/]+)?$/, kind: 'push' },
];

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function restMatch(method: string, path: string, query: URLSearchParams, body: unknown): RelayCall | undefined {
  for (const route of REST) {
    const match = route.method.test(method) ? route.path.exec(path) : null;
    if (match === null) continue;
    const name = `${method} ${path}`;
    if (route.kind === 'send') return sendCall(name, record(body));
    if (route.kind === 'list') return { kind: 'list', name, contextId: query.get('contextId') ?? undefined };
    const taskId = decoded(match[1] ?? '');
    return taskId === undefined ? { kind: 'denied', name } : { kind: route.kind, name, taskId };
  }
  return undefined;
}

/**
 * An HTTP+JSON request's call. `path` is what follows the interface's URL: v0.3 paths start `/v1`; a v1
 * path may start with the tenant's segment. A route not listed is `denied`.
 */
export function restCall(version: '1.0' | '0.3', method: string, path: string, query: URLSearchParams, body: unknown): RelayCall {
  if (version === '0.3') {
    return (path.startsWith('/v1/') ? restMatch(method, path.slice(3), query, body) : undefined) ?? { kind: 'denied', name: `${method} ${path}` };
  }
  const direct = restMatch(method, path, query, body);
  if (direct !== undefined) return direct;
  // `/{tenant}/tasks/…`: the tenant is passed on as the browser sent it (the card gave it).
  const tenanted = /^\/[^/]+(\/.+)$/.exec(path);
  return (tenanted?.[1] === undefined ? undefined : restMatch(method, tenanted[1], query, body)) ?? { kind: 'denied', name: `${method} ${path}` };
}
