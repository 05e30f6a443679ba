import { isInterruptedState, isTerminalState } from '../model/task-state.js';
import type { Task, TaskState } from '../model/types.js';
import { connectionOf, next, type Facts, type Outcome, type Phase } from './phase.js';
import { nextPollWait } from './poll-cadence.js';
import type { ResilienceOptions } from './resilience.js';
import type { RetryDecision } from './retry-budget.js';
import type { RecordChange } from './store-writer.js';
import type { ConnectionEvent, ConnectionState, TaskEvent } from './task-event.js';

/** How a task is followed: its stream, GetTask polls, or the agent's pushes (with a slow safety poll). */
export type DeliveryMode = 'stream' | 'poll' | 'push';

/**
 * Everything that decides what a follow does next, as one readonly value. Only {@link reduce} makes
 * a new one; the follower holds the current one (`this.state`) and nothing else of the kind. The
 * task's content is not here: it is in the reconciler, which the loop applies what the agent said to
 * before it tells the reducer what changed (`applied`).
 */
export interface FollowState {
  readonly phase: Phase;
  /** How the task is followed now (a stream that keeps failing falls back to polling). */
  readonly mode: DeliveryMode;
  /** The task's state as the app sees it (the reconciler's, after the last `applied`). */
  readonly taskState: TaskState;
  /** Something may have been missed (a reconnect, a poll, a recovered snapshot): check the result once more at the end. */
  readonly gap: boolean;
  /** What the app was last told about the link. */
  readonly connection: ConnectionState;
  /** A stream was open at least once (a later attempt is a reconnect, not a first connect). */
  readonly everConnected: boolean;
  /** Streams in a row that ended or broke without moving the task (or a healthy probe). */
  readonly futileStreams: number;
  /** A reply was acknowledged but the agent has shown no new status yet: keep following. */
  readonly awaitingNews: boolean;
  /**
   * No tries to stream: the app chose polling (`delivery: 'poll'`), or the agent refused a subscription
   * (finished task, no resubscribe).
   */
  readonly noStreams: boolean;
  /** Polling an agent that can stream: the wait before the next try to stream, and when it is due. */
  readonly streamRetryMs: number;
  readonly streamRetryAt: number | undefined;
  /** Polling: the cadence's current base wait, and the wait before the next poll (ms). */
  readonly pollBaseMs: number;
  readonly pollDelayMs: number;
  /** When the task last moved (or an answer proved the link healthy). */
  readonly quietSince: number;
  /** How many times the task moved. */
  readonly moves: number;
  /** The agent's id of the last event read (a subscription resumes after it). */
  readonly lastEventId: string | undefined;
  /** A terminal Task snapshot the agent sent (GetTask, a subscription, a cancel answer): the result. */
  readonly finalTask: Task | undefined;
  /** A terminal status that arrived on a stream, held until the follow ends (G2: content after it comes first). */
  readonly held: readonly TaskEvent[] | undefined;
}

/** What the reducer is told: a step's outcome, what the reconciler applied, or a command. */
export type FollowInput =
  /** A step ended (or was interrupted); `ended`: the stream that just closed, and whether it moved the task or proved healthy. */
  | { type: 'outcome'; outcome: Outcome; retry?: RetryDecision | undefined; ended?: { progressed: boolean; healthy: boolean } | undefined }
  /**
   * The reconciler applied what the agent said: `events` are new, `state` is the task's state now.
   * `live`: read from the open stream; `open`: a stream is open (a subscription's or not); `final`: the
   * result as it now stands (a terminal snapshot, or none when content arrived after the one held).
   */
  | {
      type: 'applied';
      events: TaskEvent[];
      state: TaskState;
      live: boolean;
      open?: { subscription: boolean } | undefined;
      lastEventId?: string | undefined;
      final?: { task: Task | undefined } | undefined;
    }
  /** A probe found the open stream in step with the agent (`subscription`: a subscription's). */
  | { type: 'healthy'; subscription: boolean }
  /** A message was acknowledged; `reply`: it was a reply (the agent owes news); `looked`: its fate was learned by looking (a gap). */
  | { type: 'acknowledged'; reply: boolean; looked: boolean }
  /** A stream opened: the send's (`live` is said before anything read from it) or a subscription's. */
  | { type: 'opened'; subscription: boolean }
  /** The agent refused to subscribe: poll from now on (`again`: and try to stream again later). */
  | { type: 'refused'; again?: boolean | undefined }
  /** A poll answered: whether the task moved, or the wait the push channel asks for before the next. */
  | { type: 'polled'; moved: boolean; pushDelayMs?: number | undefined }
  /** Polling replaces the delivery mode (push could not be re-armed). */
  | { type: 'delivery'; mode: DeliveryMode }
  /** Tabs: the driver's link state (shown to the app when `show`), the driver's result, its end, or taking over from it. */
  | { type: 'mirrored'; connection: ConnectionState; show: boolean }
  | { type: 'mirrored-final'; task: Task }
  | { type: 'mirror-ended'; phase: Extract<Phase, { name: 'done' | 'failed' }> }
  | { type: 'took-over'; look: boolean }
  /** Detached while no step ran. */
  | { type: 'detached' }
  /** The loop starts (or starts again): tell the app where the follow is. */
  | { type: 'started' };

/** What the follower does after a reduction, in order. */
export type FollowEffect =
  /** Hand events to the app (and the mirrors). */
  | { type: 'emit'; events: TaskEvent[] }
  /** Write a change of the task's record. */
  | { type: 'persist'; change: RecordChange }
  /** The task moved (or proved healthy): the retry budget starts over. */
  | { type: 'reset-budget' }
  /** The task's state changed: the input-timeout timer follows it. */
  | { type: 'input-wait'; state: TaskState };

/** What the reducer reads of the world: the time, the knobs, and the resources it cannot see. */
export interface FollowEnv {
  now: number;
  resilience: ResilienceOptions;
  random: () => number;
  taskId: string;
  /** The agent can stream (its card says so). */
  canStream: boolean;
  /** A stream is open, or a stream slot is free. */
  streamOpen: boolean;
  slotFree: boolean;
  /** Push delivery is armed (a webhook config is registered). */
  pushArmed: boolean;
  /** The agent named the task (events can be emitted). */
  identified: boolean;
  /** Counts one failure on the retry budget and says whether (and when) to try again. */
  fail(retryAfterMs: number | undefined): RetryDecision;
}

/** A follow's first state: sending the creating message (`start()`), or resuming a known task. */
export function initialState(
  now: number,
  resilience: ResilienceOptions,
  resume?: { mode: DeliveryMode; lastEventId: string | undefined; streaming: boolean },
  noStreams = false,
): FollowState {
  const base = {
    taskState: 'unknown' as TaskState,
    connection: 'connecting' as ConnectionState,
    everConnected: false,
    futileStreams: 0,
    awaitingNews: false,
    noStreams,
    streamRetryMs: resilience.streamRetryMs,
    streamRetryAt: undefined,
    pollBaseMs: resilience.pollMinMs,
    pollDelayMs: 0,
    quietSince: now,
    moves: 0,
    finalTask: undefined,
    held: undefined,
  };
  if (!resume) return { ...base, phase: { name: 'sending', purpose: 'start' }, mode: 'stream', gap: false, lastEventId: undefined };
  const phase: Phase = resume.mode === 'stream' && resume.streaming ? { name: 'resubscribing' } : { name: 'polling', delayMs: 0 };
  return { ...base, phase, mode: resume.mode, gap: true, lastEventId: resume.lastEventId };
}

/** The follow ended (done, failed or detached). */
export function isOver(state: FollowState): boolean {
  const name = state.phase.name;
  return name === 'done' || name === 'failed' || name === 'detached';
}

/** A reduction's result: the next state and what to do. */
export interface Reduced {
  state: FollowState;
  effects: FollowEffect[];
}

/**
 * The follow's one reducer: from the current state and an input, the next state and its effects.
 * Pure but for `env` (the time, the budget's decision, the resources' facts).
 */
export function reduce(state: FollowState, input: FollowInput, env: FollowEnv): Reduced {
  const effects: FollowEffect[] = [];
  const s = reduceInto(state, input, env, effects);
  return { state: s, effects };
}

function reduceInto(state: FollowState, input: FollowInput, env: FollowEnv, effects: FollowEffect[]): FollowState {
  switch (input.type) {
    case 'outcome':
      return settle(state, input, env, effects);
    case 'applied':
      return applied(state, input, env, effects);
    case 'healthy':
      effects.push({ type: 'reset-budget' });
      return {
        ...state,
        ...(state.mode === 'poll' && input.subscription ? { mode: 'stream' as const } : {}),
        futileStreams: 0,
        quietSince: env.now,
      };
    case 'acknowledged':
      return {
        ...state,
        // A pause may have lasted hours: the quiet budget counts from the answer, not from before it.
        ...(input.looked ? { gap: true } : { quietSince: env.now }),
        awaitingNews: state.awaitingNews || (input.reply && isInterruptedState(state.taskState)),
      };
    case 'opened': {
      const opened = { ...state, everConnected: true, gap: state.gap || input.subscription };
      if (input.subscription || state.connection === 'live') return opened;
      // The link is up before anything read from it: the app hears `live` first.
      if (env.identified) effects.push({ type: 'emit', events: [{ type: 'connection', state: 'live' }] });
      return { ...opened, connection: 'live' };
    }
    case 'refused': {
      if (!input.again) return { ...state, noStreams: true };
      // A failed try to stream: the next one waits longer (not progress: nothing here resets a budget).
      const streamRetryMs = state.streamRetryAt === undefined ? state.streamRetryMs : Math.min(env.resilience.maxStreamRetryMs, state.streamRetryMs * 2);
      return { ...state, streamRetryMs, streamRetryAt: env.now + streamRetryMs };
    }
    case 'polled': {
      effects.push({ type: 'reset-budget' });
      // The agent answered: a task that waits for its pushes is not quiet, however long it runs.
      if (input.pushDelayMs !== undefined) return { ...state, quietSince: env.now, pollDelayMs: input.pushDelayMs };
      const next = nextPollWait(state.pollBaseMs, input.moved, env.resilience, env.random);
      return { ...state, pollBaseMs: next.baseMs, pollDelayMs: next.delayMs };
    }
    case 'delivery':
      effects.push({ type: 'persist', change: { delivery: input.mode } });
      return { ...state, mode: input.mode };
    case 'mirrored':
      if (input.connection === state.connection) return state;
      if (input.show) effects.push({ type: 'emit', events: [{ type: 'connection', state: input.connection }] });
      return { ...state, connection: input.connection };
    case 'mirrored-final':
      return { ...state, finalTask: input.task };
    case 'mirror-ended':
      return { ...state, phase: input.phase };
    case 'took-over':
      // Whatever the driver saw is in the view; anything after it is a gap the new subscription fills.
      return { ...state, gap: true, ...(input.look ? { phase: { name: 'polling', delayMs: 0 } } : {}) };
    case 'detached':
      return { ...state, phase: { name: 'detached' } };
    case 'started':
      return announce(state, undefined, env, effects);
  }
}

/** A step's outcome: its bookkeeping (budget, futile streams), then the transition and what entering the next phase means. */
function settle(state: FollowState, input: Extract<FollowInput, { type: 'outcome' }>, env: FollowEnv, effects: FollowEffect[]): FollowState {
  const { outcome, ended } = input;
  let s = state;
  let retry = input.retry;
  switch (outcome.type) {
    case 'behind':
      s = { ...s, gap: true };
      break;
    case 'stream-ended':
    case 'stream-failed': {
      // A broken stream may have hidden events: a gap.
      if (outcome.type === 'stream-failed') s = { ...s, gap: true };
      const atRest = isTerminalState(s.taskState) || (isInterruptedState(s.taskState) && !s.awaitingNews);
      if (!atRest) {
        if (!ended?.progressed && !ended?.healthy) s = futile(s, env);
        retry = env.fail(outcome.type === 'stream-failed' ? outcome.error.retryAfterMs : undefined);
      }
      break;
    }
    case 'request-failed':
      retry = env.fail(outcome.error.retryAfterMs);
      break;
    default:
      break;
  }
  return enter(s, next(s.phase, outcome, facts(s, env, retry)), env, effects);
}

/** A stream ended without moving the task: one more futile stream (or, while polling, a failed try to stream again). */
function futile(state: FollowState, env: FollowEnv): FollowState {
  if (state.mode !== 'poll') return { ...state, futileStreams: state.futileStreams + 1 };
  const streamRetryMs = Math.min(env.resilience.maxStreamRetryMs, state.streamRetryMs * 2);
  return { ...state, futileStreams: state.futileStreams + 1, streamRetryMs, streamRetryAt: env.now + streamRetryMs };
}

/** What the transition function reads of the state and the world. */
function facts(state: FollowState, env: FollowEnv, retry: RetryDecision | undefined): Facts {
  const r = env.resilience;
  const quiet = env.now - state.quietSince;
  const canStream = env.canStream && !state.noStreams;
  return {
    taskId: env.taskId,
    state: state.taskState,
    // No free stream slot (a full connection pool): poll until one frees.
    mode: canStream && state.mode === 'stream' && (env.streamOpen || env.slotFree) ? 'stream' : 'poll',
    awaitingNews: state.awaitingNews,
    futileStreams: state.futileStreams,
    futileLimit: r.emptyConnectionsBeforePolling,
    gap: state.finalTask === undefined && (state.gap || r.finalCheck === 'always'),
    retry,
    pollDelayMs: state.pollDelayMs,
    streamRetryDue: canStream && state.mode === 'poll' && state.streamRetryAt !== undefined && env.now >= state.streamRetryAt && env.slotFree,
    quietFor: quiet > r.maxQuietMs ? quiet : undefined,
  };
}

/** Entering `phase`: the held terminal status at the end, the fall back to polling, the gap of a lost stream, the link news. */
function enter(state: FollowState, phase: Phase, env: FollowEnv, effects: FollowEffect[]): FollowState {
  const before = state.phase;
  let s: FollowState = { ...state, phase };
  if (phase.name === 'done' || phase.name === 'failed' || phase.name === 'detached') s = release(s, effects);
  if (phase.name === 'polling' && s.mode === 'stream') {
    s = { ...s, mode: 'poll' };
    effects.push({ type: 'persist', change: { delivery: 'poll' } });
  }
  if (phase.name === 'polling' && s.streamRetryAt === undefined) s = { ...s, streamRetryAt: env.now + s.streamRetryMs };
  if ((phase.name === 'resubscribing' || phase.name === 'polling' || phase.name === 'backing-off') && (before.name === 'live' || before.name === 'sending')) {
    s = { ...s, gap: true };
  }
  return announce(s, before, env, effects);
}

/** Tells the app about the link, once per change (and per reconnect attempt). */
function announce(state: FollowState, before: Phase | undefined, env: FollowEnv, effects: FollowEffect[]): FollowState {
  const phase = state.phase;
  let link = connectionOf(phase);
  if (link === undefined || phase.name === 'detached') return state;
  if (link === 'polling' && state.mode === 'push' && env.pushArmed) link = 'waiting-push';
  if (link === 'reconnecting' && !state.everConnected) link = 'connecting';
  // After the task ended nothing but `closed` is news (no "reconnecting" after completion).
  if (isTerminalState(state.taskState) && link !== 'closed') return state;
  const extra: Omit<ConnectionEvent, 'type' | 'state'> = {};
  if (phase.name === 'backing-off') {
    extra.attempt = phase.attempt;
    extra.delayMs = phase.delayMs;
    extra.error = phase.error;
  }
  if (phase.name === 'failed') extra.error = phase.error;
  if (link === state.connection && phase.name !== 'backing-off') return state;
  if (before?.name === 'backing-off' && phase.name === 'resubscribing' && link === 'reconnecting') return state;
  if (env.identified) effects.push({ type: 'emit', events: [{ type: 'connection', state: link, ...extra }] });
  return { ...state, connection: link };
}

/** Emits a held terminal status: after the final check's recovered content, or when the follow ends. */
function release(state: FollowState, effects: FollowEffect[]): FollowState {
  if (state.held === undefined) return state;
  effects.push({ type: 'emit', events: [...state.held] });
  return { ...state, held: undefined };
}

/** What the reconciler applied: progress resets the budgets; the terminal status of a stream is held; the record follows. */
function applied(state: FollowState, input: Extract<FollowInput, { type: 'applied' }>, env: FollowEnv, effects: FollowEffect[]): FollowState {
  let s: FollowState = { ...state, taskState: input.state };
  if (input.lastEventId !== undefined) s = { ...s, lastEventId: input.lastEventId };
  if (input.final) s = { ...s, finalTask: input.final.task };
  let events = input.events;
  if (events.length === 0) return input.live ? s : release(s, effects);
  s = { ...s, moves: s.moves + 1, futileStreams: 0, quietSince: env.now };
  effects.push({ type: 'reset-budget' });
  if (input.open?.subscription && s.mode === 'poll') {
    // Back on a stream that moves the task: polling is over.
    s = { ...s, mode: 'stream', streamRetryMs: env.resilience.streamRetryMs, streamRetryAt: undefined };
    effects.push({ type: 'persist', change: { delivery: 'stream' } });
  }
  if (events.some((e) => e.type === 'status')) s = { ...s, awaitingNews: false };
  effects.push({ type: 'input-wait', state: input.state });
  if (input.live && isTerminalState(input.state) && s.held === undefined) {
    // The end arrived on a stream: the stream may still bring content after it, and after a gap the
    // final check may recover content the gap hid — nothing may follow the terminal status (G2).
    // Hold the status until the follow ends (or the final check has spoken).
    const at = events.findIndex((e) => e.type === 'status' && isTerminalState(e.state));
    if (at >= 0) {
      s = { ...s, held: events.slice(at, at + 1) };
      events = [...events.slice(0, at), ...events.slice(at + 1)];
    }
  }
  if (events.length > 0) effects.push({ type: 'emit', events });
  if (!input.live) s = release(s, effects);
  effects.push({ type: 'persist', change: { state: input.state, ...(s.lastEventId === undefined ? {} : { lastEventId: s.lastEventId }) } });
  return s;
}
