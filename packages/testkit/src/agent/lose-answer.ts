import type { IncomingMessage } from 'node:http';
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

/**
 * Thrown by an operation that did its work but whose answer is to be lost (`cutCancel`): the binding
 * resets the connection instead of answering.
 */
export class AnswerCut extends Error {
  override readonly name = 'AnswerCut';
}

/** When `error` is an {@link AnswerCut}: resets the request's connection (TCP RST) and says so. */
export function cutAnswer(req: IncomingMessage, error: unknown): boolean {
  if (!(error instanceof AnswerCut)) return false;
  req.socket.resetAndDestroy();
  return true;
}
