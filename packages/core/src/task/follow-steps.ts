import { TaskNotFoundError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import { isTerminalState } from '../model/task-state.js';
import type { Task } from '../model/types.js';
import type { StreamItem } from '../transport/event-feed.js';
import { sleep } from '../util/scheduler.js';
import type { Resend } from './delivery.js';
import { deliverMessage } from './sender.js';
import type { FollowCore } from './follow-core.js';
import { absorbSnapshot, applyBatch, deliver } from './follow-intake.js';
import type { PendingSend, StartAck } from './follow-types.js';
import type { Outcome, Phase } from './phase.js';
import type { DeliveryMode } from './follow-state.js';
import { asTetherError, streamMendable, taskIdOf } from './classify.js';
import { pause } from './pause.js';
import type { Reconciler } from './reconciler.js';
import { StreamSession, type SessionHost, type StreamEnd } from './stream-session.js';
import { askTask, askTaskRetrying, type TaskAsker } from './task-requests.js';

/** The placeholder outcome of a step that was interrupted; the interruption replaces it. */
const INTERRUPTED: Outcome = { type: 'waited' };

/**
 * Runs the step of `phase` — one runner (the sender, the stream session, one GetTask, a wait) — and
 * applies what it returned; the outcome is the loop's next input. An interrupted step returns a
 * placeholder: the loop puts the interruption in its place.
 */
export function runStep(core: FollowCore, phase: Phase, signal: AbortSignal): Promise<Outcome> {
  switch (phase.name) {
    case 'sending':
      return sendStep(core, signal);
    case 'live':
      return liveStep(core, signal);
    case 'resubscribing':
      return subscribeStep(core, signal);
    case 'backing-off':
      return waitStep(core, phase.delayMs, signal);
    case 'polling':
      return pollStep(core, phase.delayMs, signal);
    case 'waiting-input':
      return inputStep(core, signal);
    case 'final-check':
      return finalCheckStep(core, signal);
    default:
      return Promise.resolve({ type: 'detach' });
  }
}

/** What a GetTask of the follow's task needs (see task-requests.ts). */
export function askerOf(core: FollowCore): TaskAsker {
  return { client: core.context.client, limiter: core.limiter, taskId: (core.view as Reconciler).taskId };
}

/**
 * What a stream session needs of the follow (the loop keeps one per follow). A class, so its getters
 * and methods live on the prototype: no closure per member.
 */
class CoreSessionHost implements SessionHost {
  readonly client: SessionHost['client'];
  readonly scheduler: SessionHost['scheduler'];
  readonly resilience: SessionHost['resilience'];
  readonly streamSlots: SessionHost['streamSlots'];
  readonly budget: SessionHost['budget'];
  constructor(private readonly core: FollowCore) {
    ({ client: this.client, scheduler: this.scheduler, resilience: this.resilience, streamSlots: this.streamSlots } = core.context);
    this.budget = core.budget;
  }
  get view(): Reconciler {
    return this.core.view as Reconciler;
  }
  asker(): TaskAsker {
    return askerOf(this.core);
  }
  healthy(subscription: boolean): void {
    this.core.dispatch({ type: 'healthy', subscription });
  }
  caughtUp(task: Task): void {
    absorbSnapshot(this.core, task, true);
    // Finished meanwhile: nothing the stream could add matters (and it may never end by itself).
    if (isTerminalState(task.status.state)) this.core.interrupt({ type: 'state-changed' });
  }
}

/** What a stream session needs of the follow (the loop keeps one per follow). */
export function sessionHostOf(core: FollowCore): SessionHost {
  return new CoreSessionHost(core);
}

// ── sending ─────────────────────────────────────────────────────────────────────────────────

async function sendStep(core: FollowCore, signal: AbortSignal): Promise<Outcome> {
  const pending = core.pending;
  if (!pending) return { type: 'send-failed', error: new TetherError('INVALID_ARGUMENT', 'nothing to send') };
  const { message, purpose, options } = pending;
  if (purpose === 'reply') core.view?.replied();
  const job = { message, purpose, options, taskKnown: core.view !== undefined, stream: core.state.mode === 'stream' };
  const sent = await deliverMessage(core.context, core.limiter, job, (resend) => reportResend(core, resend), signal);
  switch (sent.type) {
    case 'stopped':
      return INTERRUPTED;
    case 'answered':
      return answered(core, pending, sent.error, signal);
    case 'failed':
      return sendFailed(core, pending, sent.error);
    case 'message':
      return acknowledged(core, pending, { kind: 'message', message: sent.message });
    default:
      break;
  }
  try {
    if (sent.type === 'stream') {
      const first = sent.first[0] as StreamItem;
      if (!core.view) identify(core, pending, taskIdOf(first.event) as string, first.event.contextId ?? '', 'stream');
      const session = StreamSession.ofSend(core.sessions, sent.feed);
      core.attach(session);
      // The link is up before anything read from it: the app hears `live` first.
      core.dispatch({ type: 'opened', subscription: false });
      applyBatch(core, session, sent.first);
    } else if (sent.type === 'found') {
      if (!core.view) identify(core, pending, sent.task.id, sent.task.contextId, core.state.mode);
      deliver(core, (core.view as Reconciler).applySnapshot(sent.task, { recovered: true }), false);
    } else if (sent.result.kind === 'message') {
      if (!core.view) return acknowledged(core, pending, { kind: 'message', message: sent.result });
      deliver(core, core.view.applyEvent(sent.result), false);
    } else {
      if (!core.view) identify(core, pending, sent.result.id, sent.result.contextId, core.state.mode === 'push' ? 'push' : 'poll');
      absorbSnapshot(core, sent.result, false);
    }
  } catch (error) {
    // The answer arrived but cannot be applied (e.g. a snapshot of another task): answered, not lost.
    const session = core.session;
    if (session) core.release(session, false);
    return answered(core, pending, asTetherError(error, core.taskId), signal);
  }
  return acknowledged(core, pending, { kind: 'task' }, sent.type === 'found');
}

/**
 * The agent named the task. A start that names it (`taskId`) answers the task: a pause its stream opens
 * with is the one it answers (Reconciler.answering), as for a reply.
 */
function identify(core: FollowCore, pending: PendingSend, taskId: string, contextId: string, mode: DeliveryMode): void {
  core.identify(taskId, contextId, mode);
  if (answers(pending)) core.view?.answering(pending.message.messageId);
}

/** A reply, or a start that names its task (it answers the task, from wherever). */
function answers(pending: PendingSend): boolean {
  return pending.purpose === 'reply' || pending.message.taskId !== undefined;
}

/** The agent acknowledged the message: the caller's promise resolves; a Message answer ends the exchange. */
function acknowledged(core: FollowCore, pending: PendingSend, ack: StartAck, looked = false): Outcome {
  core.settled();
  pending.ack.resolve(ack);
  if (ack.kind === 'message') return { type: 'detach' };
  // A pause may have lasted hours: the quiet budget counts from the answer, not from before it.
  core.dispatch({ type: 'acknowledged', reply: answers(pending), looked });
  return { type: 'sent', streaming: core.session !== undefined };
}

/** The caller hears of every send of a message again, before it leaves (its own record: G6). */
function reportResend(core: FollowCore, resend: Resend): void {
  try {
    core.options.onResend?.(resend);
  } catch {
    // The app's callback failing is not the send failing.
  }
}

/**
 * The agent answered the send, but not with a usable stream. For a reply, the task is known: an
 * unreadable or foreign first event means the reply arrived and its stream broke (follow on, with a
 * snapshot); a lost task ends the follow; a refusal (e.g. the task is no longer waiting) leaves the
 * task as GetTask shows it. A start has no task to fall back on: it fails with the error.
 */
async function answered(core: FollowCore, pending: PendingSend, error: TetherError, signal: AbortSignal): Promise<Outcome> {
  if (pending.purpose !== 'reply') return sendFailed(core, pending, error);
  if (streamMendable(error)) {
    core.settled();
    pending.ack.resolve({ kind: 'task' });
    core.dispatch({ type: 'acknowledged', reply: true, looked: true });
    return { type: 'stream-failed', error };
  }
  const failed = sendFailed(core, pending, error);
  if (failed.type === 'fatal') return failed;
  try {
    const task = await askTaskRetrying(askerOf(core), core.budget, core.context.scheduler, signal);
    if (task) absorbSnapshot(core, task, true);
  } catch (resyncError) {
    if (!signal.aborted) return { type: 'fatal', error: asTetherError(resyncError, core.taskId) };
  }
  return failed;
}

function sendFailed(core: FollowCore, pending: PendingSend, error: TetherError): Outcome {
  core.settled();
  if (pending.purpose === 'reply') core.view?.forgetReply();
  pending.ack.reject(error);
  // A reply that found the task gone: the follow is over (the agent lost the task).
  if (pending.purpose === 'reply' && error instanceof TaskNotFoundError) return { type: 'fatal', error };
  return { type: 'send-failed', error };
}

// ── streaming ───────────────────────────────────────────────────────────────────────────────

async function liveStep(core: FollowCore, signal: AbortSignal): Promise<Outcome> {
  const session = core.session;
  if (!session) return { type: 'stream-ended' };
  try {
    for (;;) {
      const held = session.held;
      if (held) {
        // A gap in the task's generations (v1.1 draft): the snapshot of one GetTask fills it, and the held
        // events go on from there (those it covers are dropped).
        const task = await askTaskRetrying(askerOf(core), core.budget, core.context.scheduler, signal);
        if (!task) return INTERRUPTED;
        absorbSnapshot(core, task, true);
        core.view?.generations?.fill();
        session.held = undefined;
        applyBatch(core, session, held);
        continue;
      }
      const read = await session.next(signal);
      if (read.type !== 'batch') return endOf(core, read, signal);
      applyBatch(core, session, read.items);
    }
  } finally {
    core.release(session, true);
  }
}

async function subscribeStep(core: FollowCore, signal: AbortSignal): Promise<Outcome> {
  const r = core.view as Reconciler;
  if (!(await core.limiter.acquire(signal))) return INTERRUPTED;
  r.newConnection();
  const opened = await StreamSession.subscribe(core.sessions, r.taskId, core.state.lastEventId, signal);
  // The last slot went to another task meanwhile: poll until one frees.
  if (opened === undefined) return { type: 'waited' };
  if (!(opened instanceof StreamSession)) return endOf(core, opened, signal);
  core.attach(opened);
  core.dispatch({ type: 'opened', subscription: true });
  return { type: 'subscribed' };
}

/** How a stream (or its opening) ended, as the step's outcome. */
function endOf(core: FollowCore, end: StreamEnd, signal: AbortSignal): Outcome | Promise<Outcome> {
  switch (end.type) {
    case 'ended':
      return { type: 'stream-ended' };
    case 'failed':
      return { type: 'stream-failed', error: end.error };
    case 'behind':
      return { type: 'behind', task: end.task };
    case 'refused':
      return settleRefused(core, signal, end.error);
    case 'stopped':
      return INTERRUPTED;
    default:
      return { type: 'fatal', error: end.error };
  }
}

/**
 * Subscribing was refused: GetTask decides (finished → done; else poll — without trying to stream again,
 * or, after an answer that is not a known "cannot subscribe" (`error`), trying again later). When the
 * look fails too, that answer is the follow's error.
 */
async function settleRefused(core: FollowCore, signal: AbortSignal, error: TetherError | undefined): Promise<Outcome> {
  core.dispatch({ type: 'refused', again: error !== undefined });
  let task: Task | undefined;
  try {
    task = await askTaskRetrying(askerOf(core), core.budget, core.context.scheduler, signal);
  } catch (lookError) {
    return { type: 'fatal', error: error ?? asTetherError(lookError, core.taskId) };
  }
  if (!task) return INTERRUPTED;
  absorbSnapshot(core, task, true);
  return { type: 'refused' };
}

// ── waiting and looking ─────────────────────────────────────────────────────────────────────

async function waitStep(core: FollowCore, ms: number, signal: AbortSignal): Promise<Outcome> {
  await pause(core.context, ms, signal);
  return { type: 'waited' };
}

/**
 * One GetTask whose snapshot is applied (`recovered`: content a gap may have hidden), as a step's
 * outcome: `then` when it answered; a transient failure is `request-failed` (or `then`, when `patient`);
 * a lost task is fatal (or `then`, when `lostIsEnd`).
 */
async function look(
  core: FollowCore,
  signal: AbortSignal,
  then: Outcome,
  options: { recovered: boolean; patient?: boolean; lostIsEnd?: boolean; currentGeneration?: number | undefined },
): Promise<Outcome> {
  const asked = await askTask(askerOf(core), signal, options.currentGeneration);
  switch (asked.kind) {
    case 'stopped':
      return INTERRUPTED;
    case 'task':
      absorbSnapshot(core, asked.task, options.recovered);
      return then;
    case 'transient':
      return options.patient ? then : { type: 'request-failed', error: asked.error };
    case 'lost':
      return options.lostIsEnd ? then : { type: 'fatal', error: asked.error };
    default:
      return { type: 'fatal', error: asked.error };
  }
}

async function pollStep(core: FollowCore, delayMs: number, signal: AbortSignal): Promise<Outcome> {
  const push = core.state.mode === 'push' ? core.push : undefined;
  if (push) {
    // Waiting for the agent's pushes: a push wakes the wait at once; the safety poll catches a lost one.
    if (!(await push.wait(delayMs, signal))) return INTERRUPTED;
  } else if ((delayMs > 0 || core.context.network?.online() === false) && !(await pause(core.context, delayMs, signal))) return INTERRUPTED;
  const before = core.state.moves;
  // v1.1 draft: a long poll, held by the agent until the task moves past the generation the view has.
  const outcome = await look(core, signal, { type: 'polled' }, { recovered: false, currentGeneration: core.view?.generations?.known });
  if (outcome.type === 'polled') core.dispatch({ type: 'polled', moved: core.state.moves !== before, pushDelayMs: push?.nextDelayMs() });
  return outcome;
}

async function inputStep(core: FollowCore, signal: AbortSignal): Promise<Outcome> {
  const r = core.view as Reconciler;
  core.inputWait.update(r.state, false);
  const lookMs = core.inputWait.lookAgainMs(r.state);
  if (lookMs === undefined) {
    // Nothing to do until reply(), a timeout or detach interrupts the wait: no timer at all.
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    return INTERRUPTED;
  }
  if (!(await sleep(core.context.scheduler, lookMs, signal))) return INTERRUPTED;
  return look(core, signal, { type: 'waited' }, { recovered: false, patient: true });
}

/** The agent forgot the finished task: what was delivered is all there is. */
function finalCheckStep(core: FollowCore, signal: AbortSignal): Promise<Outcome> {
  return look(core, signal, { type: 'checked' }, { recovered: true, lostIsEnd: true });
}
