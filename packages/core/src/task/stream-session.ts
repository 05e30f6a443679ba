import type { TetherError } from '../errors/tether-error.js';
import { isTerminalState } from '../model/task-state.js';
import type { Task, TaskState } from '../model/types.js';
import type { EventFeed, StreamItem } from '../transport/event-feed.js';
import type { Scheduler } from '../util/scheduler.js';
import { monotonicNow } from '../util/monotonic-now.js';
import { asTetherError, refusesSubscription, streamMendable } from './classify.js';
import type { EngineClient } from './follow-context.js';
import { IdleTimer } from './idle-probe.js';
import type { ResilienceOptions } from './resilience.js';
import type { RetryBudget } from './retry-budget.js';
import { openInSlot, type StreamSlots } from './stream-slots.js';
import { askTask, askTaskRetrying, type TaskAsker } from './task-requests.js';

/** How a stream session ended (or its opening did). */
export type StreamEnd =
  /** The body ended (after the end, it was drained). */
  | { type: 'ended' }
  /** It broke in a way a new connection (and a snapshot) mends. */
  | { type: 'failed'; error: TetherError }
  /** A probe found the agent past the stream (a half-open connection): its snapshot. */
  | { type: 'behind'; task: Task }
  /** A probe found the task gone. */
  | { type: 'lost'; error: TetherError }
  /**
   * The agent refused the subscription before any event: finished task, no resubscribe — or, with
   * `error`, any other answer (a reference server says -32602 for a finished task): GetTask decides.
   */
  | { type: 'refused'; error?: TetherError | undefined }
  /** Nothing to mend: a protocol violation no reconnect cures, an agent's error. */
  | { type: 'fatal'; error: TetherError }
  /** The step was interrupted. */
  | { type: 'stopped' };

/** What a session's next read came to: events to apply, or the end. */
export type SessionRead = { type: 'batch'; items: StreamItem[] } | StreamEnd;

/** What a stream session needs of its follow (the follower; never imported here). */
export interface SessionHost {
  readonly client: EngineClient;
  readonly scheduler: Scheduler;
  readonly resilience: ResilienceOptions;
  readonly streamSlots: StreamSlots;
  /** The follow's retry budget (a catch-up's transient failures count on it). */
  readonly budget: RetryBudget;
  /** A GetTask of the task, through the request ceiling. */
  asker(): TaskAsker;
  /** The task as the follow sees it: its state, and whether a snapshot is ahead of it. */
  readonly view: { readonly state: TaskState; isBehind(task: Task): boolean };
  /** A probe found the open stream in step with the agent. */
  healthy(subscription: boolean): void;
  /** The snapshot a subscription without one was caught up with (applied before its first live event). */
  caughtUp(task: Task): void;
}

/**
 * One open stream the engine reads — the send's, or a subscription's — with everything that belongs
 * to it and to nothing else: its slot, its idle and first-event probes, its catch-up snapshot, and
 * whether it moved the task or proved healthy. {@link next} returns what it read; the follow applies it.
 */
export class StreamSession {
  /** Aborted when the session is done with (stops its probes and catch-up). */
  private readonly controller = new AbortController();
  private catchUp: Promise<void> | undefined;
  /** No batch read yet. */
  private fresh = true;
  private idle: IdleTimer | undefined;
  private early: unknown;
  private drainDeadline: unknown;
  /** What a probe found, that ends the session. */
  private found: StreamEnd | undefined;
  /** The task moved while this session was open. */
  progressed = false;
  /** A probe found the session in step with the agent. */
  healthy = false;
  /** Events read (a probe's answer is stale if this moved while it was asked). */
  seen = 0;
  /** Events read but not applied yet: from the first past a gap in the task's generations (v1.1 draft) on. */
  held: StreamItem[] | undefined;

  private constructor(
    private readonly host: SessionHost,
    readonly feed: EventFeed,
    /** A subscription: its first Task is recovered content. */
    readonly subscription: boolean,
    /** Resumed after the agent's own event id: the stream itself fills the gap. */
    private readonly resumedById: boolean,
    /** When silence makes a subscription that promised a snapshot first suspect (probed once early). */
    private firstEventDue: number | undefined,
  ) {}

  /** The session of the send's stream, whose first batch was read already. */
  static ofSend(host: SessionHost, feed: EventFeed): StreamSession {
    return new StreamSession(host, feed, false, false, undefined);
  }

  /**
   * Subscribes to the task (resuming after `lastEventId`, when known). Silence while the headers do
   * not come is probed like a live stream's. `undefined` when no stream slot is free.
   */
  static async subscribe(host: SessionHost, taskId: string, lastEventId: string | undefined, signal: AbortSignal): Promise<StreamSession | StreamEnd | undefined> {
    const { scheduler, resilience, client } = host;
    const opening = new AbortController();
    const stop = (): void => opening.abort();
    signal.addEventListener('abort', stop, { once: true });
    // The opening's probes end with the opening (a late answer must not re-arm them: they would ask on
    // for as long as the process lives); `opening` itself goes on carrying the opened stream.
    const probing = new AbortController();
    let found: StreamEnd | undefined;
    const probe = (): void =>
      void probeOnce(host, probing.signal, undefined).then(
        (end) => {
          if (probing.signal.aborted) return;
          if (end) {
            found = end;
            stop();
          } else idle.start();
        },
        () => undefined,
      );
    const idle: IdleTimer = new IdleTimer(scheduler, resilience.idleProbeMs, () => probe());
    idle.start();
    // v1.0 promises a Task snapshot as a subscription's first event: silence soon after asking is suspect.
    const promised = client.agent.subscribeSnapshot && lastEventId === undefined && resilience.firstEventProbeMs > 0;
    let due = promised ? monotonicNow(scheduler) + resilience.firstEventProbeMs : undefined;
    const early =
      due === undefined
        ? undefined
        : scheduler.setTimeout(() => {
            due = undefined;
            probe();
          }, resilience.firstEventProbeMs);
    let feed: EventFeed | undefined;
    try {
      feed = await openInSlot(host.streamSlots, () => client.openSubscription(taskId, lastEventId, opening.signal));
    } catch (error) {
      if (found) return found;
      if (signal.aborted) return { type: 'stopped' };
      return refusal(error, taskId);
    } finally {
      probing.abort();
      idle.stop();
      if (early !== undefined) scheduler.clearTimeout(early);
      signal.removeEventListener('abort', stop);
    }
    // The last slot went to another task meanwhile.
    if (feed === undefined) return undefined;
    if (found) {
      feed.close();
      return found;
    }
    // The step was stopped (a reply, a detach) as the stream opened: nobody will read it.
    if (signal.aborted) {
      feed.close();
      return { type: 'stopped' };
    }
    const session = new StreamSession(host, feed, true, lastEventId !== undefined, due);
    // Agents whose subscriptions start without a snapshot: ask for one now, in parallel. It belongs to
    // this session (not to a step): when the session ends, so does the catch-up, and a late answer can
    // never interrupt whatever the engine does next (e.g. a reply's send).
    if (!client.agent.subscribeSnapshot && lastEventId === undefined) session.startCatchUp();
    return session;
  }

  /**
   * Reads on: the next batch, or how the session ended. Once the task is terminal the stream is read
   * until its body ends (at most `terminalDrainMs`), so content an agent sends after the terminal status
   * — an artifact after `final: true` — is applied (G3); a break then is no failure.
   */
  async next(signal: AbortSignal): Promise<SessionRead> {
    signal.addEventListener('abort', this, { once: true });
    try {
      if (isTerminalState(this.host.view.state)) return await this.drain(signal);
      this.watch();
      const batch = await this.feed.read();
      if (batch === null) return this.found ?? { type: 'ended' };
      this.idle?.touch();
      if (this.fresh) {
        this.fresh = false;
        // No snapshot opened this subscription: apply one before the live events (no holes).
        if (this.subscription && !this.resumedById && batch[0]?.event.kind !== 'task') {
          await (this.catchUp ??= this.fetchCatchUp());
          if (signal.aborted) return { type: 'stopped' };
        }
      }
      this.seen += batch.length;
      return { type: 'batch', items: batch };
    } catch (error) {
      if (this.found) return this.found;
      if (signal.aborted) return { type: 'stopped' };
      const taskId = this.host.asker().taskId;
      if (this.subscription && this.seen === 0) return refusal(error, taskId);
      if (streamMendable(error)) return { type: 'failed', error };
      return { type: 'fatal', error: asTetherError(error, taskId) };
    } finally {
      signal.removeEventListener('abort', this);
    }
  }

  /** The step's signal aborted during {@link next}: the session is its listener object (no closure per read). */
  handleEvent(): void {
    this.close();
  }

  /** The idle probe, and — for a subscription that promised a snapshot first and is still silent — an early one. */
  private watch(): void {
    if (this.idle) return;
    const { scheduler, resilience } = this.host;
    this.idle = new IdleTimer(scheduler, resilience.idleProbeMs, () => this.probe());
    this.idle.start();
    const due = this.fresh ? this.firstEventDue : undefined;
    if (due === undefined) return;
    this.early = scheduler.setTimeout(() => {
      this.firstEventDue = undefined;
      if (this.fresh) this.probe();
    }, Math.max(0, due - monotonicNow(scheduler)));
  }

  private stopWatching(): void {
    this.idle?.stop();
    if (this.early !== undefined) this.host.scheduler.clearTimeout(this.early);
    this.early = undefined;
  }

  /** Ends the session: its stream (and slot), its probes, its catch-up, its drain deadline. */
  close(): void {
    this.stopWatching();
    if (this.drainDeadline !== undefined) this.host.scheduler.clearTimeout(this.drainDeadline);
    this.drainDeadline = undefined;
    this.controller.abort();
    this.feed.close();
  }

  private probe(): void {
    void probeOnce(this.host, this.controller.signal, this).then(
      (end) => {
        if (this.controller.signal.aborted) return;
        if (!end) {
          this.idle?.start();
          return;
        }
        this.found = end;
        this.feed.close();
      },
      () => undefined,
    );
  }

  private async drain(signal: AbortSignal): Promise<SessionRead> {
    this.stopWatching();
    const ms = this.host.resilience.terminalDrainMs;
    if (ms <= 0) return { type: 'ended' };
    // One deadline for the whole drain, however many batches it reads.
    this.drainDeadline ??= this.host.scheduler.setTimeout(() => this.feed.close(), ms);
    try {
      const batch = await this.feed.read();
      if (batch !== null) {
        this.seen += batch.length;
        return { type: 'batch', items: batch };
      }
    } catch {
      // Closed at the deadline, or broken after the end: what arrived is applied.
    }
    return signal.aborted ? { type: 'stopped' } : { type: 'ended' };
  }

  private startCatchUp(): void {
    this.catchUp = this.fetchCatchUp();
    this.catchUp.catch(() => undefined);
  }

  /** GetTask for a subscription that starts without a snapshot; retried through transient failures. */
  private async fetchCatchUp(): Promise<void> {
    const signal = this.controller.signal;
    const task = await askTaskRetrying(this.host.asker(), this.host.budget, this.host.scheduler, signal);
    if (task && !signal.aborted) this.host.caughtUp(task);
  }
}

/**
 * A subscription that failed before its first event: a new connection mends it, or it was refused —
 * no error is final before GetTask has shown the task.
 */
function refusal(error: unknown, taskId: string): StreamEnd {
  if (refusesSubscription(error)) return { type: 'refused' };
  if (streamMendable(error)) return { type: 'failed', error };
  return { type: 'refused', error: asTetherError(error, taskId) };
}

/**
 * The silence outlasted `idleProbeMs` — on a live stream, or while a subscription waits for its response
 * headers: is the agent past us (a half-open connection), or just quiet? What ends the session (`behind`,
 * `lost`), or `undefined` (look again after the next silence). `session` (when open) tells whether events
 * arrived meanwhile — then the answer may be older than what the stream delivered, and proves nothing.
 */
async function probeOnce(host: SessionHost, signal: AbortSignal, session: StreamSession | undefined): Promise<StreamEnd | undefined> {
  const seen = session?.seen;
  const asked = await askTask(host.asker(), signal);
  if (asked.kind === 'stopped' || signal.aborted) return undefined;
  // The agent no longer knows the task: nothing on this connection will ever end it.
  if (asked.kind === 'lost') return { type: 'lost', error: asked.error };
  // Any other failed probe proves nothing.
  if (asked.kind !== 'task') return undefined;
  if (session && session.seen !== seen) return undefined;
  if (host.view.isBehind(asked.task)) return { type: 'behind', task: asked.task };
  if (session) {
    session.healthy = true;
    host.healthy(session.subscription);
  }
  return undefined;
}
