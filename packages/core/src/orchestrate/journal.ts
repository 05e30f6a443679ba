import { isTetherError } from '../errors/tether-error.js';
import { sleep, type Scheduler } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';
import { moveNode } from './node-moves.js';
import type { CheckpointRecord, NodeRecord, NodeState, WorkflowRecord } from './workflow-record.js';
import type { WorkflowStore } from './workflow-store.js';
import type { WorkflowEvent } from './workflow-types.js';
import { invalid } from './workflow-errors.js';

/** One attempt of one node, as a key (live tasks, stops asked for, hop budgets). */
export function attemptKey(node: string, attempt: number): string {
  return `${node}#${attempt}`;
}

/**
 * The workflow's record and its writes: copies go to the store in call order, and the node events a
 * write holds go out (to `written`) only once it is stored. Node states change only through
 * {@link Journal.move}, which checks the move.
 */
export class Journal {
  private saving: Promise<void> = Promise.resolve();
  /** Events whose change is not written yet. */
  private readonly unsaved: WorkflowEvent[] = [];

  constructor(
    readonly record: WorkflowRecord,
    private readonly store: WorkflowStore,
    private readonly now: () => number,
    private readonly written: (event: WorkflowEvent) => void,
    /** A save nobody awaits failed: the store failed. */
    private readonly failed: (error: unknown) => void,
    /**
     * Saves that fail with a retryable store error (`STORE_UNAVAILABLE`: Redis down or out of reach) are tried
     * again — after 250 ms, then up to every 2 s — while `canRetry()` (the workflow still runs and holds its
     * lease) and for at most `budgetMs` in all; then the error stands.
     */
    private readonly retry?: { scheduler: Scheduler; canRetry: () => boolean; budgetMs: number },
  ) {}

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  node(id: string): NodeRecord {
    const node = this.record.nodes[id];
    if (!node) throw invalid(`no node ${id}`);
    return node;
  }

  /** Moves a node (see `moveNode`); its `node` event goes out once the next save has written it. */
  move(node: NodeRecord, state: NodeState, reason?: string): void {
    const event = moveNode(node, state, reason);
    if (event) this.unsaved.push(event);
  }

  /** An event that goes out once the next save has written what it says. */
  after(event: WorkflowEvent): void {
    this.unsaved.push(event);
  }

  /** Persists a copy of the record (writes are applied in call order), then emits the events it holds. */
  save(): Promise<void> {
    const copy = structuredClone(this.record);
    const events = this.unsaved.splice(0);
    const write = this.saving.then(() => this.saveCopy(copy)).then(() => {
      for (const event of events) this.written(event);
    });
    this.saving = write.catch(() => undefined);
    return write;
  }

  private async saveCopy(copy: WorkflowRecord): Promise<void> {
    const retry = this.retry;
    const until = retry ? monotonicNow(retry.scheduler) + retry.budgetMs : 0;
    for (let wait = 250; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        return await this.store.save(copy);
      } catch (error) {
        const again = retry !== undefined && isTetherError(error) && error.code === 'STORE_UNAVAILABLE' && retry.canRetry() && monotonicNow(retry.scheduler) + wait <= until;
        if (!again) throw error;
      }
      await sleep(retry.scheduler, wait);
    }
  }

  /** Saves without waiting; a failure goes to `failed`. */
  saveInBackground(): void {
    this.save().catch(this.failed);
  }

  /** Adds a checkpoint: what is realized, what is reusable, what is pending, the budget left. */
  checkpoint(reason: string): void {
    const record = this.record;
    const checkpoint: CheckpointRecord = {
      at: this.iso(),
      reason,
      revision: record.revision,
      realized: record.ledger.filter((e) => e.outcome === 'confirmed-success' && e.operation !== 'CancelTask').map((e) => e.id),
      reusable: Object.values(record.nodes)
        .filter((n) => n.state === 'completed')
        .map((n) => ({ node: n.id, taskId: n.attempts.find((a) => a.adopted)?.taskId })),
      pending: [
        ...record.ledger.filter((e) => e.outcome === 'unknown' || e.outcome === 'unresolved' || e.outcome === 'intended').map((e) => e.id),
        ...Object.values(record.nodes).flatMap((n) => n.attempts.filter((a) => a.cancel?.outcome === 'requested').map((a) => `cancel of task ${a.taskId}`)),
      ],
      ...(record.deadlineAt === undefined ? {} : { remainingMs: Math.max(0, record.deadlineAt - this.now()) }),
    };
    record.checkpoints.push(checkpoint);
  }
}
