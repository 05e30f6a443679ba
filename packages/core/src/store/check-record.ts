import { TetherError } from '../errors/tether-error.js';
import { TASK_RECORD_VERSION, type TaskRecord } from './task-store.js';
import { taskIdOf, taskKey } from './task-key.js';

/** Where a stored value came from, for the messages of {@link checkTaskRecord}: e.g. `Redis key tether:task:t1`. */
export interface RecordOrigin {
  /** What held the value, e.g. `Redis key tether:task:t1` or `IndexedDB record t1`. */
  where: string;
  /** The store operation, e.g. `RedisTaskStore.get`. */
  operation: string;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** Why `value` is not the record of the task of `key`, or `undefined` when it is one. */
function problemOf(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `is not a JSON object (${shown(value)})`;
  const { taskId: storedId, agentUrl, schemaVersion } = value as Record<string, unknown>;
  if (typeof storedId !== 'string' || storedId === '') return 'has no taskId';
  if (typeof agentUrl !== 'string') return 'has no agentUrl';
  if (taskKey(agentUrl, storedId) !== key) return `holds task ${shown(storedId)} of agent ${shown(agentUrl)}, not the task of key ${shown(key)}`;
  if (typeof schemaVersion !== 'number' || !Number.isInteger(schemaVersion)) return 'has no schemaVersion';
  if (schemaVersion > TASK_RECORD_VERSION) {
    return `has schemaVersion ${schemaVersion}, newer than the ${TASK_RECORD_VERSION} this version of Tether reads (written by a newer Tether?)`;
  }
  return undefined;
}

function corrupt(origin: RecordOrigin, key: string, why: string, cause?: unknown): TetherError {
  return new TetherError('STORE_CORRUPT', `${origin.where} ${why}; put() or delete() the task to replace it`, {
    operation: origin.operation,
    taskId: taskIdOf(key),
    cause,
  });
}

/**
 * Checks a value a store read for the task of `key` (`taskKey(agentUrl, taskId)`): a JSON object whose
 * `agentUrl` and `taskId` make that key and whose `schemaVersion` this version of Tether reads. Returns it as a {@link TaskRecord}; otherwise throws a
 * `STORE_CORRUPT` {@link TetherError} naming where it was found and why. For stores of your own: `get`
 * throws it, `list` skips the record and reports it, so one bad record never hides the others.
 */
export function checkTaskRecord(value: unknown, key: string, origin: RecordOrigin): TaskRecord {
  const why = problemOf(value, key);
  if (why !== undefined) throw corrupt(origin, key, why);
  return value as TaskRecord;
}

/** {@link checkTaskRecord} of a record stored as JSON text: text that is not JSON is `STORE_CORRUPT` too. */
export function parseTaskRecord(text: string, key: string, origin: RecordOrigin): TaskRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw corrupt(origin, key, `is not valid JSON (truncated or overwritten? ${text.length} characters)`, error);
  }
  return checkTaskRecord(value, key, origin);
}
