import type { TestTaskState } from './model.js';
import type { TaskEntry } from './task-registry.js';
import type { StreamItem } from './wire-codec.js';

/** A made-up id in UUID shape, determined by the seed and the event index. */
function madeUpId(entry: TaskEntry, seq: number, label: string): string {
  const hex = [0, 1, 2, 3]
    .map((i) => Math.floor(entry.misbehaviour.random(seq, `${label}-${i}`) * 0x1_0000_0000).toString(16).padStart(8, '0'))
    .join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The events of another task that the `foreign` misbehaviour slips into `entry`'s streams after event
 * `seq`: an artifact-update whose text says `FOREIGN` and a status-update (`completed` at the first such
 * point, else seeded `working` or `completed`), in seeded order. The other task is one the agent really
 * has (seeded pick) or a made-up one; its contextId is that task's, a made-up one, or — seeded — this
 * task's own, since tasks of one context are real and only the taskId tells them apart.
 */
export function foreignItems(entry: TaskEntry, seq: number, others: readonly TaskEntry[]): StreamItem[] {
  const mb = entry.misbehaviour;
  const real = others.length > 0 && mb.random(seq, 'foreign-real') < 0.5 ? others[mb.int(seq, 'foreign-pick', 0, others.length - 1)] : undefined;
  const taskId = real?.id ?? madeUpId(entry, seq, 'foreign-task');
  const sameContext = mb.random(seq, 'foreign-context') < 0.3;
  const contextId = sameContext ? entry.contextId : (real?.contextId ?? madeUpId(entry, seq, 'foreign-context'));
  const state: TestTaskState = seq === mb.firstForeignAt || mb.random(seq, 'foreign-state') < 0.5 ? 'completed' : 'working';
  // Just after the task's own latest status, so it looks current whatever the task's clock says.
  const ownTime = Date.parse(entry.status.timestamp);
  const status: StreamItem = {
    kind: 'status',
    taskId,
    contextId,
    status: {
      state,
      timestamp: new Date(ownTime + 1).toISOString(),
      message: {
        messageId: madeUpId(entry, seq, 'foreign-message'),
        role: 'agent',
        parts: [{ kind: 'text', text: `FOREIGN status of task ${taskId}` }],
        taskId,
        contextId,
      },
    },
    final: state === 'completed',
  };
  const artifact: StreamItem = {
    kind: 'artifact',
    taskId,
    contextId,
    // Half of the time the same id as this task's own artifacts, to tempt a client that keys on it alone.
    artifact: {
      artifactId: mb.random(seq, 'foreign-artifact-id') < 0.5 ? 'result' : 'foreign-artifact',
      name: 'result',
      parts: [{ kind: 'text', text: `FOREIGN chunk ${seq};` }],
    },
    append: mb.random(seq, 'foreign-append') < 0.5,
    lastChunk: true,
  };
  return mb.random(seq, 'foreign-order') < 0.5 ? [status, artifact] : [artifact, status];
}
