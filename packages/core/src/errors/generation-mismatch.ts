import { A2AError } from './a2a-errors.js';
import { isObject } from '../util/is-object.js';
import { readGeneration } from '../protocol/generation.js';

/** What the agent said of a message it refused for its `ifGenerationMatch` (see {@link generationMismatch}). */
export interface GenerationMismatch {
  /** The task the message was for. */
  taskId: string | undefined;
  /** The generation the message required (`ifGenerationMatch`), when the agent said. */
  expectedGeneration: number | undefined;
  /** The task's generation when the agent refused the message, when the agent said. */
  currentGeneration: number | undefined;
}

/**
 * A2A v1.1 draft: when `error` is the agent's `TaskGenerationMismatchError` — an `A2AError` of code
 * -32010 (JSON-RPC), or over HTTP+JSON a 409 (412 in an earlier draft) with the `ErrorInfo` reason
 * `TASK_GENERATION_MISMATCH` — what it says: the task changed since the generation the message was
 * sent with (`ifGenerationMatch`), and the agent did nothing with the message (the error's
 * `maybeDelivered` is `false`: re-read the task, then decide whether to send again). `undefined` for
 * any other error. (A reader rather than a class of its own: the first load of a page builds every
 * error class, and this one is for a draft.)
 */
export function generationMismatch(error: unknown): GenerationMismatch | undefined {
  if (!(error instanceof A2AError) || error.a2aCode !== -32010) return undefined;
  const details: unknown[] = Array.isArray(error.data) ? error.data : [];
  const metadata: Record<string, unknown> = details.map((d) => isObject(d) && d['metadata']).find(isObject) ?? {};
  const taskId = metadata['taskId'];
  return {
    taskId: typeof taskId === 'string' ? taskId : error.taskId,
    expectedGeneration: readGeneration(metadata['expectedGeneration']),
    currentGeneration: readGeneration(metadata['currentGeneration']),
  };
}
