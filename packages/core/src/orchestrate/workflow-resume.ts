import { TetherError } from '../errors/tether-error.js';
import { realScheduler, type Scheduler, type TimerHandle } from '../util/scheduler.js';
import { isUnfinished } from './workflow-lease.js';
import type { WorkflowRecord } from './workflow-record.js';
import { leasesWorkflows, type WorkflowStore } from './workflow-store.js';
import type { WorkflowOptions } from './workflow-types.js';
import { startWorkflow, type Workflow } from './workflow.js';

/** Options of {@link resumeWorkflows} and {@link takeOverWorkflows}. */
export interface ResumeWorkflowsOptions {
  store: WorkflowStore;
  /**
   * How to drive one stored workflow: its hops, agents and the rest of `startWorkflow()`'s options (`id` and
   * `store` are set for you), or `undefined` to leave it alone (e.g. a kind of workflow this process does not
   * run). Called only for workflows still running or paused.
   */
  options: (record: WorkflowRecord) => Omit<WorkflowOptions, 'id' | 'store'> | undefined | Promise<Omit<WorkflowOptions, 'id' | 'store'> | undefined>;
  /** Who this process is, for the leases (see `WorkflowOptions.leaseOwner`). */
  leaseOwner?: string | undefined;
  /**
   * A workflow that could not be resumed (its record is corrupt, its hops no longer match, the store
   * failed): reported here and skipped. A workflow another process holds is skipped silently.
   */
  onError?: ((error: unknown, workflowId: string) => void) | undefined;
  scheduler?: Scheduler | undefined;
}

/**
 * Resumes the stored workflows that have work left and nobody driving them: with a leasing store, those
 * whose lease is free (a process that died or was cut off gave it up at most one TTL ago) — each is started
 * with its lease, from its last saved state: finished hops are not run again, running hops are followed by
 * task id, a send whose outcome is unknown is looked up before anything is sent again. With any other store,
 * every unfinished workflow (one process: after a restart). Returns the workflows it started.
 */
export async function resumeWorkflows(options: ResumeWorkflowsOptions): Promise<Workflow[]> {
  const { store } = options;
  const leasing = leasesWorkflows(store);
  const started: Workflow[] = [];
  for (const id of await store.list()) {
    try {
      if (leasing && (await store.leaseHolder(id)) !== undefined) continue;
      const record = await store.load(id);
      if (!record || !isUnfinished(record)) continue;
      const given = await options.options(record);
      if (!given) continue;
      started.push(await startWorkflow({ ...given, id, store, leaseOwner: options.leaseOwner ?? given.leaseOwner, scheduler: given.scheduler ?? options.scheduler }));
    } catch (error) {
      // Another process got there first: it drives the workflow, which is what was wanted.
      if (error instanceof TetherError && error.code === 'LEASE_HELD') continue;
      options.onError?.(error, id);
    }
  }
  return started;
}

/** Options of {@link takeOverWorkflows}. */
export interface TakeOverWorkflowsOptions extends ResumeWorkflowsOptions {
  /** How often to look (ms). Default 5,000; a quarter of the store's lease TTL takes a workflow over within 1¼ TTL of its driver's death. */
  everyMs?: number | undefined;
  /** Each workflow this process took over. */
  onWorkflow?: ((workflow: Workflow) => void) | undefined;
}

/**
 * Keeps looking for workflows to take over ({@link resumeWorkflows} every `everyMs`) until `stop()`: what a
 * replica of a service runs so that the workflows of a replica that dies are finished by the others.
 */
export function takeOverWorkflows(options: TakeOverWorkflowsOptions): { stop(): void } {
  const scheduler = options.scheduler ?? realScheduler;
  const every = options.everyMs ?? 5_000;
  if (!Number.isFinite(every) || every <= 0) throw new TetherError('INVALID_ARGUMENT', `takeOverWorkflows: everyMs must be a positive number, got ${String(every)}`, { maybeDelivered: false });
  let timer: TimerHandle | undefined;
  let stopped = false;
  const look = (): void => {
    timer = undefined;
    void resumeWorkflows(options)
      .then((workflows) => {
        for (const workflow of workflows) options.onWorkflow?.(workflow);
      }, (error: unknown) => options.onError?.(error, '*'))
      .finally(() => {
        if (!stopped) timer = scheduler.setTimeout(look, every);
      });
  };
  look();
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) scheduler.clearTimeout(timer);
    },
  };
}
