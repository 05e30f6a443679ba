import type { StoreLease } from '../store/task-store.js';
import type { Scheduler } from '../util/scheduler.js';
import type { EngineClient, PushDelivery } from './follow-context.js';
import type { LeaseKeeper } from './lease-keeper.js';
import type { PushWaiter } from './push-waiter.js';

/**
 * The runners only some apps need, handed to the engine by `connect()`: push delivery (a webhook
 * receiver, a Node server) and leases (a store several processes share). Core's and Node's
 * `connect()` hand both; the browser's hands neither, so a web app's bundle holds neither's code.
 */
export interface EngineParts {
  /** Push delivery: a task's own webhook config and the wait for its pushes. */
  push?:
    | {
        waiter(delivery: PushDelivery, scheduler: Scheduler, newId: () => string): PushWaiter;
        rearm(
          client: EngineClient,
          delivery: PushDelivery | undefined,
          scheduler: Scheduler,
          newId: () => string,
          taskId: string,
          oldConfigId: string | undefined,
          signal: AbortSignal,
        ): Promise<PushWaiter | undefined>;
      }
    | undefined;
  /** Keeps a task's lease (renewals, the local deadline) while the task is driven. */
  lease?: ((lease: StoreLease, askedAt: number, scheduler: Scheduler, lost: (why: string) => void) => LeaseKeeper) | undefined;
}
