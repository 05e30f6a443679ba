import { A2AError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import type { A2AClient } from '../client/a2a-client.js';
import type { Task } from '../model/types.js';
import type { ActionOutcome, LedgerEntry, WorkflowRecord } from './workflow-record.js';

/** Adds an entry (outcome `intended` unless given) and returns it. */
export function addEntry(
  record: WorkflowRecord,
  at: string,
  fields: Omit<LedgerEntry, 'id' | 'history' | 'outcome'> & { outcome?: ActionOutcome; note?: string },
): LedgerEntry {
  const { note, outcome = 'intended', ...rest } = fields;
  const entry: LedgerEntry = { id: `a${record.ledger.length + 1}`, ...rest, outcome, history: [{ at, outcome, ...(note ? { note } : {}) }] };
  record.ledger.push(entry);
  return entry;
}

/** Records what was learned about an entry. */
export function settle(entry: LedgerEntry, at: string, outcome: ActionOutcome, note?: string, result?: unknown): void {
  entry.outcome = outcome;
  entry.history.push({ at, outcome, ...(note ? { note } : {}) });
  if (result !== undefined) entry.result = result;
}

/** The latest entry for this action (same target, operation and key). */
export function findEntry(record: WorkflowRecord, target: string, operation: string, key: string): LedgerEntry | undefined {
  for (let i = record.ledger.length - 1; i >= 0; i--) {
    const e = record.ledger[i] as LedgerEntry;
    if (e.key === key && e.target === target && e.operation === operation) return e;
  }
  return undefined;
}

/**
 * What an error from `client.start()` says about the send: `failed` (the agent answered with an error,
 * or a local check refused it), `not-delivered` (it surely never reached the agent, and trying again
 * may help: the engine gave up on attempts that each failed before arriving), or `unknown`.
 */
export function sendOutcome(error: unknown): 'failed' | 'not-delivered' | 'unknown' {
  if (error instanceof A2AError) return 'failed';
  if (error instanceof TetherError && !error.maybeDelivered) return error.isRetryable || error.code === 'RETRY_EXHAUSTED' ? 'not-delivered' : 'failed';
  return 'unknown';
}

const MAX_PAGES = 5;

/**
 * Looks for the task a message created, by its message id, among the context's tasks (ListTasks):
 * the task, `undefined` when the agent surely has none, or `unknowable` (no ListTasks — v0.3 — or the
 * lookup failed: nothing can be concluded).
 */
export async function findSentTask(client: A2AClient, contextId: string, messageId: string): Promise<Task | undefined | 'unknowable'> {
  try {
    let pageToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTasks({ contextId, pageSize: 100, historyLength: 100, pageToken });
      const found = result.tasks.find((t) => t.history.some((m) => m.messageId === messageId));
      if (found) return found;
      if (!result.nextPageToken) return undefined;
      pageToken = result.nextPageToken;
    }
    return 'unknowable';
  } catch {
    return 'unknowable';
  }
}
