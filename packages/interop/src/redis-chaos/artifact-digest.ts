import { createHash } from 'node:crypto';
import type { Task } from '@a2a-tether/core';

/** A digest of a task's artifacts (ids and every part, in order): equal digests, equal artifacts. */
export function artifactDigest(task: Pick<Task, 'artifacts'>): string {
  const shape = task.artifacts.map((a) => [a.artifactId, a.parts.map((p) => (p.kind === 'text' ? p.text : JSON.stringify(p)))]);
  return createHash('sha256').update(JSON.stringify(shape)).digest('hex').slice(0, 16);
}
