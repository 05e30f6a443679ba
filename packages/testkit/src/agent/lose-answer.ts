import type { RequestBody } from './http-io.js';
import { isObject } from './json-guards.js';

const SEND_METHODS: ReadonlySet<string> = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);

/**
 * Whether a request is a send that creates a task (its message names no `taskId`), on either binding
 * and version: what the `loseAnswers` behaviour applies to. `restPath` is the path below the REST
 * mount point; `undefined` for a JSON-RPC call.
 */
export function isCreatingSend(body: RequestBody, restPath: string | undefined): boolean {
  const json = body.json;
  if (!isObject(json)) return false;
  let holder: unknown;
  if (restPath === undefined) {
    if (typeof json['method'] !== 'string' || !SEND_METHODS.has(json['method'])) return false;
    holder = json['params'];
  } else {
    if (!/\/message:(send|stream)$/.test(restPath)) return false;
    holder = json;
  }
  const message = isObject(holder) ? holder['message'] : undefined;
  return isObject(message) && (message['taskId'] === undefined || message['taskId'] === '');
}
