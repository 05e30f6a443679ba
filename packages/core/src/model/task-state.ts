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
  // Not an event (the protocol entry is given anything): it ends nothing.
  if (typeof event !== 'object' || event === null) return false;
  // Typed as present, but not from a caller that built the object by hand.
  const state = (event as { status?: { state?: TaskState } | null }).status?.state;
  switch (event.kind) {
    case 'message':
      return true;
    case 'task':
      return state !== undefined && (isTerminalState(state) || isInterruptedState(state));
    case 'status-update':
      return event.final === true || (state !== undefined && (isTerminalState(state) || isInterruptedState(state)));
    case 'artifact-update':
      return false;
  }
  return false;
}
