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
