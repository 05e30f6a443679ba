import type { StreamEvent } from '@a2a-tether/core';
import { ACCEPTED, DUPLICATE, refusal, STALE, type Verdict } from './push-answer.js';
import type { ReplayKey } from './push-credential.js';
import type { ReplayCache } from './replay-cache.js';
import type { TaskMailboxes } from './task-mailboxes.js';

/** What admission keeps: the expected tasks' mailboxes and the replay ids, within these bounds. */
export interface AdmitState {
  readonly mailboxes: TaskMailboxes;
  readonly replays: ReplayCache;
  readonly maxPendingPerTask: number;
  readonly replayCacheSize: number;
  readonly retryAfterSec: number;
}

/** An authenticated push for an expected task, as admission sees it. */
export interface AdmittedPush {
  readonly taskId: string;
  readonly event: StreamEvent;
  /** SHA-256 (hex) of the raw body. */
  readonly bodyDigest: string;
  /** Who sent it (push-sender.ts): the unit of the per-task and replay bounds. */
  readonly sender: string;
  readonly replay: ReplayKey | undefined;
}

/**
 * The last stage, synchronous so that two copies of one push racing each other are told apart: a body the
 * task accepted within the window is a repeat (200); a sender with `maxPendingPerTask` pushes waiting for the
 * task is told to come back (429); a JWT or webhook id seen with the same body is a redelivery (200), with
 * another body a replay (401 / 409), and a sender whose ids fill its share is told to come back (429); the
 * rest is merged into the task's notice (202), or is older than what the task holds (200, stale).
 */
export function admitPush(state: AdmitState, push: AdmittedPush, nowMs: number): Verdict {
  const { mailboxes, replays, maxPendingPerTask } = state;
  const { taskId, bodyDigest, sender, replay } = push;
  if (mailboxes.isRepeat(taskId, bodyDigest, nowMs)) return DUPLICATE;
  if (mailboxes.pendingFrom(taskId, sender) >= maxPendingPerTask) {
    return refusal(429, `${maxPendingPerTask} pushes of this sender already pending for task ${taskId}`, { taskId, retryAfterSec: state.retryAfterSec });
  }
  if (replay !== undefined) {
    const verdict = replays.check(replay.key, bodyDigest, sender, nowMs);
    if (verdict === 'same') return DUPLICATE;
    if (verdict === 'different') return refusal(replay.reuse, `${replay.key.split(':')[0]} id already used for another body`, { taskId });
    if (verdict === 'full') {
      const wait = Math.max(1, Math.ceil((replays.nextExpiryMs - nowMs) / 1000));
      return refusal(429, `this sender's replay ids are full (${state.replayCacheSize} live ids)`, { taskId, retryAfterSec: wait });
    }
    replays.remember(replay.key, bodyDigest, sender, replay.expiresAtMs);
  }
  return mailboxes.offer(taskId, push.event, bodyDigest, sender, nowMs) === 'queued' ? ACCEPTED : STALE;
}
