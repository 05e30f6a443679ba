import type { StreamEvent, TaskState } from './types.js';

const TERMINAL: ReadonlySet<TaskState> = new Set(['completed', 'failed', 'canceled', 'rejected']);
const INTERRUPTED: ReadonlySet<TaskState> = new Set(['input-required', 'auth-required']);

/** `completed`, `failed`, `canceled`, `rejected`: the task will never change again. */
export function isTerminalState(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/** `input-required`, `auth-required`: the task waits for the client. */
export function isInterruptedState(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

/**
 * Whether a stream may legitimately end after this event: a message reply, a terminal or
 * interrupted state, or a v0.3 `final: true`. Anything else followed by the end of the
 * stream is a premature close.
 */
export function endsStream(event: StreamEvent): boolean {
  switch (event.kind) {
    case 'message':
      return true;
    case 'task':
      return isTerminalState(event.status.state) || isInterruptedState(event.status.state);
    case 'status-update':
      return event.final === true || isTerminalState(event.status.state) || isInterruptedState(event.status.state);
    case 'artifact-update':
      return false;
  }
}
