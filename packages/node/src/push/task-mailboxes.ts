import type { StreamEvent, Task, TaskStatus } from '@a2a-tether/core';
import { BodyWindow } from './body-window.js';
import type { PushListener, PushNotice } from './push-notice.js';
import { movesForward } from './status-order.js';

interface Pending {
  status: TaskStatus | undefined;
  task: Task | undefined;
  event: StreamEvent;
  pushes: number;
  /** How many of `pushes` each sender (see push-sender.ts) sent: the per-sender bound. */
  readonly bySender: Map<string, number>;
}

/** One expected task: its token digest, its listeners and at most one pending (merged) notice. */
interface Mailbox {
  tokenDigest: Buffer | undefined;
  readonly listeners: Set<PushListener>;
  pending: Pending | undefined;
  /** The latest status accepted so far (delivered or pending), for the forward-only rule. */
  status: TaskStatus | undefined;
  /** A listener is still busy with the previous notice. */
  busy: boolean;
  /** Digests of the bodies accepted within the window, to deliver an identical push once. */
  readonly bodies: BodyWindow;
}

/** What {@link TaskMailboxes.offer} did with an event. */
export type OfferResult = 'queued' | 'stale';

/**
 * The expected tasks and their notices. Per task, everything that arrives while the listeners have
 * not taken the previous notice is merged into one pending notice, so memory is O(tasks) whatever
 * the number of pushes; the notice counts the pushes it stands for per sender (the per-task,
 * per-sender 429 bound), so a flood of one task, or of one sender, never fills another's room.
 */
export class TaskMailboxes {
  readonly #boxes = new Map<string, Mailbox>();
  /** How many expected tasks hold each token digest (hex), to tell a token that opens nothing before any read. */
  readonly #tokens = new Map<string, number>();
  readonly #bodiesPerTask: number;
  readonly #windowMs: number;
  readonly #onListenerError: (error: unknown) => void;
  #pendingPushes = 0;

  /** `bodiesPerTask` bodies remembered per task for `windowMs` (see {@link BodyWindow}). */
  constructor(bodiesPerTask: number, windowMs: number, onListenerError: (error: unknown) => void) {
    this.#bodiesPerTask = bodiesPerTask;
    this.#windowMs = windowMs;
    this.#onListenerError = onListenerError;
  }

  /** Accepted pushes not yet handed to a listener. */
  get pendingPushes(): number {
    return this.#pendingPushes;
  }

  /** Pending notices held (at most one per task). */
  get heldNotices(): number {
    let held = 0;
    for (const box of this.#boxes.values()) if (box.pending !== undefined) held += 1;
    return held;
  }

  get size(): number {
    return this.#boxes.size;
  }

  /** Body digests remembered, all tasks together. */
  get rememberedBodies(): number {
    let remembered = 0;
    for (const box of this.#boxes.values()) remembered += box.bodies.size;
    return remembered;
  }

  expect(taskId: string, tokenDigest: Buffer | undefined): void {
    this.#count(tokenDigest, 1);
    const known = this.#boxes.get(taskId);
    if (known !== undefined) {
      this.#count(known.tokenDigest, -1);
      known.tokenDigest = tokenDigest;
      return;
    }
    this.#boxes.set(taskId, {
      tokenDigest,
      listeners: new Set(),
      pending: undefined,
      status: undefined,
      busy: false,
      bodies: new BodyWindow(this.#bodiesPerTask, this.#windowMs),
    });
  }

  /**
   * Whether some expected task holds this token digest. The digests are keyed HMACs (see
   * SecretMatcher), so a lookup's timing says nothing about any token.
   */
  holdsToken(tokenDigest: Buffer): boolean {
    return this.#tokens.has(tokenDigest.toString('hex'));
  }

  #count(tokenDigest: Buffer | undefined, delta: 1 | -1): void {
    if (tokenDigest === undefined) return;
    const key = tokenDigest.toString('hex');
    const count = (this.#tokens.get(key) ?? 0) + delta;
    if (count > 0) this.#tokens.set(key, count);
    else this.#tokens.delete(key);
  }

  has(taskId: string): boolean {
    return this.#boxes.has(taskId);
  }

  tokenDigestOf(taskId: string): Buffer | undefined {
    return this.#boxes.get(taskId)?.tokenDigest;
  }

  forget(taskId: string): void {
    const box = this.#boxes.get(taskId);
    if (box === undefined) return;
    if (box.pending !== undefined) this.#pendingPushes -= box.pending.pushes;
    box.pending = undefined;
    box.listeners.clear();
    this.#count(box.tokenDigest, -1);
    this.#boxes.delete(taskId);
  }

  /** Whether this exact body was accepted for the task within the window. */
  isRepeat(taskId: string, bodyDigest: string, nowMs: number): boolean {
    return this.#boxes.get(taskId)?.bodies.has(bodyDigest, nowMs) ?? false;
  }

  /** Accepted pushes of `sender` for the task that its listeners have not taken yet. */
  pendingFrom(taskId: string, sender: string): number {
    return this.#boxes.get(taskId)?.pending?.bySender.get(sender) ?? 0;
  }

  /** Merges an accepted event into the task's pending notice (the task must be expected, the body no repeat). */
  offer(taskId: string, event: StreamEvent, bodyDigest: string, sender: string, nowMs: number): OfferResult {
    const box = this.#boxes.get(taskId);
    if (box === undefined) throw new Error(`offer for an unexpected task ${taskId}`);
    box.bodies.remember(bodyDigest, nowMs);

    const status = event.kind === 'task' || event.kind === 'status-update' ? event.status : undefined;
    if (status !== undefined) {
      if (!movesForward(box.status, status)) return 'stale';
      box.status = status;
    }
    const pending = box.pending;
    if (pending === undefined) {
      box.pending = { status: box.status, task: event.kind === 'task' ? event : undefined, event, pushes: 1, bySender: new Map([[sender, 1]]) };
    } else {
      pending.status = box.status;
      if (event.kind === 'task') pending.task = event;
      pending.event = event;
      pending.pushes += 1;
      pending.bySender.set(sender, (pending.bySender.get(sender) ?? 0) + 1);
    }
    this.#pendingPushes += 1;
    this.#pump(taskId, box);
    return 'queued';
  }

  /** Adds a listener for an expected task; returns the function that removes it. */
  subscribe(taskId: string, listener: PushListener): () => void {
    const box = this.#boxes.get(taskId);
    if (box === undefined) return () => {};
    box.listeners.add(listener);
    this.#pump(taskId, box);
    return () => {
      box.listeners.delete(listener);
    };
  }

  clear(): void {
    for (const box of this.#boxes.values()) {
      box.pending = undefined;
      box.listeners.clear();
    }
    this.#boxes.clear();
    this.#pendingPushes = 0;
  }

  #pump(taskId: string, box: Mailbox): void {
    if (box.busy || box.pending === undefined || box.listeners.size === 0) return;
    const { status, task, event, pushes } = box.pending;
    const notice: PushNotice = Object.freeze({ taskId, status, task, event, pushes });
    box.pending = undefined;
    this.#pendingPushes -= pushes;
    box.busy = true;
    const listeners = [...box.listeners];
    // Listeners run after the current request has been answered: the sender never waits for them.
    setImmediate(() => {
      void Promise.allSettled(
        listeners.map(async (listener) => {
          await listener(notice);
        }),
      ).then((results) => {
        for (const result of results) if (result.status === 'rejected') this.#onListenerError(result.reason);
        box.busy = false;
        if (this.#boxes.get(taskId) === box) this.#pump(taskId, box);
      });
    });
  }
}
