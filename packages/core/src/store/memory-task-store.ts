import { StoreWatchers } from './store-watchers.js';
import { taskKey } from './task-key.js';
import { isActiveRecord, type TaskListFilter, type TaskRecord, type WatchableTaskStore } from './task-store.js';

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /**
   * Records of finished (or lost) tasks kept at most; beyond, the oldest finished ones are forgotten
   * before their retention ends, so a long-running process stays bounded (G8). Default 1,000. Records
   * of live tasks are never evicted.
   */
  maxFinishedRecords?: number | undefined;
}

/** A task store in memory: the default; lost when the process ends. Keyed by `taskKey(agentUrl, taskId)`. Says when its records change (`watch`). */
export class MemoryTaskStore implements WatchableTaskStore {
  private readonly records = new Map<string, TaskRecord>();
  private readonly watchers = new StoreWatchers();
  private telling = false;
  /** Finished records, oldest first (a Set keeps insertion order). */
  private readonly finished = new Set<string>();
  private readonly maxFinished: number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.maxFinished = options.maxFinishedRecords ?? 1_000;
  }

  async get(key: string): Promise<TaskRecord | undefined> {
    const record = this.records.get(key);
    return record ? structuredClone(record) : undefined;
  }

  async put(record: TaskRecord): Promise<void> {
    this.set(structuredClone(record));
    this.changed();
  }

  async update(
    key: string,
    change: (current: TaskRecord | undefined) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined> {
    // Synchronous between read and write: atomic within this process.
    const current = this.records.get(key);
    const next = change(current ? structuredClone(current) : undefined);
    if (next === undefined) this.forget(key);
    else this.set(structuredClone(next));
    this.changed();
    return next;
  }

  async list(filter: TaskListFilter = {}): Promise<TaskRecord[]> {
    return [...this.records.values()].filter((r) => (!filter.active || isActiveRecord(r)) && (filter.agentUrl === undefined || r.agentUrl === filter.agentUrl)).map((r) => structuredClone(r));
  }

  async delete(key: string): Promise<void> {
    this.forget(key);
    this.changed();
  }

  watch(onChange: () => void): () => void {
    return this.watchers.add(onChange);
  }

  /** Tells the watchers once, after the writes of this turn. */
  private changed(): void {
    if (this.telling || this.watchers.size === 0) return;
    this.telling = true;
    queueMicrotask(() => {
      this.telling = false;
      this.watchers.tell();
    });
  }

  private set(record: TaskRecord): void {
    const key = taskKey(record.agentUrl, record.taskId);
    this.records.set(key, record);
    this.finished.delete(key);
    if (isActiveRecord(record)) return;
    this.finished.add(key);
    for (const oldest of this.finished) {
      if (this.finished.size <= this.maxFinished) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    this.records.delete(key);
    this.finished.delete(key);
  }
}
