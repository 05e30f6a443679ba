import { TaskNotFoundError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import { taskCost } from '../model/cost.js';
import type { Message, Task } from '../model/types.js';
import { canLease, type LeasingTaskStore, type StoreLease } from '../store/task-store.js';
import { taskKey } from '../store/task-key.js';
import { monotonicNow } from '../util/monotonic-now.js';
import { finalResult } from './final-check.js';
import type { FollowContext } from './follow-context.js';
import type { FollowCore } from './follow-core.js';
import type { Reconciler } from './reconciler.js';

// The task's record at both ends of a follow: the lease taken before its first write, and how the
// follow ended.

/**
 * A new task on a store that leases tasks: its lease, taken before its record is first written (so no
 * other process can find the record, and take the task, before this one holds it), then handed to
 * `hold` with when it was asked for. `undefined` when the store does not lease.
 */
export function leaseFirst(context: FollowContext, taskId: string, hold: (lease: StoreLease, askedAt: number) => void): Promise<void> | undefined {
  const store = context.store;
  if (!canLease(store)) return undefined;
  const asked = monotonicNow(context.scheduler);
  return store.lease(taskKey(context.client.agent.url, taskId), context.owner).then(async (lease) => {
    if (!lease) throw await leaseHeld(context, taskId);
    hold(lease, asked);
  });
}

/**
 * `LEASE_HELD`: the task's lease is another owner's. Names that owner when the store can say (your own
 * name there means a lease of this process: another client, or one taken by hand) and what to do.
 */
export async function leaseHeld(context: FollowContext, taskId: string): Promise<TetherError> {
  const store = context.store as Partial<LeasingTaskStore>;
  const holder = await store.leaseHolder?.(taskKey(context.client.agent.url, taskId)).catch(() => undefined);
  const who = holder === undefined ? 'another owner' : `owner ${JSON.stringify(holder)}`;
  return new TetherError(
    'LEASE_HELD',
    `task ${taskId} is leased by ${who}, not this client (${JSON.stringify(context.owner)}): the engine leases tasks itself (never call store.lease() for it); follow the task there, or resume it once that lease ends`,
    { taskId, maybeDelivered: false },
  );
}

/**
 * How a follow that is over ended, written to the task's record: done (the final state and outcome,
 * kept until the retention ends) with its result, or failed with its error (a task the agent no longer
 * knows is `lost`, not left `working`; a lost lease writes nothing: the record is the new holder's).
 * `undefined` for a detached follow.
 */
export function recordEnd(core: FollowCore): { task: Task } | { error: TetherError } | undefined {
  const phase = core.state.phase;
  const now = core.context.scheduler.now();
  if (phase.name === 'done') {
    const r = core.view as Reconciler;
    const task = finalResult(r, core.state.finalTask);
    const cost = taskCost(task);
    core.persist({ state: r.state, outcome: { kind: 'finished', state: r.state, at: now }, expiresAt: now + core.context.retentionMs, ...(cost ? { cost } : {}) });
    return { task };
  }
  if (phase.name !== 'failed') return undefined;
  const { error } = phase;
  const lastError = { code: error.code, message: error.message, at: now };
  if (error.code !== 'LEASE_LOST') core.persist(error instanceof TaskNotFoundError ? { outcome: { kind: 'lost', at: now }, lastError } : { lastError });
  return { error };
}

/** What a start or reply still unacknowledged when the follow ended is rejected with. */
export function unacknowledged(core: FollowCore, message: Message): TetherError {
  const phase = core.state.phase;
  const { taskId } = core;
  if (phase.name === 'failed') return phase.error;
  if (phase.name === 'done') {
    const state = core.view?.state ?? 'unknown';
    return new TetherError('ABORTED', `task ${taskId ?? ''} ended (${state}) before message ${message.messageId} was acknowledged`, { taskId, messageId: message.messageId });
  }
  return new TetherError('ABORTED', 'stopped following the task', { taskId, messageId: message.messageId });
}
