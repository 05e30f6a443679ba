import { isTerminalState } from '@a2a-tether/core';
import type { TaskStatus } from '@a2a-tether/core';

function timeOf(status: TaskStatus): number {
  return status.timestamp === undefined ? Number.NaN : Date.parse(status.timestamp);
}

/**
 * Whether `next` may replace `current` as a task's latest status. A terminal state is final, a
 * task never goes back to `submitted`, and when both carry timestamps an older one loses. Between
 * two untimed non-terminal states, the later arrival wins (official senders post in order).
 */
export function movesForward(current: TaskStatus | undefined, next: TaskStatus): boolean {
  if (current === undefined) return true;
  if (isTerminalState(current.state)) return false;
  if (next.state === 'submitted' && current.state !== 'submitted') return false;
  const before = timeOf(current);
  const after = timeOf(next);
  return Number.isNaN(before) || Number.isNaN(after) || after >= before;
}
