type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** The ids an answer or stream event names. */
export interface NamedIds {
  readonly taskIds: string[];
  readonly contextIds: string[];
}

/** What an answer carries: a JSON-RPC envelope's `result` (nothing for an error), else the body itself. */
export function payloadOf(body: unknown): unknown {
  const envelope = record(body);
  if (envelope?.['jsonrpc'] !== undefined) return envelope['error'] !== undefined ? undefined : envelope['result'];
  return body;
}

/**
 * The task and context ids a payload names, in any dialect: a Task (`id` with `status`, or `kind: task`),
 * a message or an update (`taskId`, `contextId`), bare (v0.3 JSON-RPC) or wrapped (`task`, `message`,
 * `msg`, `statusUpdate`, `artifactUpdate`).
 */
export function idsIn(payload: unknown): NamedIds {
  const taskIds: string[] = [];
  const contextIds: string[] = [];
  const top = record(payload);
  if (top === undefined) return { taskIds, contextIds };
  for (const key of [undefined, 'task', 'message', 'msg', 'statusUpdate', 'artifactUpdate']) {
    const item = key === undefined ? top : record(top[key]);
    if (item === undefined) continue;
    const isTask = typeof item['id'] === 'string' && (item['status'] !== undefined || item['kind'] === 'task');
    const taskId = isTask ? item['id'] : item['taskId'];
    if (typeof taskId === 'string' && taskId !== '') taskIds.push(taskId);
    if (typeof item['contextId'] === 'string' && item['contextId'] !== '') contextIds.push(item['contextId']);
  }
  return { taskIds, contextIds };
}

/** A push config's secrets, cut out of an answer in place: `token` and `authentication.credentials`, at any depth (≤ 8). */
export function stripPushSecrets(value: unknown, depth = 0): void {
  if (depth > 8 || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) stripPushSecrets(item, depth + 1);
    return;
  }
  const object = value as Json;
  delete object['token'];
  const authentication = record(object['authentication']);
  if (authentication !== undefined) delete authentication['credentials'];
  for (const item of Object.values(object)) stripPushSecrets(item, depth + 1);
}
