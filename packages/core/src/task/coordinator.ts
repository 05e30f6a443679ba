import { TetherError, type TetherErrorCode } from '../errors/tether-error.js';
import type { Message, Task } from '../model/types.js';
import type { ConnectionState, TaskEvent } from './task-event.js';

/**
 * What goes between the client that drives a task (holds its stream) and the clients that mirror it
 * (browser tabs of one origin, for instance). Plain data: each message survives a structured clone;
 * errors travel as `{ code, message }`.
 *
 * From the driver: `events` (what its handle emitted, in order, with where each artifact ends), `snapshot` (the whole task and the
 * link state, for a mirror that just arrived), `finished` (the final task), `failed` (the error that
 * ended the follow), `replied` (the answer to a mirror's `reply`). From a mirror: `sync` (send me a
 * snapshot) and `reply` (answer the agent for me).
 */
export type CoordinationMessage =
  /**
   * `ends`: how many parts each artifact the events touch holds once they are applied — so that a
   * mirror which saw a little more or less of the previous driver lines the appends up with what it
   * holds (skipping parts it has, asking for a snapshot when it misses some).
   */
  | { type: 'events'; events: TaskEvent[]; ends?: Record<string, number> | undefined }
  | { type: 'snapshot'; task: Task; connection: ConnectionState }
  | { type: 'finished'; task: Task }
  | { type: 'failed'; error: CarriedError }
  | { type: 'replied'; id: string; error?: CarriedError | undefined }
  | { type: 'sync' }
  | { type: 'reply'; id: string; message: Message };

/** A `TetherError` as it crosses to another client: its code and message. */
export interface CarriedError {
  code: string;
  message: string;
  name?: string | undefined;
}

/**
 * One client's claim on one task: it either drives the task (`leading`) or mirrors the driver until
 * the claim is granted (the driver went away), then drives it from what it mirrored.
 */
export interface TaskClaim {
  /** This client drives the task now. */
  readonly leading: boolean;
  /** Resolves when this claim leads (at once if it already does); never, once released. */
  readonly granted: Promise<void>;
  /** Sends a message to the other clients of this task. */
  send(message: CoordinationMessage): void;
  /** Receives the other clients' messages about this task (one listener; a later call replaces it). */
  onMessage(listener: (message: CoordinationMessage) => void): void;
  /** Gives the claim up: a mirror stops waiting; a driver lets the next client take over. */
  release(): void;
}

/**
 * Decides which of several clients sharing a store drives each task, and carries what the driver sees
 * to the others. `@a2a-tether/browser`'s `tabs: true` is one (Web Locks elect the tab, a
 * BroadcastChannel carries the events). Runtime-neutral: the engine only claims, sends and listens.
 */
export interface TaskCoordinator {
  /** Claims a task: resolves with a claim that leads at once, or mirrors until it is granted. */
  claim(taskId: string): Promise<TaskClaim>;
}

/**
 * What the platform knows about the network and the page (`@a2a-tether/browser` wires `online` /
 * `offline` and `visibilitychange`). The engine makes no attempt while `online()` is false, and a wake
 * (back online, page shown) ends a backoff or poll wait early, after a short random delay.
 */
export interface NetworkSignals {
  /** `false` while the platform knows there is no network. */
  online(): boolean;
  /** Calls `listener` when trying again now is worth it; returns the unsubscribe. */
  onWake(listener: () => void): () => void;
}

/** An error as it crosses to another client (a structured clone keeps neither class nor code). */
export function carried(error: unknown): CarriedError {
  if (error instanceof TetherError) return { code: error.code, message: error.message, name: error.name };
  return { code: 'UNKNOWN', message: error instanceof Error ? error.message : String(error) };
}

export function restored(error: CarriedError, taskId: string): TetherError {
  return new TetherError(error.code as TetherErrorCode, error.message, { taskId, maybeDelivered: true });
}

/**
 * Lines a driver's appends up with what this mirror holds. `ends` says how many parts each artifact had
 * after the events; walking back from it gives where each append started. An append that starts before
 * what the mirror holds loses the parts it already has; one that starts after it means parts are missing
 * here (`undefined`: ask for a snapshot). Appends before a replace of the same artifact are kept as they
 * are (the replace settles them).
 */
export function alignAppends(events: TaskEvent[], ends: Record<string, number> | undefined, held: (artifactId: string) => number): TaskEvent[] | undefined {
  if (!ends) return events;
  // Where each append starts, from the end: undefined before a replace of its artifact.
  const starts: (number | undefined)[] = new Array<number | undefined>(events.length);
  const end: Record<string, number | undefined> = { ...ends };
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i] as TaskEvent;
    if (e.type !== 'artifact') continue;
    const after = end[e.artifactId];
    if (!e.append || after === undefined) {
      end[e.artifactId] = undefined;
      continue;
    }
    starts[i] = after - e.parts.length;
    end[e.artifactId] = after - e.parts.length;
  }
  const counts = new Map<string, number>();
  const count = (id: string): number => counts.get(id) ?? held(id);
  const out: TaskEvent[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as TaskEvent;
    const start = starts[i];
    if (e.type !== 'artifact') {
      out.push(e);
      continue;
    }
    if (!e.append || start === undefined) {
      counts.set(e.artifactId, e.append ? count(e.artifactId) + e.parts.length : e.parts.length);
      out.push(e);
      continue;
    }
    const have = count(e.artifactId);
    if (have < start) return undefined;
    const skip = have - start;
    counts.set(e.artifactId, Math.max(have, start + e.parts.length));
    if (skip >= e.parts.length) continue;
    out.push(skip === 0 ? e : { ...e, parts: e.parts.slice(skip) });
  }
  return out;
}

/** Events as they cross to another client: an error becomes its code and message. */
export function carriedEvent(event: TaskEvent): TaskEvent {
  if ((event.type === 'connection' || event.type === 'store-error') && event.error) {
    return { ...event, error: carried(event.error) as unknown as TetherError };
  }
  return event;
}

export function restoredEvent(event: TaskEvent, taskId: string): TaskEvent {
  if ((event.type === 'connection' || event.type === 'store-error') && event.error && !(event.error instanceof TetherError)) {
    return { ...event, error: restored(event.error as unknown as CarriedError, taskId) };
  }
  return event;
}
