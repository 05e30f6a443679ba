import type { ArtifactEvent, TaskEvent } from './task-event.js';

/**
 * `later` folded into `earlier` (same artifact), or `undefined` when they cannot be one event: an
 * append adds its parts; a whole replace supersedes; a replace from index `from` cuts and adds when
 * `earlier` starts at a known index (a replace, or one `from` at or before it).
 */
function mergeArtifact(earlier: ArtifactEvent, later: ArtifactEvent): ArtifactEvent | undefined {
  if (later.append) return merged(earlier, later, [...earlier.parts, ...later.parts]);
  if (later.from === undefined) return later;
  if (earlier.append) return undefined;
  const base = earlier.from ?? 0;
  if (later.from < base) return later;
  return merged(earlier, later, [...earlier.parts.slice(0, later.from - base), ...later.parts]);
}

/** One event: `later`'s names and flags, `earlier`'s start (append, whole, or from an index), these parts. */
function merged(earlier: ArtifactEvent, later: ArtifactEvent, parts: ArtifactEvent['parts']): ArtifactEvent {
  const { from: _from, ...rest } = { ...earlier, ...later };
  const event: ArtifactEvent = { ...rest, append: earlier.append, parts };
  if (earlier.from !== undefined) event.from = earlier.from;
  return event;
}

/**
 * A buffer nobody reads, made small without losing what it says (a follow that keeps no artifact
 * parts cannot resync them from its view): each artifact's events merged (first-seen order), then
 * the latest status, the last `capacity` messages, the latest connection event.
 */
export function compactEvents(events: TaskEvent[], capacity: number): TaskEvent[] {
  const artifacts = new Map<string, ArtifactEvent[]>();
  const messages: TaskEvent[] = [];
  let status: TaskEvent | undefined;
  let connection: TaskEvent | undefined;
  for (const e of events) {
    if (e.type === 'artifact') {
      const held = artifacts.get(e.artifactId);
      if (!held) {
        artifacts.set(e.artifactId, [e]);
        continue;
      }
      const merged = mergeArtifact(held[held.length - 1] as ArtifactEvent, e);
      if (merged) held[held.length - 1] = merged;
      else held.push(e);
    } else if (e.type === 'status') status = e;
    else if (e.type === 'connection') connection = e;
    else messages.push(e);
  }
  const out: TaskEvent[] = [...artifacts.values()].flat();
  if (status) out.push(status);
  out.push(...messages.slice(-capacity));
  if (connection) out.push(connection);
  return out;
}
