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

/** A push taken before its registration's task was known: offered once it is, if it names that task. */
interface EarlyPush {
  readonly taskId: string;
  readonly event: StreamEvent;
  readonly sender: string;
  readonly bytes: number;
  readonly atMs: number;
}

/**
 * One registration: a task's own token (its SHA-256), or a task id alone (pushes opened by the
 * receiver-wide credentials); its listeners, at most one pending (merged) notice, and the pushes taken
 * before the agent named the task.
 */
export interface Registration {
  readonly tokenSha256: string | undefined;
  taskId: string | undefined;
  readonly listeners: Set<PushListener>;
  pending: Pending | undefined;
  /** The latest status accepted so far (delivered or pending), for the forward-only rule. */
  status: TaskStatus | undefined;
  /** A listener is still busy with the previous notice. */
  busy: boolean;
  /** Digests of the bodies accepted within the window, to deliver an identical push once. */
  readonly bodies: BodyWindow;
  early: EarlyPush[];
  live: boolean;
}

/** What {@link PushRegistry.offer} did with an event. */
export type OfferResult = 'queued' | 'stale';

/** What {@link PushRegistry.hold} did with an early push: held, or refused for its registration's count or the receiver's bytes. */
export type HoldResult = 'held' | 'count' | 'bytes';

/** The registry's bounds. */
export interface RegistryBounds {
  /** Bodies remembered per registration for `windowMs` (see {@link BodyWindow}). */
  readonly bodiesPerTask: number;
  readonly windowMs: number;
  /** Early pushes held per registration. */
  readonly maxEarlyPushes: number;
  /** Bytes of early pushes held, all registrations together. */
  readonly maxEarlyBytes: number;
  readonly onListenerError: (error: unknown) => void;
}

/** Forgotten tokens remembered (each for `windowMs`), so their late pushes are told the task is gone. */
const MAX_GONE = 10_000;

/**
 * The registrations of a receiver and their notices. A registration with a token is found by the token's
 * SHA-256 (two agents may give their tasks one id: their tokens tell them apart); one without, by its task
 * id. Per registration, everything that arrives while the listeners have not taken the previous notice is
 * merged into one pending notice (memory O(registrations) whatever the number of pushes), counted per
 * sender for the 429 bound. A push that comes before the task is named is held (at most `maxEarlyPushes`
 * per registration, `maxEarlyBytes` in all, for `windowMs`) and offered once it is.
 */
export class PushRegistry {
  readonly #bounds: RegistryBounds;
  readonly #byToken = new Map<string, Set<Registration>>();
  readonly #tokenless = new Map<string, Registration>();
  readonly #byTask = new Map<string, Set<Registration>>();
  readonly #gone = new Map<string, { readonly taskId: string | undefined; readonly untilMs: number }>();
  readonly #holding = new Set<Registration>();
  readonly #all = new Set<Registration>();
  #pendingPushes = 0;
  #earlyPushes = 0;
  #earlyBytes = 0;

  constructor(bounds: RegistryBounds) {
    this.#bounds = bounds;
  }

  get size(): number {
    return this.#all.size;
  }

  /** Accepted pushes not yet handed to a listener (early ones apart). */
  get pendingPushes(): number {
    return this.#pendingPushes;
  }

  get earlyPushes(): number {
    return this.#earlyPushes;
  }

  get earlyBytes(): number {
    return this.#earlyBytes;
  }

  /** Pending notices held (at most one per registration). */
  get heldNotices(): number {
    return this.#count((registration) => (registration.pending === undefined ? 0 : 1));
  }

  /** Body digests remembered, all registrations together. */
  get rememberedBodies(): number {
    return this.#count((registration) => registration.bodies.size);
  }

  /** A new registration: by token (bound to `taskId` or not yet), or by task id alone (the caller forgot any other of that id). */
  add(tokenSha256: string | undefined, taskId: string | undefined): Registration {
    const registration: Registration = {
      tokenSha256,
      taskId: undefined,
      listeners: new Set(),
      pending: undefined,
      status: undefined,
      busy: false,
      bodies: new BodyWindow(this.#bounds.bodiesPerTask, this.#bounds.windowMs),
      early: [],
      live: true,
    };
    this.#all.add(registration);
    if (tokenSha256 !== undefined) {
      this.#gone.delete(tokenSha256);
      indexed(this.#byToken, tokenSha256).add(registration);
    } else if (taskId !== undefined) this.#tokenless.set(taskId, registration);
    if (taskId !== undefined) this.bind(registration, taskId, 0);
    return registration;
  }

  /** The agent named the registration's task: early pushes that name it are offered, the others dropped. */
  bind(registration: Registration, taskId: string, nowMs: number): void {
    if (!registration.live || registration.taskId !== undefined) return;
    registration.taskId = taskId;
    indexed(this.#byTask, taskId).add(registration);
    const early = this.#dropEarly(registration);
    for (const push of early) {
      if (push.taskId === taskId && push.atMs + this.#bounds.windowMs > nowMs) this.offer(registration, push.event, undefined, push.sender, nowMs);
    }
  }

  /** Drops the registration, its notice, its listeners and its early pushes; its token is remembered as gone for the window. */
  forget(registration: Registration, nowMs: number): void {
    if (!registration.live) return;
    registration.live = false;
    this.#all.delete(registration);
    if (registration.pending !== undefined) this.#pendingPushes -= registration.pending.pushes;
    registration.pending = undefined;
    registration.listeners.clear();
    this.#dropEarly(registration);
    const { tokenSha256, taskId } = registration;
    if (tokenSha256 !== undefined) {
      unindex(this.#byToken, tokenSha256, registration);
      if (!this.#byToken.has(tokenSha256)) this.#rememberGone(tokenSha256, taskId, nowMs);
    } else if (taskId !== undefined && this.#tokenless.get(taskId) === registration) this.#tokenless.delete(taskId);
    if (taskId !== undefined) unindex(this.#byTask, taskId, registration);
  }

  /** The registration a token opens: of those holding it, the one bound to `taskId`, else one not bound yet, else any. */
  byToken(tokenSha256: string, taskId: string | undefined): Registration | undefined {
    const holders = this.#byToken.get(tokenSha256);
    if (holders === undefined) return undefined;
    let fallback: Registration | undefined;
    for (const registration of holders) {
      if (registration.taskId === taskId) return registration;
      if (fallback === undefined || registration.taskId === undefined) fallback = registration;
    }
    return fallback;
  }

  /** Whether the token's registration was forgotten within the window (and for which task). */
  gone(tokenSha256: string, nowMs: number): { readonly taskId: string | undefined } | undefined {
    const gone = this.#gone.get(tokenSha256);
    if (gone !== undefined && gone.untilMs <= nowMs) this.#gone.delete(tokenSha256);
    return gone !== undefined && gone.untilMs > nowMs ? gone : undefined;
  }

  /** The registration of a task without a token of its own. */
  tokenless(taskId: string): Registration | undefined {
    return this.#tokenless.get(taskId);
  }

  /** Every live registration. */
  all(): Registration[] {
    return [...this.#all];
  }

  /** Every registration bound to `taskId`, with a token or not. */
  boundTo(taskId: string): Registration[] {
    return [...(this.#byTask.get(taskId) ?? [])];
  }

  /** Whether this exact body was accepted for the registration within the window. */
  isRepeat(registration: Registration, bodyDigest: string, nowMs: number): boolean {
    return registration.bodies.has(bodyDigest, nowMs);
  }

  /** Accepted pushes of `sender` for the registration that its listeners have not taken yet, early ones included. */
  pendingFrom(registration: Registration, sender: string): number {
    const early = registration.early.reduce((count, push) => count + (push.sender === sender ? 1 : 0), 0);
    return (registration.pending?.bySender.get(sender) ?? 0) + early;
  }

  /** Merges an accepted event into the registration's pending notice (it must be bound and live). */
  offer(registration: Registration, event: StreamEvent, bodyDigest: string | undefined, sender: string, nowMs: number): OfferResult {
    if (bodyDigest !== undefined) registration.bodies.remember(bodyDigest, nowMs);
    const status = event.kind === 'task' || event.kind === 'status-update' ? event.status : undefined;
    if (status !== undefined) {
      if (!movesForward(registration.status, status)) return 'stale';
      registration.status = status;
    }
    const pending = registration.pending;
    if (pending === undefined) {
      registration.pending = { status: registration.status, task: event.kind === 'task' ? event : undefined, event, pushes: 1, bySender: new Map([[sender, 1]]) };
    } else {
      pending.status = registration.status;
      if (event.kind === 'task') pending.task = event;
      pending.event = event;
      pending.pushes += 1;
      pending.bySender.set(sender, (pending.bySender.get(sender) ?? 0) + 1);
    }
    this.#pendingPushes += 1;
    this.#pump(registration);
    return 'queued';
  }

  /** Holds a push for a registration whose task is not named yet, within its bounds. */
  hold(registration: Registration, push: Omit<EarlyPush, 'atMs'>, bodyDigest: string, nowMs: number): HoldResult {
    const { maxEarlyPushes, maxEarlyBytes } = this.#bounds;
    this.#expireEarly(registration, nowMs);
    if (registration.early.length >= maxEarlyPushes) return 'count';
    if (this.#earlyBytes + push.bytes > maxEarlyBytes) {
      for (const holder of [...this.#holding]) this.#expireEarly(holder, nowMs);
      if (this.#earlyBytes + push.bytes > maxEarlyBytes) return 'bytes';
    }
    registration.early.push({ ...push, atMs: nowMs });
    registration.bodies.remember(bodyDigest, nowMs);
    this.#holding.add(registration);
    this.#earlyPushes += 1;
    this.#earlyBytes += push.bytes;
    return 'held';
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(registration: Registration, listener: PushListener): () => void {
    if (!registration.live) return () => {};
    registration.listeners.add(listener);
    this.#pump(registration);
    return () => {
      registration.listeners.delete(listener);
    };
  }

  clear(): void {
    for (const registration of [...this.#all]) this.forget(registration, 0);
    this.#gone.clear();
  }

  #count(of: (registration: Registration) => number): number {
    let total = 0;
    for (const registration of this.#all) total += of(registration);
    return total;
  }

  #expireEarly(registration: Registration, nowMs: number): void {
    const cutoff = nowMs - this.#bounds.windowMs;
    if (registration.early.every((push) => push.atMs > cutoff)) return;
    const kept = registration.early.filter((push) => push.atMs > cutoff);
    this.#dropEarly(registration);
    for (const push of kept) {
      registration.early.push(push);
      this.#earlyPushes += 1;
      this.#earlyBytes += push.bytes;
    }
    if (kept.length > 0) this.#holding.add(registration);
  }

  #dropEarly(registration: Registration): EarlyPush[] {
    const early = registration.early;
    registration.early = [];
    this.#holding.delete(registration);
    for (const push of early) {
      this.#earlyPushes -= 1;
      this.#earlyBytes -= push.bytes;
    }
    return early;
  }

  #rememberGone(tokenSha256: string, taskId: string | undefined, nowMs: number): void {
    if (this.#gone.size >= MAX_GONE) {
      const oldest = this.#gone.keys().next().value;
      if (oldest !== undefined) this.#gone.delete(oldest);
    }
    this.#gone.set(tokenSha256, { taskId, untilMs: nowMs + this.#bounds.windowMs });
  }

  #pump(registration: Registration): void {
    if (registration.busy || registration.pending === undefined || registration.listeners.size === 0 || registration.taskId === undefined) return;
    const { status, task, event, pushes } = registration.pending;
    const notice: PushNotice = Object.freeze({ taskId: registration.taskId, status, task, event, pushes });
    registration.pending = undefined;
    this.#pendingPushes -= pushes;
    registration.busy = true;
    const listeners = [...registration.listeners];
    // Listeners run after the current request has been answered: the sender never waits for them.
    setImmediate(() => {
      void Promise.allSettled(
        listeners.map(async (listener) => {
          await listener(notice);
        }),
      ).then((results) => {
        for (const result of results) if (result.status === 'rejected') this.#bounds.onListenerError(result.reason);
        registration.busy = false;
        if (registration.live) this.#pump(registration);
      });
    });
  }
}

function indexed(index: Map<string, Set<Registration>>, key: string): Set<Registration> {
  let set = index.get(key);
  if (set === undefined) index.set(key, (set = new Set()));
  return set;
}

function unindex(index: Map<string, Set<Registration>>, key: string, registration: Registration): void {
  const set = index.get(key);
  set?.delete(registration);
  if (set?.size === 0) index.delete(key);
}
