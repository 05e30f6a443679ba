import type { StreamEvent } from '../model/types.js';

/** What to do with an event, by its generation: apply it, drop it (applied already), or fill a gap first. */
export type GenerationVerdict = 'apply' | 'drop' | 'gap';

/**
 * One task's generations (A2A v1.1 draft, §3.2.7), when `connect(url, { experimental: { generations } })`
 * turned them on. The agent raises the task's generation by one per change and stamps each event with
 * it, so an event at or below the last generation applied is a replay (dropped, whatever its content),
 * and one past the next is a gap (a GetTask fills it). An agent that does not keep generations shows
 * it — an event or snapshot without one (0), or two events in a row with the same one — and from then
 * on the reconciler's own deduplication decides, for the rest of the task.
 */
export class GenerationGate {
  /** The generation of the task as applied; `undefined` until the agent sent one. */
  last: number | undefined;
  /** The agent does not keep generations: the gate lets everything through, for good. */
  off = false;
  /**
   * The generation of the previous update event (across connections: an agent that sends the same one
   * on a new connection is taken at its word, and followed as before); `0` (no event's) once a snapshot
   * filled a gap: the event that showed the gap is applied next, whatever it says (one GetTask per gap).
   */
  private previous: number | undefined;

  /** The generation to long-poll past (`currentGeneration`), or to send as `ifGenerationMatch`. */
  get known(): number | undefined {
    return this.off ? undefined : this.last;
  }

  /** The snapshot of a GetTask filled the gap (it went through {@link admit}). */
  fill(): void {
    this.previous = 0;
  }

  /** Whether `event` is applied, dropped, or waits for a gap to be filled. Messages carry no generation. */
  admit(event: StreamEvent): GenerationVerdict {
    if (this.off || event.kind === 'message') return 'apply';
    const { last, previous } = this;
    const generation = event.generation;
    const update = event.kind !== 'task';
    if (generation === undefined || (update && generation === previous)) {
      this.off = true;
      return 'apply';
    }
    if (update) this.previous = generation;
    if (last !== undefined) {
      // A snapshot as new as the view is applied: nothing in it is news, but it may be the final result.
      if (update ? generation <= last : generation < last) return 'drop';
      if (update && generation > last + 1 && previous !== 0) return 'gap';
    }
    this.last = generation;
    return 'apply';
  }
}
