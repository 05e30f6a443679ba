import { A2AError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import type { StreamEvent } from '../model/types.js';

/** A failure a retry may mend: the network, a timeout, a 5xx — never an agent's A2A error. */
export function transient(error: unknown): error is TetherError {
  return error instanceof TetherError && !(error instanceof A2AError) && error.isRetryable;
}

/** Failures after which a new connection (and a snapshot) is the answer: the task is fine, one stream was not. */
export function streamMendable(error: unknown): error is TetherError {
  if (transient(error)) return true;
  return (
    error instanceof TetherError &&
    !(error instanceof A2AError) &&
    (error.code === 'MALFORMED_EVENT' || error.code === 'EVENT_TOO_LARGE' || error.code === 'PROTOCOL_VIOLATION')
  );
}

/** "Cannot subscribe": a finished task (-32004, some servers -32001), no resubscribe (-32601, 404/405/501). */
export function refusesSubscription(error: unknown): boolean {
  if (error instanceof A2AError) return error.a2aCode === -32004 || error.a2aCode === -32001 || error.a2aCode === -32601;
  if (!(error instanceof TetherError)) return false;
  if (error.code === 'UNSUPPORTED_OPERATION') return true;
  return error.code === 'HTTP_STATUS' && (error.status === 404 || error.status === 405 || error.status === 501);
}

/** Anything thrown inside the engine, as a typed error naming the task. */
export function asTetherError(error: unknown, taskId: string | undefined): TetherError {
  if (error instanceof TetherError) return error;
  return new TetherError('PROTOCOL_VIOLATION', `task engine failed: ${String(error)}`, { taskId, cause: error });
}

/** The task a stream event belongs to. */
export function taskIdOf(event: StreamEvent): string | undefined {
  return event.kind === 'task' ? event.id : event.taskId;
}
