import { isTerminalState } from '../model/task-state.js';
import type { Task } from '../model/types.js';
import type { StreamItem } from '../transport/event-feed.js';
import { monotonicNow } from '../util/monotonic-now.js';
import type { FollowCore } from './follow-core.js';
import type { FollowEnv } from './follow-state.js';
import type { RetryDecision } from './retry-budget.js';
import type { Reconciler } from './reconciler.js';
import type { StreamSession } from './stream-session.js';
import type { TaskEvent } from './task-event.js';

const NO_OPTIONS = {};

// What the agent said, applied to the reconciler and handed to the reducer as one `applied` input.

/** Tells the reducer what the reconciler applied (`live`: read from the open stream). */
export function deliver(core: FollowCore, events: TaskEvent[], live: boolean, lastEventId?: string, final?: { task: Task | undefined }): void {
  const r = core.view as Reconciler;
  const conn = core.session;
  if (conn && events.length > 0) conn.progressed = true;
  core.dispatch({
    type: 'applied',
    events,
    state: r.state,
    live,
    ...(conn ? { open: { subscription: conn.subscription } } : {}),
    ...(lastEventId === undefined ? {} : { lastEventId }),
    ...(final ? { final } : {}),
  });
}

/** A GetTask or send answer's snapshot (`recovered`: content a gap may have hidden). */
export function absorbSnapshot(core: FollowCore, task: Task, recovered: boolean): void {
  const r = core.view as Reconciler;
  // Its generation (v1.1 draft) is the view's from here on; one older than the view's (a stale answer) is
  // told apart by the reconciler as before: nothing in it is news.
  r.generations?.admit(task);
  const events = r.applySnapshot(task, { recovered });
  const final = core.state.finalTask === undefined && isTerminalState(task.status.state) && isTerminalState(r.state) ? { task } : undefined;
  deliver(core, events, false, undefined, final);
}

/**
 * What one read of the open stream brought, applied in order. With generations (v1.1 draft), an event
 * applied already is dropped; at a gap the rest of the batch waits on the session (`held`) for the
 * GetTask that fills it (`liveStep`, follow-steps.ts).
 */
export function applyBatch(core: FollowCore, conn: StreamSession, batch: StreamItem[]): void {
  const r = core.view as Reconciler;
  const gate = r.generations;
  const events: TaskEvent[] = [];
  const before = core.state.finalTask;
  let finalTask = before;
  let lastEventId: string | undefined;
  for (let i = 0; i < batch.length; i++) {
    const item = batch[i] as StreamItem;
    const event = item.event;
    const verdict = gate?.admit(event);
    if (verdict === 'gap') {
      conn.held = batch.slice(i);
      break;
    }
    if (item.id !== undefined) lastEventId = item.id;
    if (verdict === 'drop') continue;
    const ended = isTerminalState(r.state);
    // After the end, a snapshot that is not terminal is stale: it may not take content back.
    if (ended && event.kind === 'task' && !isTerminalState(event.status.state)) continue;
    const recovered = conn.subscription && event.kind === 'task';
    const applied = r.applyEvent(event, recovered || item.id !== undefined ? { recovered, eventId: item.id } : NO_OPTIONS);
    for (let i = 0; i < applied.length; i++) events.push(applied[i] as TaskEvent);
    // Content after a terminal snapshot: that snapshot is no longer the whole result.
    if (ended && applied.length > 0) finalTask = undefined;
    if (event.kind === 'task' && isTerminalState(event.status.state) && isTerminalState(r.state)) finalTask ??= event;
  }
  deliver(core, events, true, lastEventId, finalTask === before ? undefined : { task: finalTask });
}

/**
 * What the reducer reads of the world, made once per follow: the rest is read when the reducer asks;
 * `now` is the monotonic clock's reading as the loop hands the reducer an input (one reading per input). A class,
 * so its getters live on the prototype: one small object per follow, no closure per getter.
 */
class CoreEnv implements ReducerEnv {
  now = 0;
  readonly resilience: FollowEnv['resilience'];
  readonly random: () => number;
  constructor(private readonly core: FollowCore) {
    this.resilience = core.context.resilience;
    this.random = core.context.random;
  }
  tick(): FollowEnv {
    this.now = monotonicNow(this.core.context.scheduler);
    return this;
  }
  get taskId(): string {
    return this.core.taskId ?? '';
  }
  get canStream(): boolean {
    return this.core.context.client.agent.streaming;
  }
  get streamOpen(): boolean {
    return this.core.session !== undefined;
  }
  get slotFree(): boolean {
    return this.core.context.streamSlots.free();
  }
  get pushArmed(): boolean {
    return this.core.push !== undefined;
  }
  get identified(): boolean {
    return this.core.view !== undefined;
  }
  fail(retryAfterMs: number | undefined): RetryDecision {
    return this.core.budget.fail(retryAfterMs);
  }
}

/** The reducer's {@link FollowEnv} of one follow; `tick()` reads the clock for the next input. */
export interface ReducerEnv extends FollowEnv {
  /** Reads `now` (monotonic: every time the reducer keeps is a local deadline, G14). */
  tick(): FollowEnv;
}

/** The reducer's {@link FollowEnv} of one follow. */
export function reducerEnv(core: FollowCore): ReducerEnv {
  return new CoreEnv(core);
}
