import { TetherError, redact } from '@a2a-tether/core';

/** What a store call was doing, for its error. */
export interface CallSite {
  /** e.g. `RedisTaskStore.put`. */
  operation: string;
  taskId?: string | undefined;
  /** Reads fail with STORE_READ_FAILED, writes with STORE_WRITE_FAILED (when Redis answers with an error). */
  writes: boolean;
}

// Error replies that mean "not now" rather than "not this": a server loading its data, busy with a
// script, a replica that cannot take writes, a cluster moving slots.
const TRANSIENT_REPLY = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|READONLY|CLUSTERDOWN)\b/;

function isErrorReply(error: unknown): boolean {
  // node-redis's ErrorReply and its subclasses; by prototype chain name, so a client from another copy counts too.
  for (let p = error === null || typeof error !== 'object' ? null : Object.getPrototypeOf(error); p !== null; p = Object.getPrototypeOf(p)) {
    if ((p as { constructor?: { name?: string } }).constructor?.name === 'ErrorReply') return true;
  }
  return false;
}

/** Which store a call site belongs to, for messages. */
function storeName(site: CallSite): string {
  return site.operation.includes('Workflow') ? 'Redis workflow store' : 'Redis task store';
}

/** Redis could not be asked (down, cut off, too slow): retryable, nothing is known to be written. */
export function unavailable(site: CallSite, why: string, cause?: unknown): TetherError {
  return new TetherError('STORE_UNAVAILABLE', `${storeName(site)}: ${site.operation}${site.taskId === undefined ? '' : ` of task ${site.taskId}`} failed: ${why}`, {
    operation: site.operation,
    taskId: site.taskId,
    cause,
    isRetryable: true,
  });
}

/** A failure of a Redis command as a typed error. */
export function storeError(site: CallSite, error: unknown): TetherError {
  if (error instanceof TetherError) return error;
  const message = redact(error instanceof Error ? error.message : String(error));
  if (isErrorReply(error) && !TRANSIENT_REPLY.test(message)) {
    return new TetherError(site.writes ? 'STORE_WRITE_FAILED' : 'STORE_READ_FAILED', `${storeName(site)}: ${site.operation}${site.taskId === undefined ? '' : ` of task ${site.taskId}`}: Redis answered ${message}`, {
      operation: site.operation,
      taskId: site.taskId,
      cause: error,
    });
  }
  return unavailable(site, message === '' ? 'the connection failed' : message, error);
}

/**
 * Runs one Redis command, bounded by `timeoutMs`: past it the call fails with STORE_UNAVAILABLE, so a
 * store call never waits out an outage (a command may still reach Redis later: writes that matter are
 * compare-and-set or fenced, so a late one cannot overwrite a newer record).
 */
export async function bounded<T>(site: CallSite, timeoutMs: number, command: () => Promise<T>, lateWhy = `no answer from Redis within ${timeoutMs} ms`): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable(site, lateWhy)), timeoutMs);
  });
  try {
    return await Promise.race([command(), late]);
  } catch (error) {
    throw storeError(site, error);
  } finally {
    clearTimeout(timer);
  }
}
