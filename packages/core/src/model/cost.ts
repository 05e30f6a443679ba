import type { Metadata, Task } from './types.js';

/** A cost an agent reported (in its task's or status message's metadata, `cost`), or your `cost` option read. */
export interface CostRecord {
  amount: number;
  /** e.g. `USD`, `tokens`. */
  unit: string;
}

/** `metadata.cost` as a cost: a finite number (unit `units`) or `{ amount, unit }`; anything else is none. */
export function costIn(metadata: Metadata | undefined): CostRecord | undefined {
  const raw = metadata?.['cost'];
  if (typeof raw === 'number' && Number.isFinite(raw)) return { amount: raw, unit: 'units' };
  if (raw !== null && typeof raw === 'object') {
    const { amount, unit } = raw as { amount?: unknown; unit?: unknown };
    if (typeof amount === 'number' && Number.isFinite(amount)) return { amount, unit: typeof unit === 'string' && unit !== '' ? unit.slice(0, 64) : 'units' };
  }
  return undefined;
}

/** What an agent reported a task cost: `metadata.cost` of the task, else of its final status message. */
export function taskCost(task: Task): CostRecord | undefined {
  return costIn(task.metadata) ?? costIn(task.status.message?.metadata);
}
