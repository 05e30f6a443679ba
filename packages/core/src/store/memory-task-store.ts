import { isActiveRecord, type TaskListFilter, type TaskRecord, type TaskStore } from './task-store.js';

/** A {@link TaskStore} in memory: the default; lost when the process ends. */
export class MemoryTaskStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>();

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = this.records.get(taskId);
    return record ? structuredClone(record) : undefined;
  }

  async put(record: TaskRecord): Promise<void> {
    this.records.set(record.taskId, structuredClone(record));
  }

  async update(
    taskId: string,
    change: (current: TaskRecord | undefined) => TaskRecord | undefined,
  ): Promise<TaskRecord | undefined> {
    // Synchronous between read and write: atomic within this process.
    const current = this.records.get(taskId);
    const next = change(current ? structuredClone(current) : undefined);
    if (next === undefined) this.records.delete(taskId);
    else this.records.set(taskId, structuredClone(next));
    return next;
  }

  async list(filter: TaskListFilter = {}): Promise<TaskRecord[]> {
    return [...this.records.values()]
      .filter((r) => (filter.active ? isActiveRecord(r) : true))
      .filter((r) => (filter.agentUrl === undefined ? true : r.agentUrl === filter.agentUrl))
      .map((r) => structuredClone(r));
  }

  async delete(taskId: string): Promise<void> {
    this.records.delete(taskId);
  }
}
