import { TetherError } from '../errors/tether-error.js';

/** The identifiers a call puts where HTTP+JSON puts path segments. */
export type IdKind = 'task id' | 'push config id' | 'tenant';

/**
 * Refuses an id that is empty, `.` or `..`, before any request. Over HTTP+JSON ids are path
 * segments and URL parsing resolves dot segments, so `getTask('..')` would become `GET {base}/`
 * (and an empty id `GET {base}/tasks/`, another route). JSON-RPC refuses the same ids, so a call
 * means the same on either binding.
 *
 * @throws TetherError `INVALID_ARGUMENT`.
 */
export function checkId(kind: IdKind, value: string, operation: string): void {
  if (value !== '' && value !== '.' && value !== '..') return;
  throw new TetherError('INVALID_ARGUMENT', `the ${kind} ${JSON.stringify(value)} is not valid: it must not be empty, "." or ".."`, {
    operation,
  });
}
