import { TASK_RECORD_VERSION, type TaskStore } from '../store/task-store.js';
import type { DeliveryMode } from './follow-state.js';
import { StoreWriter, type RecordChange, type RecordOf, type StoreWriterOptions } from './store-writer.js';

/** What a task's first record says. */
export interface NewRecord {
  taskId: string;
  contextId: string;
  agentUrl: string;
  delivery: DeliveryMode;
  principal: string | undefined;
  now: number;
  /** The trace the task's requests continue (read when the record is made: the first request's by then). */
  trace?: { readonly traceparent?: string | undefined; readonly tracestate?: string | undefined } | undefined;
  parentTaskId?: string | undefined;
  tags?: Readonly<Record<string, string>> | undefined;
}

/**
 * A followed task's record: its first write (the one `start()` waits for, G1), then only the changes
 * that change something, through one {@link StoreWriter} (in order, coalesced, retried through a short
 * outage, fenced by the task's lease).
 */
export class RecordKeeper {
  /** What the record says as far as this follow wrote it (a change equal to it is not written). */
  private readonly written: RecordChange;
  /** Resolves once the task's first record is stored (G1); at once for a known task. */
  readonly stored: Promise<void>;

  private constructor(
    private readonly writer: StoreWriter,
    written: RecordChange,
    stored: Promise<void>,
  ) {
    this.written = written;
    this.stored = stored;
  }

  /** A new task: its record, stored after `options.before` (the lease, when the store leases tasks). */
  static create(store: TaskStore, record: NewRecord, options: StoreWriterOptions): RecordKeeper {
    const { taskId, contextId, agentUrl, delivery, principal, now, parentTaskId, tags } = record;
    const traceparent = record.trace?.traceparent;
    const tracestate = record.trace?.tracestate;
    const writer = new StoreWriter(store, { agentUrl, taskId }, options);
    const stored = writer.put({
      schemaVersion: TASK_RECORD_VERSION,
      taskId,
      contextId,
      agentUrl,
      state: 'submitted',
      createdAt: now,
      updatedAt: now,
      delivery,
      ...(principal === undefined ? {} : { principal }),
      ...(traceparent === undefined ? {} : { trace: { traceparent, ...(tracestate ? { tracestate } : {}) } }),
      ...(parentTaskId === undefined ? {} : { parentTaskId }),
      ...(tags === undefined ? {} : { tags: { ...tags } }),
    });
    return new RecordKeeper(writer, { state: 'submitted', contextId, delivery }, stored);
  }

  /** A known task (resumed): its record exists; only changes are written. */
  static resume(store: TaskStore, task: RecordOf, options: StoreWriterOptions): RecordKeeper {
    return new RecordKeeper(new StoreWriter(store, task, options), {}, Promise.resolve());
  }

  /** Writes `change` unless the record says all of it already. */
  persist(change: RecordChange): void {
    let changed = false;
    for (const [key, value] of Object.entries(change) as [keyof RecordChange, unknown][]) {
      if (this.written[key] !== value) changed = true;
    }
    if (!changed) return;
    Object.assign(this.written, change);
    this.writer.update(change);
  }

  /** Resolves when the writes so far landed; rejects with the last write that failed for good. */
  flush(): Promise<void> {
    return this.writer.flush();
  }
}
