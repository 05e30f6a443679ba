import { describe, expect, it } from 'vitest';
import { TetherError } from '../errors/tether-error.js';
import type { Task } from '../model/types.js';
import { initialState, isOver, reduce, type FollowEffect, type FollowEnv, type FollowInput, type FollowState } from './follow-state.js';
import { connectionOf, type Outcome, type Phase } from './phase.js';
import { RESILIENCE_DEFAULTS } from './resilience.js';
import type { RetryDecision } from './retry-budget.js';
import type { TaskEvent } from './task-event.js';

const NOW = 1_000_000;
const failure = new TetherError('NETWORK', 'socket closed');
const resilience = { ...RESILIENCE_DEFAULTS, emptyConnectionsBeforePolling: 3, pollMinMs: 1_000, pollMaxMs: 8_000, pollFactor: 2, maxQuietMs: 1_800_000 };
const again: RetryDecision = { retry: true, delayMs: 40, attempt: 1 };

/** A follow in `phase`, working, nothing missed, everything else as a fresh follow has it. */
function state(phase: Phase, extra: Partial<FollowState> = {}): FollowState {
  return { ...initialState(NOW, resilience), phase, taskState: 'working', connection: 'live', everConnected: true, pollDelayMs: 1_000, ...extra };
}

function env(extra: Partial<FollowEnv> & { retry?: RetryDecision } = {}): FollowEnv {
  const { retry = again, ...rest } = extra;
  return {
    now: NOW,
    resilience,
    random: () => 0.5,
    taskId: 't1',
    canStream: true,
    streamOpen: false,
    slotFree: true,
    pushArmed: false,
    identified: true,
    fail: () => retry,
    ...rest,
  };
}

const outcome = (o: Outcome, ended?: { progressed: boolean; healthy: boolean }): FollowInput => ({ type: 'outcome', outcome: o, ...(ended ? { ended } : {}) });

const live: Phase = { name: 'live' };
const sendingStart: Phase = { name: 'sending', purpose: 'start' };
const sendingReply: Phase = { name: 'sending', purpose: 'reply' };
const resubscribing: Phase = { name: 'resubscribing' };
const polling: Phase = { name: 'polling', delayMs: 1_000 };
const waiting: Phase = { name: 'waiting-input' };
const finalCheck: Phase = { name: 'final-check' };
const backingOff = (then: 'resubscribing' | 'polling' | 'final-check'): Phase => ({ name: 'backing-off', delayMs: 40, attempt: 1, error: failure, then });

const completedStatus: TaskEvent = { type: 'status', state: 'completed' };
const workingStatus: TaskEvent = { type: 'status', state: 'working' };
const artifact: TaskEvent = { type: 'artifact', artifactId: 'a1', parts: [{ kind: 'text', text: 'x' }], append: false, lastChunk: true };
const doneTask = { kind: 'task', id: 't1', contextId: 'c1', status: { state: 'completed' } } as Task;

interface Row {
  /** What the row shows. */
  name: string;
  from: FollowState;
  input: FollowInput;
  env?: Partial<FollowEnv> & { retry?: RetryDecision };
  /** The next phase (exactly, or by its fields). */
  phase: Partial<Phase> & { name: Phase['name'] };
  /** Fields of the next state. */
  state?: Partial<FollowState>;
  /** The effects, exactly (omitted: not checked). */
  effects?: FollowEffect[];
}

/** The reducer's table: every phase, each input it meets, what comes next and what is done. */
const TABLE: Row[] = [
  // sending
  { name: 'sending: a streamed answer is read next', from: state(sendingStart, { connection: 'connecting' }), input: outcome({ type: 'sent', streaming: true }), phase: live, state: { connection: 'live' } },
  {
    name: 'sending: a unary answer rests where the task stands (polling; the gap of leaving the send is marked)',
    from: state(sendingStart, { mode: 'poll', connection: 'connecting' }),
    input: outcome({ type: 'sent', streaming: false }),
    phase: { name: 'polling', delayMs: 1_000 },
    state: { gap: true, connection: 'polling', streamRetryAt: NOW + resilience.streamRetryMs },
    effects: [{ type: 'emit', events: [{ type: 'connection', state: 'polling' }] }],
  },
  { name: 'sending: a reply answered at the end finishes', from: state(sendingReply, { taskState: 'completed' }), input: outcome({ type: 'sent', streaming: false }), phase: { name: 'done' } },
  { name: 'sending: a start that fails ends the follow', from: state(sendingStart), input: outcome({ type: 'send-failed', error: failure }), phase: { name: 'failed', error: failure } },
  { name: 'sending: a reply that fails leaves the task where it was', from: state(sendingReply, { taskState: 'input-required' }), input: outcome({ type: 'send-failed', error: failure }), phase: waiting },
  // live
  { name: 'live: a stream ending at a terminal state finishes', from: state(live, { taskState: 'completed' }), input: outcome({ type: 'stream-ended' }), phase: { name: 'done' } },
  { name: 'live: … with a final check after a gap', from: state(live, { taskState: 'failed', gap: true }), input: outcome({ type: 'stream-ended' }), phase: finalCheck },
  { name: 'live: a terminal snapshot already known needs no final check', from: state(live, { taskState: 'completed', gap: true, finalTask: doneTask }), input: outcome({ type: 'stream-ended' }), phase: { name: 'done' } },
  { name: 'live: a stream ending at a pause waits for input', from: state(live, { taskState: 'input-required' }), input: outcome({ type: 'stream-ended' }), phase: waiting },
  {
    name: 'live: … unless a reply still waits for news',
    from: state(live, { taskState: 'input-required', awaitingNews: true }),
    input: outcome({ type: 'stream-ended' }),
    phase: { name: 'backing-off', then: 'resubscribing' },
  },
  {
    name: 'live: a premature end backs off, then resubscribes; a stream that moved nothing is futile',
    from: state(live),
    input: outcome({ type: 'stream-ended' }, { progressed: false, healthy: false }),
    phase: { name: 'backing-off', delayMs: 40, attempt: 1, then: 'resubscribing' },
    state: { futileStreams: 1, gap: true, connection: 'reconnecting' },
  },
  {
    name: 'live: a stream that moved the task is not futile',
    from: state(live, { futileStreams: 2 }),
    input: outcome({ type: 'stream-ended' }, { progressed: true, healthy: false }),
    phase: { name: 'backing-off', then: 'resubscribing' },
    state: { futileStreams: 2 },
  },
  {
    name: 'live: a broken stream is a gap, and after enough futile streams the engine polls',
    from: state(live, { futileStreams: 2 }),
    input: outcome({ type: 'stream-failed', error: failure }, { progressed: false, healthy: false }),
    phase: { name: 'backing-off', error: failure, then: 'polling' },
    state: { futileStreams: 3, gap: true, connection: 'polling' },
  },
  {
    name: 'live: a spent budget ends the follow with RETRY_EXHAUSTED',
    from: state(live),
    input: outcome({ type: 'stream-failed', error: failure }),
    env: { retry: { retry: false, reason: '12 failed attempts in a row', attempt: 13 } },
    phase: { name: 'failed' },
  },
  { name: 'live: the probe found the agent ahead — reconnect at once', from: state(live), input: outcome({ type: 'behind', task: doneTask }), phase: resubscribing, state: { gap: true } },
  { name: 'live: … or check the end', from: state(live, { taskState: 'completed' }), input: outcome({ type: 'behind', task: doneTask }), phase: finalCheck },
  { name: 'live: … or wait at a pause', from: state(live, { taskState: 'auth-required' }), input: outcome({ type: 'behind', task: doneTask }), phase: waiting },
  {
    name: 'live: while polling, a failed try to stream goes back to polling and the next try waits twice as long',
    from: state(live, { mode: 'poll', streamRetryMs: 1_000 }),
    input: outcome({ type: 'stream-failed', error: failure }, { progressed: false, healthy: false }),
    phase: { name: 'backing-off', then: 'polling' },
    state: { streamRetryMs: 2_000, streamRetryAt: NOW + 2_000 },
  },
  // resubscribing
  { name: 'resubscribing: open → live', from: state(resubscribing, { connection: 'reconnecting' }), input: outcome({ type: 'subscribed' }), phase: live, state: { connection: 'live' } },
  { name: 'resubscribing: refused → poll', from: state(resubscribing), input: outcome({ type: 'refused' }), phase: { name: 'polling', delayMs: 1_000 }, state: { mode: 'poll' } },
  { name: 'resubscribing: refused at the end → done', from: state(resubscribing, { taskState: 'canceled' }), input: outcome({ type: 'refused' }), phase: { name: 'done' } },
  {
    name: 'resubscribing: no free stream slot → poll',
    from: state(resubscribing),
    input: outcome({ type: 'waited' }),
    env: { slotFree: false },
    phase: { name: 'polling' },
    effects: [
      { type: 'persist', change: { delivery: 'poll' } },
      { type: 'emit', events: [{ type: 'connection', state: 'polling' }] },
    ],
  },
  // backing-off
  { name: 'backing-off: then resubscribe', from: state(backingOff('resubscribing')), input: outcome({ type: 'waited' }), phase: resubscribing },
  { name: 'backing-off: a failed poll polls again at once', from: state(backingOff('polling'), { mode: 'poll' }), input: outcome({ type: 'waited' }), phase: { name: 'polling', delayMs: 0 } },
  { name: 'backing-off: then check the end', from: state(backingOff('final-check'), { taskState: 'completed' }), input: outcome({ type: 'waited' }), phase: finalCheck },
  {
    name: 'backing-off → resubscribing is one reconnect: no second "reconnecting"',
    from: state(backingOff('resubscribing'), { connection: 'reconnecting' }),
    input: outcome({ type: 'waited' }),
    phase: resubscribing,
    effects: [],
  },
  // polling
  { name: 'polling: terminal → done', from: state(polling, { mode: 'poll', taskState: 'completed' }), input: outcome({ type: 'polled' }), phase: { name: 'done' } },
  { name: 'polling: paused → waiting-input', from: state(polling, { mode: 'poll', taskState: 'input-required' }), input: outcome({ type: 'polled' }), phase: waiting },
  {
    name: 'polling: back to streaming when the retry is due',
    from: state(polling, { mode: 'poll', streamRetryAt: NOW - 1 }),
    input: outcome({ type: 'polled' }),
    phase: resubscribing,
  },
  { name: 'polling: poll again after the cadence', from: state(polling, { mode: 'poll', pollDelayMs: 3_000 }), input: outcome({ type: 'polled' }), phase: { name: 'polling', delayMs: 3_000 } },
  { name: 'polling: a failed poll backs off and polls', from: state(polling, { mode: 'poll' }), input: outcome({ type: 'request-failed', error: failure }), phase: { name: 'backing-off', then: 'polling' } },
  {
    name: 'polling: no progress for longer than maxQuietMs ends the follow',
    from: state(polling, { mode: 'poll', quietSince: NOW - 1_800_001 }),
    input: outcome({ type: 'polled' }),
    phase: { name: 'failed' },
  },
  {
    name: 'polling: a task waiting for a human is not quiet',
    from: state(polling, { mode: 'poll', taskState: 'input-required', quietSince: NOW - 1_800_001 }),
    input: outcome({ type: 'polled' }),
    phase: waiting,
  },
  {
    name: 'polling with push armed: the app hears waiting-push',
    from: state(sendingStart, { mode: 'push', connection: 'connecting' }),
    input: outcome({ type: 'sent', streaming: false }),
    env: { pushArmed: true },
    phase: { name: 'polling' },
    state: { connection: 'waiting-push', mode: 'push' },
  },
  // waiting-input
  { name: 'waiting-input: reply sends', from: state(waiting, { taskState: 'input-required' }), input: outcome({ type: 'reply' }), phase: sendingReply },
  { name: 'waiting-input: the auth look found the task moving → follow again', from: state(waiting), input: outcome({ type: 'waited' }), phase: resubscribing },
  { name: 'waiting-input: the auth look found it still paused', from: state(waiting, { taskState: 'auth-required', connection: 'waiting' }), input: outcome({ type: 'waited' }), phase: waiting },
  {
    name: 'waiting-input: a timeout fails',
    from: state(waiting, { taskState: 'input-required' }),
    input: outcome({ type: 'input-timeout', error: new TetherError('INPUT_TIMEOUT', 'no reply') }),
    phase: { name: 'failed' },
  },
  // final-check
  { name: 'final-check: checked → done', from: state(finalCheck, { taskState: 'completed', gap: true }), input: outcome({ type: 'checked' }), phase: { name: 'done' } },
  {
    name: 'final-check: a transient failure backs off and checks again',
    from: state(finalCheck, { taskState: 'completed', gap: true }),
    input: outcome({ type: 'request-failed', error: failure }),
    phase: { name: 'backing-off', then: 'final-check' },
  },
  {
    name: 'final-check → done: the held terminal status is released, then closed is said',
    from: state(finalCheck, { taskState: 'completed', gap: true, held: [completedStatus] }),
    input: outcome({ type: 'checked' }),
    phase: { name: 'done' },
    state: { held: undefined, connection: 'closed' },
    effects: [
      { type: 'emit', events: [completedStatus] },
      { type: 'emit', events: [{ type: 'connection', state: 'closed' }] },
    ],
  },
  // ends
  { name: 'detached while no step ran', from: state(polling), input: { type: 'detached' }, phase: { name: 'detached' }, effects: [] },
  {
    name: 'failed: the app hears closed with the error',
    from: state(live),
    input: outcome({ type: 'fatal', error: failure }),
    phase: { name: 'failed' },
    effects: [{ type: 'emit', events: [{ type: 'connection', state: 'closed', error: failure }] }],
  },
  { name: 'a mirror ends as its driver did', from: state(live), input: { type: 'mirror-ended', phase: { name: 'done' } }, phase: { name: 'done' }, effects: [] },
  // what the reconciler applied
  {
    name: 'applied: progress resets the budget and the futile count, and the record follows',
    from: state(live, { futileStreams: 2, quietSince: 0 }),
    input: { type: 'applied', events: [artifact], state: 'working', live: true, lastEventId: 'e7' },
    phase: live,
    state: { futileStreams: 0, quietSince: NOW, moves: 1, lastEventId: 'e7' },
    effects: [
      { type: 'reset-budget' },
      { type: 'input-wait', state: 'working' },
      { type: 'emit', events: [artifact] },
      { type: 'persist', change: { state: 'working', lastEventId: 'e7' } },
    ],
  },
  {
    name: 'applied: a terminal status read on a stream is held; content after it comes first (G2)',
    from: state(live),
    input: { type: 'applied', events: [artifact, completedStatus], state: 'completed', live: true },
    phase: live,
    state: { held: [completedStatus] },
    effects: [
      { type: 'reset-budget' },
      { type: 'input-wait', state: 'completed' },
      { type: 'emit', events: [artifact] },
      { type: 'persist', change: { state: 'completed' } },
    ],
  },
  {
    name: 'applied: a snapshot (not live) releases a held status after its content',
    from: state(finalCheck, { taskState: 'completed', held: [completedStatus] }),
    input: { type: 'applied', events: [artifact], state: 'completed', live: false },
    phase: finalCheck,
    state: { held: undefined },
    effects: [
      { type: 'reset-budget' },
      { type: 'input-wait', state: 'completed' },
      { type: 'emit', events: [artifact] },
      { type: 'emit', events: [completedStatus] },
      { type: 'persist', change: { state: 'completed' } },
    ],
  },
  {
    name: 'applied: a subscription that moves the task ends polling',
    from: state(live, { mode: 'poll', streamRetryMs: 4_000, streamRetryAt: NOW + 4_000, awaitingNews: true }),
    input: { type: 'applied', events: [workingStatus], state: 'working', live: true, open: { subscription: true } },
    phase: live,
    state: { mode: 'stream', streamRetryMs: resilience.streamRetryMs, streamRetryAt: undefined, awaitingNews: false },
  },
  {
    name: 'applied: nothing new changes nothing but the id and the result',
    from: state(live, { moves: 3 }),
    input: { type: 'applied', events: [], state: 'completed', live: true, lastEventId: 'e9', final: { task: doneTask } },
    phase: live,
    state: { moves: 3, lastEventId: 'e9', finalTask: doneTask, taskState: 'completed' },
    effects: [],
  },
  // commands and facts
  { name: 'healthy: a probe in step ends polling and resets', from: state(live, { mode: 'poll', futileStreams: 2 }), input: { type: 'healthy', subscription: true }, phase: live, state: { mode: 'stream', futileStreams: 0 }, effects: [{ type: 'reset-budget' }] },
  {
    name: 'acknowledged: a reply at a pause owes news; the quiet clock restarts',
    from: state(sendingReply, { taskState: 'input-required', quietSince: 0 }),
    input: { type: 'acknowledged', reply: true, looked: false },
    phase: sendingReply,
    state: { awaitingNews: true, quietSince: NOW },
  },
  { name: 'acknowledged by looking: a gap', from: state(sendingStart, { quietSince: 0 }), input: { type: 'acknowledged', reply: false, looked: true }, phase: sendingStart, state: { gap: true, quietSince: 0 } },
  {
    name: 'opened (the send): live is said before anything read',
    from: state(sendingStart, { connection: 'connecting', everConnected: false }),
    input: { type: 'opened', subscription: false },
    phase: sendingStart,
    state: { connection: 'live', everConnected: true, gap: false },
    effects: [{ type: 'emit', events: [{ type: 'connection', state: 'live' }] }],
  },
  { name: 'opened (a subscription): a gap', from: state(resubscribing, { gap: false }), input: { type: 'opened', subscription: true }, phase: resubscribing, state: { gap: true }, effects: [] },
  { name: 'refused: no more tries to stream', from: state(resubscribing), input: { type: 'refused' }, phase: resubscribing, state: { noStreams: true } },
  {
    name: 'refused by another answer: a try to stream again after streamRetryMs (not progress: no budget reset)',
    from: state(resubscribing),
    input: { type: 'refused', again: true },
    phase: resubscribing,
    state: { noStreams: false, streamRetryMs: resilience.streamRetryMs, streamRetryAt: NOW + resilience.streamRetryMs },
    effects: [],
  },
  {
    name: 'refused again while polling: the wait before the next try doubles',
    from: state(resubscribing, { mode: 'poll', streamRetryMs: 10_000, streamRetryAt: NOW - 1 }),
    input: { type: 'refused', again: true },
    phase: resubscribing,
    state: { noStreams: false, streamRetryMs: 20_000, streamRetryAt: NOW + 20_000 },
    effects: [],
  },
  {
    name: 'polled: the cadence grows while nothing moves',
    from: state(polling, { mode: 'poll', pollBaseMs: 2_000 }),
    input: { type: 'polled', moved: false },
    phase: polling,
    state: { pollBaseMs: 4_000, pollDelayMs: 4_000 },
    effects: [{ type: 'reset-budget' }],
  },
  { name: 'polled: push sets the next wait', from: state(polling, { mode: 'push', quietSince: 0 }), input: { type: 'polled', moved: false, pushDelayMs: 0 }, phase: polling, state: { pollDelayMs: 0, quietSince: NOW } },
  { name: 'delivery: the mode is recorded', from: state(polling, { mode: 'push' }), input: { type: 'delivery', mode: 'poll' }, phase: polling, state: { mode: 'poll' }, effects: [{ type: 'persist', change: { delivery: 'poll' } }] },
  {
    name: 'mirrored: the driver\'s link state, shown',
    from: state(live, { connection: 'live' }),
    input: { type: 'mirrored', connection: 'reconnecting', show: true },
    phase: live,
    state: { connection: 'reconnecting' },
    effects: [{ type: 'emit', events: [{ type: 'connection', state: 'reconnecting' }] }],
  },
  { name: 'mirrored-final: the driver\'s result', from: state(live), input: { type: 'mirrored-final', task: doneTask }, phase: live, state: { finalTask: doneTask } },
  { name: 'took-over: a gap; look first when the driver ended', from: state(live, { gap: false }), input: { type: 'took-over', look: true }, phase: { name: 'polling', delayMs: 0 }, state: { gap: true } },
  {
    name: 'started: the app hears where the follow is',
    from: state(resubscribing, { connection: 'connecting', everConnected: false }),
    input: { type: 'started' },
    phase: resubscribing,
    effects: [],
  },
  {
    name: 'started after a reconnect: reconnecting',
    from: state(resubscribing, { connection: 'live', everConnected: true }),
    input: { type: 'started' },
    phase: resubscribing,
    effects: [{ type: 'emit', events: [{ type: 'connection', state: 'reconnecting' }] }],
  },
  {
    name: 'after the end nothing but closed is news',
    from: state(live, { taskState: 'completed', connection: 'live' }),
    input: outcome({ type: 'stream-failed', error: failure }),
    phase: finalCheck,
    effects: [],
  },
];

describe('reduce(): the follow as one state value and one reducer', () => {
  it.each(TABLE.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const { state: next, effects } = reduce(row.from, row.input, env(row.env));
    expect(next.phase).toMatchObject(row.phase);
    if (row.state) expect(next).toMatchObject(row.state);
    if (row.effects) expect(effects).toEqual(row.effects);
  });

  it('covers every phase as a starting point', () => {
    const names = new Set(TABLE.map((row) => row.from.phase.name));
    for (const name of ['sending', 'live', 'resubscribing', 'backing-off', 'polling', 'waiting-input', 'final-check'] as const) expect(names).toContain(name);
    const reached = new Set(TABLE.map((row) => row.phase.name));
    for (const name of ['done', 'failed', 'detached'] as const) expect(reached).toContain(name);
  });

  it('never changes the state it was given (a frozen state reduces without a write)', () => {
    const freeze = <T>(value: T): T => {
      if (value && typeof value === 'object' && !Object.isFrozen(value)) {
        Object.freeze(value);
        for (const inner of Object.values(value)) freeze(inner);
      }
      return value;
    };
    for (const row of TABLE) expect(() => reduce(freeze(structuredClone(row.from)), row.input, env(row.env))).not.toThrow();
    const frozen = freeze(state(live));
    expect(() => ((frozen as { gap: boolean }).gap = true)).toThrow(TypeError);
  });

  it('from any running phase: detach, a fatal error, and a state changed from outside', () => {
    const fatal = new TetherError('PROTOCOL_VIOLATION', 'nope');
    for (const phase of [live, sendingStart, polling, waiting, resubscribing, finalCheck]) {
      expect(reduce(state(phase), outcome({ type: 'detach' }), env()).state.phase).toEqual({ name: 'detached' });
      expect(reduce(state(phase), outcome({ type: 'fatal', error: fatal }), env()).state.phase).toEqual({ name: 'failed', error: fatal });
      expect(reduce(state(phase, { taskState: 'canceled' }), outcome({ type: 'state-changed' }), env()).state.phase).toEqual({ name: 'done' });
    }
  });

  it('a spent budget names the task, the reason and the cause', () => {
    const { state: next } = reduce(state(live), outcome({ type: 'stream-failed', error: failure }), env({ retry: { retry: false, reason: '12 failed attempts in a row', attempt: 13 } }));
    expect(next.phase.name).toBe('failed');
    if (next.phase.name !== 'failed') return;
    expect(next.phase.error).toMatchObject({ code: 'RETRY_EXHAUSTED', taskId: 't1', cause: failure });
    expect(next.phase.error.message).toContain('12 failed attempts in a row');
  });

  it('initial states: a start sends; a resumed task resubscribes (streaming) or polls, with a gap', () => {
    expect(initialState(NOW, resilience)).toMatchObject({ phase: sendingStart, mode: 'stream', gap: false });
    expect(initialState(NOW, resilience, { mode: 'stream', lastEventId: 'e1', streaming: true })).toMatchObject({ phase: resubscribing, gap: true, lastEventId: 'e1' });
    expect(initialState(NOW, resilience, { mode: 'stream', lastEventId: undefined, streaming: false })).toMatchObject({ phase: { name: 'polling', delayMs: 0 } });
    expect(isOver(state({ name: 'done' }))).toBe(true);
    expect(isOver(state(live))).toBe(false);
  });

  it('what the app is told about the link in each phase', () => {
    expect(connectionOf(sendingStart)).toBe('connecting');
    expect(connectionOf(live)).toBe('live');
    expect(connectionOf(resubscribing)).toBe('reconnecting');
    expect(connectionOf(backingOff('resubscribing'))).toBe('reconnecting');
    expect(connectionOf(backingOff('polling'))).toBe('polling');
    expect(connectionOf(polling)).toBe('polling');
    expect(connectionOf(waiting)).toBe('waiting');
    expect(connectionOf(finalCheck)).toBeUndefined();
    for (const end of [{ name: 'done' }, { name: 'failed', error: failure }, { name: 'detached' }] as Phase[]) expect(connectionOf(end)).toBe('closed');
  });
});
