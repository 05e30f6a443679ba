import { clone } from './model.js';
import type { TaskSnapshot, TestArtifact } from './model.js';
import type { TaskEntry } from './task-registry.js';

/**
 * The task as it was right after event `seq` (1 = the creation), rebuilt from its event log: the status
 * of the last status event up to there, the artifacts those events built, and the history as long as
 * it was then. Used by the `stale` misbehaviour to answer GetTask with an older state.
 */
export function taskAsOf(entry: TaskEntry, seq: number): TaskSnapshot {
  const upTo = Math.min(Math.max(1, seq), entry.events.length);
  const first = entry.events[0];
  if (first?.type !== 'task' || upTo === entry.events.length) return entry.snapshot();
  let status = first.task.status;
  const artifacts: TestArtifact[] = clone(first.task.artifacts);
  for (const event of entry.events.slice(1, upTo)) {
    if (event.type === 'status') {
      status = event.status;
    } else if (event.type === 'artifact') {
      const index = artifacts.findIndex((a) => a.artifactId === event.artifact.artifactId);
      const existing = artifacts[index];
      if (event.append && existing !== undefined) existing.parts.push(...clone(event.artifact.parts));
      else if (existing !== undefined) artifacts[index] = clone(event.artifact);
      else artifacts.push(clone(event.artifact));
    }
  }
  const historyLength = entry.historyLengths[upTo - 1] ?? entry.history.length;
  const task: TaskSnapshot = clone({
    id: entry.id,
    contextId: entry.contextId,
    status,
    artifacts,
    history: entry.history.slice(0, historyLength),
  });
  if (entry.misbehaviour.generations) task.generation = upTo;
  return task;
}
