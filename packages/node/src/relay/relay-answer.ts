/** An interface of the relay: one binding at one protocol version. */
export interface RelayInterface {
  readonly binding: 'JSONRPC' | 'HTTP+JSON';
  readonly version: '1.0' | '0.3';
}

/** Why the relay answers a call itself: another owner's (or an unknown) task, push refused, a call not served. */
export type Refusal = 'not-found' | 'push' | 'denied';

const REFUSALS: Readonly<Record<Refusal, { code: number; http: number; status: string; reason: string | undefined; message: string }>> = {
  'not-found': { code: -32001, http: 404, status: 'NOT_FOUND', reason: 'TASK_NOT_FOUND', message: 'Task not found' },
  push: { code: -32003, http: 400, status: 'FAILED_PRECONDITION', reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', message: 'Push notifications are not available through this relay' },
  denied: { code: -32601, http: 404, status: 'NOT_FOUND', reason: undefined, message: 'Not served by this relay' },
};

const JSON_TYPE = { 'content-type': 'application/json' };

function errorInfo(reason: string | undefined): unknown[] {
  return reason === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org', metadata: {} }];
}

/**
 * The binding's own answer to a refused call, as the agent would give it: TaskNotFound (-32001, HTTP 404
 * `NOT_FOUND`) for a task or context of someone else — the same as for one that does not exist, so nothing
 * tells the two apart — PushNotificationNotSupported (-32003) for push, MethodNotFound (-32601) otherwise.
 */
export function refusalAnswer(iface: RelayInterface, rpcId: unknown, refusal: Refusal, name: string): Response {
  const r = REFUSALS[refusal];
  const message = refusal === 'denied' ? `${r.message}: ${name}` : r.message;
  if (iface.binding === 'JSONRPC') {
    const error = { code: r.code, message, ...(iface.version === '1.0' && r.reason !== undefined ? { data: errorInfo(r.reason) } : {}) };
    return new Response(JSON.stringify({ jsonrpc: '2.0', id: rpcId ?? null, error }), { status: 200, headers: JSON_TYPE });
  }
  return new Response(JSON.stringify({ error: { code: r.http, status: r.status, message, details: errorInfo(r.reason) } }), { status: r.http, headers: JSON_TYPE });
}

/** A plain HTTP refusal of the relay itself (no session, too large, too many, the agent unreachable). */
export function httpError(status: number, message: string, headers: Record<string, string> = {}): Response {
  const name = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 404: 'NOT_FOUND', 413: 'RESOURCE_EXHAUSTED', 429: 'RESOURCE_EXHAUSTED', 502: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED' }[status] ?? 'UNKNOWN';
  return new Response(JSON.stringify({ error: { code: status, status: name, message } }), { status, headers: { ...JSON_TYPE, ...headers } });
}

/** Secrets shorter than this are not cut out: they would cut ordinary text everywhere. */
const MIN_SECRET_LENGTH = 8;

/**
 * Cuts the values of the agent's credentials headers out of text the browser is about to receive: each
 * value whole, its part after the scheme (`Bearer <token>` → `<token>`), and each as JSON escapes it.
 */
export function redactor(values: readonly string[]): (text: string) => string {
  const secrets = new Set<string>();
  for (const value of values) {
    for (const secret of [value, value.slice(value.indexOf(' ') + 1)]) {
      if (secret.length < MIN_SECRET_LENGTH) continue;
      secrets.add(secret);
      secrets.add(JSON.stringify(secret).slice(1, -1));
    }
  }
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  if (ordered.length === 0) return (text) => text;
  return (text) => ordered.reduce((out, secret) => out.replaceAll(secret, '[redacted]'), text);
}
