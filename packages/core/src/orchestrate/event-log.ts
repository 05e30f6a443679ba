import type { WorkflowEvent } from './workflow-types.js';

/** Every event of a workflow, in order: each reader gets all of them from the start, then live ones. */
export class EventLog {
  private readonly log: WorkflowEvent[] = [];
  private readonly wake = new Set<() => void>();

  get length(): number {
    return this.log.length;
  }

  emit(event: WorkflowEvent): void {
    this.log.push(event);
    this.wakeAll();
  }

  /** Wakes every reader waiting for an event (to see that the log is closed). */
  wakeAll(): void {
    for (const wake of [...this.wake]) wake();
  }

  /** Reads until `done`, the signal aborts, or `closed()` says no more events will come. */
  async *read(closed: () => boolean, signal?: AbortSignal): AsyncGenerator<WorkflowEvent> {
    let index = 0;
    for (;;) {
      while (index < this.log.length) {
        const event = this.log[index++] as WorkflowEvent;
        yield event;
        if (event.type === 'done') return;
      }
      if (signal?.aborted || closed()) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.wake.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.wake.add(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }
}
