import { describe, expect, it } from 'vitest';
import { TetherError } from '../errors/tether-error.js';
import { connectionOf, next, type Facts, type Outcome, type Phase } from './phase.js';

const failure = new TetherError('NETWORK', 'socket closed');

function facts(extra: Partial<Facts> = {}): Facts {
  return {
    taskId: 't1',
    state: 'working',
    mode: 'stream',
    awaitingNews: false,
    futileStreams: 0,
    futileLimit: 3,
    gap: false,
    retry: { retry: true, delayMs: 40, attempt: 1 },
    pollDelayMs: 1_000,
    streamRetryDue: false,
    ...extra,
  };
}

const live: Phase = { name: 'live' };
const sendingStart: Phase = { name: 'sending', purpose: 'start' };
const sendingReply: Phase = { name: 'sending', purpose: 'reply' };
const polling: Phase = { name: 'polling', delayMs: 1_000 };
const waiting: Phase = { name: 'waiting-input' };

function go(phase: Phase, outcome: Outcome, extra: Partial<Facts> = {}): Phase {
  return next(phase, outcome, facts(extra));
}

describe('next(): the engine transition function', () => {
  it('sending: a streamed answer is read next; a unary one rests where the task stands', () => {
    expect(go(sendingStart, { type: 'sent', streaming: true })).toEqual({ name: 'live' });
    expect(go(sendingStart, { type: 'sent', streaming: false }, { mode: 'poll' })).toEqual({ name: 'polling', delayMs: 1_000 });
    expect(go(sendingReply, { type: 'sent', streaming: false }, { state: 'completed' })).toEqual({ name: 'done' });
  });

  it('sending: a start that fails ends the follow; a reply that fails leaves the task where it was', () => {
    expect(go(sendingStart, { type: 'send-failed', error: failure })).toEqual({ name: 'failed', error: failure });
    expect(go(sendingReply, { type: 'send-failed', error: failure }, { state: 'input-required' })).toEqual({ name: 'waiting-input' });
  });

  it('live: a stream that ends at a terminal state finishes (with a final check after a gap)', () => {
    expect(go(live, { type: 'stream-ended' }, { state: 'completed' })).toEqual({ name: 'done' });
    expect(go(live, { type: 'stream-ended' }, { state: 'failed', gap: true })).toEqual({ name: 'final-check' });
  });

  it('live: a stream that ends at a pause waits for input, unless a reply is still waiting for news', () => {
    expect(go(live, { type: 'stream-ended' }, { state: 'input-required' })).toEqual({ name: 'waiting-input' });
    const after = go(live, { type: 'stream-ended' }, { state: 'input-required', awaitingNews: true });
    expect(after).toMatchObject({ name: 'backing-off', then: 'resubscribing', error: { code: 'STREAM_INTERRUPTED' } });
  });

  it('live: a premature end or a broken stream backs off, then resubscribes — or polls after enough futile streams', () => {
    expect(go(live, { type: 'stream-ended' })).toMatchObject({ name: 'backing-off', delayMs: 40, attempt: 1, then: 'resubscribing' });
    expect(go(live, { type: 'stream-failed', error: failure })).toMatchObject({ name: 'backing-off', error: failure, then: 'resubscribing' });
    expect(go(live, { type: 'stream-failed', error: failure }, { futileStreams: 3 })).toMatchObject({ name: 'backing-off', then: 'polling' });
  });

  it('a spent budget ends the follow with RETRY_EXHAUSTED naming the task and the cause', () => {
    const phase = go(live, { type: 'stream-failed', error: failure }, { retry: { retry: false, reason: '12 failed attempts in a row', attempt: 13 } });
    expect(phase.name).toBe('failed');
    if (phase.name !== 'failed') return;
    expect(phase.error.code).toBe('RETRY_EXHAUSTED');
    expect(phase.error.taskId).toBe('t1');
    expect(phase.error.cause).toBe(failure);
    expect(phase.error.message).toContain('12 failed attempts in a row');
  });

  it('live: the idle probe found the agent ahead — reconnect at once (or rest, if it finished or paused)', () => {
    expect(go(live, { type: 'behind' })).toEqual({ name: 'resubscribing' });
    expect(go(live, { type: 'behind' }, { state: 'completed', gap: true })).toEqual({ name: 'final-check' });
    expect(go(live, { type: 'behind' }, { state: 'auth-required' })).toEqual({ name: 'waiting-input' });
  });

  it('resubscribing: open → live; refused → poll (no more tries to stream), or finish', () => {
    expect(go({ name: 'resubscribing' }, { type: 'subscribed' })).toEqual({ name: 'live' });
    expect(go({ name: 'resubscribing' }, { type: 'refused' })).toEqual({ name: 'polling', delayMs: 1_000 });
    expect(go({ name: 'resubscribing' }, { type: 'refused' }, { streamRetryDue: true })).toEqual({ name: 'polling', delayMs: 1_000 });
    expect(go({ name: 'resubscribing' }, { type: 'refused' }, { state: 'canceled' })).toEqual({ name: 'done' });
  });

  it('backing-off: when the wait is over, go where the backoff said (a failed poll polls again at once)', () => {
    const backingOff = (then: 'resubscribing' | 'polling' | 'final-check'): Phase => ({ name: 'backing-off', delayMs: 40, attempt: 1, error: failure, then });
    expect(go(backingOff('resubscribing'), { type: 'waited' })).toEqual({ name: 'resubscribing' });
    expect(go(backingOff('polling'), { type: 'waited' }, { mode: 'poll' })).toEqual({ name: 'polling', delayMs: 0 });
    expect(go(backingOff('final-check'), { type: 'waited' }, { state: 'completed' })).toEqual({ name: 'final-check' });
  });

  it('polling: rest decides — terminal, paused, back to streaming when due, or poll again', () => {
    expect(go(polling, { type: 'polled' }, { mode: 'poll', state: 'completed' })).toEqual({ name: 'done' });
    expect(go(polling, { type: 'polled' }, { mode: 'poll', state: 'input-required' })).toEqual({ name: 'waiting-input' });
    expect(go(polling, { type: 'polled' }, { mode: 'poll', streamRetryDue: true })).toEqual({ name: 'resubscribing' });
    expect(go(polling, { type: 'polled' }, { mode: 'poll', pollDelayMs: 3_000 })).toEqual({ name: 'polling', delayMs: 3_000 });
  });

  it('polling: a failed poll backs off and polls; while polling, a failed try to stream goes back to polling', () => {
    expect(go(polling, { type: 'request-failed', error: failure }, { mode: 'poll' })).toMatchObject({ name: 'backing-off', then: 'polling' });
    expect(go({ name: 'live' }, { type: 'stream-failed', error: failure }, { mode: 'poll' })).toMatchObject({ name: 'backing-off', then: 'polling' });
  });

  it('no progress off a live stream for longer than maxQuietMs ends the follow', () => {
    const phase = go(polling, { type: 'polled' }, { mode: 'poll', quietFor: 1_800_001 });
    expect(phase).toMatchObject({ name: 'failed', error: { code: 'RETRY_EXHAUSTED', taskId: 't1' } });
    // A task waiting for a human is not quiet: its wait has its own timeout.
    expect(go(polling, { type: 'polled' }, { mode: 'poll', state: 'input-required', quietFor: 1_800_001 })).toEqual({ name: 'waiting-input' });
  });

  it('waiting-input: reply sends; the auth-required look that found a change follows again; a timeout fails', () => {
    expect(go(waiting, { type: 'reply' }, { state: 'input-required' })).toEqual({ name: 'sending', purpose: 'reply' });
    expect(go(waiting, { type: 'waited' }, { state: 'working' })).toEqual({ name: 'resubscribing' });
    expect(go(waiting, { type: 'waited' }, { state: 'auth-required' })).toEqual({ name: 'waiting-input' });
    const timeout = new TetherError('INPUT_TIMEOUT', 'no reply');
    expect(go(waiting, { type: 'input-timeout', error: timeout }, { state: 'input-required' })).toEqual({ name: 'failed', error: timeout });
  });

  it('final-check: checked → done; a transient failure backs off and checks again', () => {
    expect(go({ name: 'final-check' }, { type: 'checked' }, { state: 'completed', gap: true })).toEqual({ name: 'done' });
    expect(go({ name: 'final-check' }, { type: 'request-failed', error: failure }, { state: 'completed', gap: true })).toMatchObject({
      name: 'backing-off',
      then: 'final-check',
    });
  });

  it('from any phase: detach, a fatal error, and a state changed from outside (a cancel answer)', () => {
    const fatal = new TetherError('PROTOCOL_VIOLATION', 'nope');
    for (const phase of [live, sendingStart, polling, waiting, { name: 'resubscribing' } as Phase, { name: 'final-check' } as Phase]) {
      expect(go(phase, { type: 'detach' })).toEqual({ name: 'detached' });
      expect(go(phase, { type: 'fatal', error: fatal })).toEqual({ name: 'failed', error: fatal });
      expect(go(phase, { type: 'state-changed' }, { state: 'canceled' })).toEqual({ name: 'done' });
    }
  });

  it('tells the app about the link: connecting, live, reconnecting, polling, waiting, closed', () => {
    expect(connectionOf(sendingStart)).toBe('connecting');
    expect(connectionOf(live)).toBe('live');
    expect(connectionOf({ name: 'resubscribing' })).toBe('reconnecting');
    expect(connectionOf({ name: 'backing-off', delayMs: 1, attempt: 1, error: failure, then: 'resubscribing' })).toBe('reconnecting');
    expect(connectionOf({ name: 'backing-off', delayMs: 1, attempt: 1, error: failure, then: 'polling' })).toBe('polling');
    expect(connectionOf(polling)).toBe('polling');
    expect(connectionOf(waiting)).toBe('waiting');
    expect(connectionOf({ name: 'final-check' })).toBeUndefined();
    for (const end of [{ name: 'done' }, { name: 'failed', error: failure }, { name: 'detached' }] as Phase[]) expect(connectionOf(end)).toBe('closed');
  });
});
