import type { StreamEvent } from '@a2a-tether/core';
import { decodeStreamEvent, DecodeError } from '@a2a-tether/core/protocol';
import { refusal, type Refusal } from './push-answer.js';

/** A push body decoded: the JSON, the A2A event it carries and the task it names. */
export interface DecodedPush {
  readonly parsed: unknown;
  readonly event: StreamEvent;
  readonly taskId: string;
}

/** Where the event says it belongs. */
function taskIdOf(event: StreamEvent): string | undefined {
  const id = event.kind === 'task' ? event.id : event.taskId;
  return id === undefined || id === '' ? undefined : id;
}

/**
 * The decode stage: UTF-8 JSON, then a v1.0 StreamResponse or a v0.3 Task (the core decoders), naming a
 * task. 400 otherwise.
 */
export function decodePush(raw: Uint8Array): DecodedPush | Refusal {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    return refusal(400, 'body is not valid UTF-8 JSON');
  }
  let event: StreamEvent;
  try {
    const v03 = typeof parsed === 'object' && parsed !== null && 'kind' in parsed;
    event = decodeStreamEvent(parsed, v03 ? 'v03' : 'v1');
  } catch (error) {
    const reason = error instanceof DecodeError ? error.message : String(error);
    return refusal(400, `body is not an A2A push (task, status, artifact or message): ${reason}`);
  }
  const taskId = taskIdOf(event);
  if (taskId === undefined) return refusal(400, `the ${event.kind} names no task`);
  return { parsed, event, taskId };
}

/** 409 when the event carries a status or history message of another task than its own. */
export function foreignMessage(push: DecodedPush): Refusal | undefined {
  const { event, taskId } = push;
  const messages = event.kind === 'task' ? [event.status.message, ...event.history] : event.kind === 'status-update' ? [event.status.message] : [];
  for (const message of messages) {
    const inner = message?.taskId;
    if (inner !== undefined && inner !== '' && inner !== taskId) {
      return refusal(409, `the ${event.kind} for task ${taskId} carries a message of task ${inner}`, { taskId });
    }
  }
  return undefined;
}
