import { describe, expect, it } from 'vitest';
// A relative import, not `@a2a-tether/core`: core's tests already depend on testkit, and a
// devDependency back would make the workspace cyclic.
import { MemoryTaskStore } from '../../core/src/store/memory-task-store.js';
import type { TaskListFilter, TaskRecord } from '../../core/src/store/task-store.js';
import { contractTaskKey, runTaskStoreContract, taskStoreContract, type TaskStoreContractCase } from '../src/index.js';

const keyOf = (record: TaskRecord): string => contractTaskKey(record.agentUrl, record.taskId);

describe('MemoryTaskStore', () => {
  runTaskStoreContract(() => new MemoryTaskStore(), { describe, it });
});

/** Runs every case and names those that failed, with their messages. */
async function failures(cases: TaskStoreContractCase[]): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  for (const c of cases) {
    await c.run().catch((error: unknown) => failed.set(c.name, error instanceof Error ? error.message : String(error)));
  }
  return failed;
}

function failedCase(failed: Map<string, string>, start: string): string | undefined {
  for (const [name, message] of failed) if (name.startsWith(start)) return message;
  return undefined;
}

describe('the contract catches broken stores', () => {
  it('passes MemoryTaskStore, and disposes of every store it made', async () => {
    const made: MemoryTaskStore[] = [];
    const disposed: MemoryTaskStore[] = [];
    const cases = taskStoreContract(
      () => {
        const store = new MemoryTaskStore();
        made.push(store);
        return store;
      },
      { dispose: (store) => void disposed.push(store) },
    );
    expect(cases.length).toBeGreaterThanOrEqual(15);
    expect([...(await failures(cases)).keys()]).toEqual([]);
    expect(new Set(made).size).toBe(cases.length);
    expect(disposed).toEqual(made);
  });

  it('a store that hands out its own objects fails the copy case', async () => {
    class Sharing extends MemoryTaskStore {
      private readonly shared = new Map<string, TaskRecord>();
      override async put(record: TaskRecord): Promise<void> {
        this.shared.set(keyOf(record), record);
        await super.put(record);
      }
      override async get(key: string): Promise<TaskRecord | undefined> {
        return this.shared.get(key) ?? super.get(key);
      }
    }
    const failed = await failures(taskStoreContract(() => new Sharing()));
    expect(failedCase(failed, 'put then get')).toMatch(/the very object that was put/);
  });

  it('a store that reads, waits, then writes fails the atomicity case', async () => {
    class Racy extends MemoryTaskStore {
      override async update(taskId: string, change: (current: TaskRecord | undefined) => TaskRecord | undefined): Promise<TaskRecord | undefined> {
        const current = await this.get(taskId);
        await Promise.resolve();
        const next = change(current);
        if (next === undefined) await this.delete(taskId);
        else await this.put(next);
        return next;
      }
    }
    const failed = await failures(taskStoreContract(() => new Racy(), { concurrentUpdates: 10 }));
    expect(failedCase(failed, 'update is atomic: 10 concurrent')).toMatch(/the counter after 10 concurrent increments: expected 10, got 1/);
  });

  it('a store that lets a failed update keep what it scribbled fails the throwing case', async () => {
    class Unguarded extends MemoryTaskStore {
      private readonly live = new Map<string, TaskRecord>();
      override async put(record: TaskRecord): Promise<void> {
        this.live.set(keyOf(record), structuredClone(record));
      }
      override async get(taskId: string): Promise<TaskRecord | undefined> {
        const r = this.live.get(taskId);
        return r && structuredClone(r);
      }
      override async update(taskId: string, change: (current: TaskRecord | undefined) => TaskRecord | undefined): Promise<TaskRecord | undefined> {
        const next = change(this.live.get(taskId));
        if (next) this.live.set(taskId, structuredClone(next));
        return next;
      }
    }
    const failed = await failures(taskStoreContract(() => new Unguarded()));
    expect(failedCase(failed, 'a throwing update function')).toMatch(/get\('t-throw'\) after a throwing update: expected .* \(first difference at \.state\)/);
  });

  it('a store that ignores the active filter, or the agent, fails the list cases', async () => {
    class Unfiltered extends MemoryTaskStore {
      override list(_filter?: TaskListFilter): Promise<TaskRecord[]> {
        return super.list();
      }
    }
    const failed = await failures(taskStoreContract(() => new Unfiltered()));
    expect(failedCase(failed, 'list({ active: true })')).toMatch(/list\(\{ active: true \}\) returned/);
    expect(failedCase(failed, 'list({ agentUrl })')).toMatch(/list\(\{ agentUrl: /);
  });

  it('a store whose delete of a missing id throws fails the delete case', async () => {
    class Strict extends MemoryTaskStore {
      override async delete(taskId: string): Promise<void> {
        if (!(await this.get(taskId))) throw new Error(`no task ${taskId}`);
        await super.delete(taskId);
      }
    }
    const failed = await failures(taskStoreContract(() => new Strict()));
    expect(failedCase(failed, 'delete removes a record')).toBe(`no task ${contractTaskKey('http://127.0.0.1:4000/.well-known/agent-card.json', 't-del')}`);
  });

  it('a store that folds case in ids (a case-insensitive file system) fails the odd ids case', async () => {
    class Folding extends MemoryTaskStore {
      override get(key: string): Promise<TaskRecord | undefined> {
        const [agentUrl, taskId] = JSON.parse(key) as [string, string];
        return super.get(contractTaskKey(agentUrl, taskId.toLowerCase())).then((r) => r && { ...r, taskId });
      }
      override put(record: TaskRecord): Promise<void> {
        return super.put({ ...record, taskId: record.taskId.toLowerCase() });
      }
    }
    const failed = await failures(taskStoreContract(() => new Folding()));
    expect(failedCase(failed, 'ids with odd characters')).toMatch(/get\("A"\): expected .*"for A".*, got .*"for a"/);
  });

  it('a store that files records by their task id alone fails the two agents case', async () => {
    class ByIdAlone extends MemoryTaskStore {
      private readonly byId = new Map<string, TaskRecord>();
      override async put(record: TaskRecord): Promise<void> {
        this.byId.set(record.taskId, structuredClone(record));
      }
      override async get(key: string): Promise<TaskRecord | undefined> {
        const r = this.byId.get((JSON.parse(key) as [string, string])[1]);
        return r && structuredClone(r);
      }
      override async list(): Promise<TaskRecord[]> {
        return [...this.byId.values()].map((r) => structuredClone(r));
      }
    }
    const failed = await failures(taskStoreContract(() => new ByIdAlone()));
    expect(failedCase(failed, 'two agents’ tasks of one id')).toMatch(/get\(\) of the other agent's task "1" beside this agent's: expected undefined/);
  });
});
