import { isTetherError } from '../errors/tether-error.js';
import type { SchemaMismatchError } from './data-of.js';

/**
 * `true` for the error `task.data(schema)` or `dataOf` rejects with when the agent's data part does not
 * match the schema, or there is none (code `SCHEMA_MISMATCH`): then `part` and `issues` are there to read.
 */
export function isSchemaMismatch(error: unknown): error is SchemaMismatchError {
  return isTetherError(error) && error.code === 'SCHEMA_MISMATCH';
}
