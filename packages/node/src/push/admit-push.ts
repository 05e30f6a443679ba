import type { StreamEvent } from '@a2a-tether/core';
import { ACCEPTED, DUPLICATE, refusal, STALE, type Verdict } from './push-answer.js';
import type { ReplayKey } from './push-credential.js';
import type { PushRegistry, Registration } from './push-registry.js';
import type { ReplayCache } from './replay-cache.js';

/** What admission keeps: the registrations and the replay ids, within these bounds. */
export interface AdmitState {
  readonly registry: PushRegistry;
  readonly replays: ReplayCache;
  readonly maxPendingPerTask: number;
  readonly replayCacheSize: number;
  readonly retryAfterSec: number;
}

/** An authenticated push for a registration, as admission sees it. */
export interface AdmittedPush {
  readonly taskId: string;
  readonly event: StreamEvent;
  /** SHA-256 (hex) of the raw body, and its length. */
  readonly bodyDigest: string;
  readonly bytes: number;
  /** Who sent it (push-sender.ts): the unit of the per-task and replay bounds. */
  readonly sender: string;
  readonly replay: ReplayKey | undefined;
}

/**
 * The last stage, run where the registration is (the replica that follows the task), synchronous so that
 * two copies of one push racing each other are told apart: a body the registration accepted within the
 * window is a repeat (200); a sender with `maxPendingPerTask` pushes waiting is told to come back (429); a
 * JWT or webhook id seen with the same body is a redelivery (200), with another body a replay (401 / 409),
 * and a sender whose ids fill its share is told to come back (429). The rest is held until the agent names
 * the registration's task (202; 429 or 503 past the early bounds), or merged into its notice (202) unless
 * older than what it holds (200, stale).
 */
export function admitPush(state: AdmitState, registration: Registration, push: AdmittedPush, nowMs: number): Verdict {
  const { registry, replays, maxPendingPerTask, retryAfterSec } = state;
  const { taskId, bodyDigest, sender, replay } = push;
  if (registry.isRepeat(registration, bodyDigest, nowMs)) return DUPLICATE;
  if (registry.pendingFrom(registration, sender) >= maxPendingPerTask) {
    return refusal(429, `${maxPendingPerTask} pushes of this sender already pending for task ${taskId}`, { taskId, retryAfterSec });
  }
  if (replay !== undefined) {
    const verdict = replays.check(replay.key, bodyDigest, sender, nowMs);
    if (verdict === 'same') return DUPLICATE;
    if (verdict === 'different') return refusal(replay.reuse, `${replay.key.split(':')[0]} id already used for another body`, { taskId });
    if (verdict === 'full') {
      const wait = Math.max(1, Math.ceil((replays.nextExpiryMs - nowMs) / 1000));
      return refusal(429, `this sender's replay ids are full (${state.replayCacheSize} live ids)`, { taskId, retryAfterSec: wait });
    }
  }
  let result: Verdict = ACCEPTED;
  if (registration.taskId === undefined) {
    const held = registry.hold(registration, { taskId, event: push.event, sender, bytes: push.bytes }, bodyDigest, nowMs);
    if (held === 'count') return refusal(429, `the pushes held for a task not named yet are at their bound`, { taskId, retryAfterSec });
    if (held === 'bytes') return refusal(503, `the pushes held for tasks not named yet fill their bytes`, { taskId, retryAfterSec });
  } else if (registry.offer(registration, push.event, bodyDigest, sender, nowMs) === 'stale') result = STALE;
  if (replay !== undefined) replays.remember(replay.key, bodyDigest, sender, replay.expiresAtMs);
  return result;
}
