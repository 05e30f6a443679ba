import { A2AError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';

/**
 * Failures after which reconnecting (and reconciling with a snapshot) is the right answer:
 * transient ones, plus a malformed or oversized frame (the task is fine; one event was not).
 * Agent-reported A2A errors and other 4xx are answers, not accidents: never retried.
 */
export function reconnectable(error: unknown): error is TetherError {
  if (!(error instanceof TetherError) || error instanceof A2AError) return false;
  return error.isRetryable || error.code === 'MALFORMED_EVENT' || error.code === 'EVENT_TOO_LARGE';
}
