import { TetherError } from '../errors/tether-error.js';
import { randomId } from '../model/message-input.js';
import type { StoreLease } from '../store/task-store.js';
import { LeaseKeeper } from '../task/lease-keeper.js';
import type { Scheduler } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';
import type { WorkflowRecord } from './workflow-record.js';
import { leasesWorkflows, type WorkflowStore } from './workflow-store.js';

/** A workflow lease this process acquired, and when it asked (its monotonic clock): what the lease keeper starts from. */
export interface HeldWorkflowLease {
  lease: StoreLease;
  askedAt: number;
  owner: string;
}

/**
 * With a leasing store: acquires the workflow's lease for this process (`LEASE_HELD` when another holds
 * it) and returns a view of the store whose saves carry the lease's fence. Any other store is returned as is.
 */
export async function leaseWorkflow(store: WorkflowStore, workflowId: string, owner: string | undefined, scheduler: Scheduler): Promise<{ store: WorkflowStore; held?: HeldWorkflowLease }> {
  if (!leasesWorkflows(store)) return { store };
  const me = owner ?? `tether-${randomId()}`;
  const askedAt = monotonicNow(scheduler);
  const lease = await store.lease(workflowId, me);
  if (!lease) {
    const holder = await store.leaseHolder(workflowId).catch(() => undefined);
    throw new TetherError('LEASE_HELD', `workflow ${workflowId} is driven by another process${holder === undefined ? '' : ` (${holder})`}: it holds the workflow's lease`, {
      maybeDelivered: false,
    });
  }
  const fenced: WorkflowStore = {
    load: (id) => store.load(id),
    list: () => store.list(),
    save: (record) => store.save(record, { fence: lease.fence }),
  };
  return { store: fenced, held: { lease, askedAt, owner: me } };
}

/** Whether a workflow record still has work to drive (running or paused). */
export function isUnfinished(record: WorkflowRecord): boolean {
  return record.state === 'running' || record.state === 'paused';
}

/** `opening`'s result; when it fails, the lease is given back first (nothing was driven under it). */
export async function releasing<T>(held: HeldWorkflowLease | undefined, opening: Promise<T>): Promise<T> {
  try {
    return await opening;
  } catch (error) {
    void held?.lease.release().catch(() => undefined);
    throw error;
  }
}

/**
 * Keeps a workflow's lease while its process drives it (renewed every quarter of its TTL); `lost` gets a
 * `LEASE_LOST` error — once — when a renewal is refused or none was confirmed within two thirds of the TTL.
 */
export function keepWorkflowLease(held: HeldWorkflowLease | undefined, scheduler: Scheduler, workflowId: string, lost: (error: TetherError) => void): LeaseKeeper | undefined {
  if (!held) return undefined;
  return new LeaseKeeper(held.lease, held.askedAt, scheduler, (why) =>
    lost(new TetherError('LEASE_LOST', `workflow ${workflowId}: this process (${held.owner}) stopped driving it: ${why}; another process may drive it now`, { maybeDelivered: false })),
  );
}
