/**
 * The defaults of {@link createPushReceiver}, in one record. Override any of them in its options.
 */
export const PUSH_RECEIVER_DEFAULTS = {
  /** Largest push body (bytes); a larger one is answered 413 and not read further. 256 KiB. */
  maxBodyBytes: 256 * 1024,
  /**
   * How long (ms) a body may take to arrive once its headers are in; a slower one is answered 408 and
   * its connection closed, so a stalled sender holds nothing past it. 10 s.
   */
  bodyTimeoutMs: 10_000,
  /**
   * Bytes that bodies whose credentials can be checked only on the body (an HMAC signature with no
   * token that opens an expected task) may hold together while they are read. Each reserves its
   * declared length (at least 16 KiB, at most `maxBodyBytes`; undeclared: `maxBodyBytes`); one that
   * does not fit is answered 503 with `Retry-After` at once, unread. 4 MiB.
   */
  maxUnverifiedBytes: 4 * 1024 * 1024,
  /**
   * How far (seconds) a JWT `iat` or a `webhook-timestamp` may be from the receiver's clock, either
   * way; also how long a task remembers the bodies it accepted (a byte-identical body within it is a
   * repeat).
   */
  windowSec: 300,
  /**
   * Accepted pushes for one task from one sender not yet taken by the task's listener; beyond this,
   * that sender's pushes for that task are answered 429 with `Retry-After` — and nobody else's.
   */
  maxPendingPerTask: 100,
  /**
   * Pushes held for one registration whose task the agent has not named yet (they are delivered once it is,
   * if they name it; agents push as they create a task, before the answer to the send names it). Beyond
   * this, 429 with `Retry-After`. Held at most `windowSec`.
   */
  maxEarlyPushes: 16,
  /** Bytes of those held pushes, all registrations together; beyond this, 503 with `Retry-After`. 4 MiB. */
  maxEarlyBytes: 4 * 1024 * 1024,
  /**
   * Bodies remembered per task (for `windowSec`) to answer a repeat 200; past this the oldest is
   * forgotten, so a repeat is recognised only among the last this many bodies of its task.
   */
  maxRememberedBodies: 256,
  /**
   * JWT ids and webhook ids remembered against replays, per sender (each until its timestamp +
   * window); when a sender's share is full of live ids its new ones are answered 429.
   */
  replayCacheSize: 10_000,
  /** The `Retry-After` (seconds) sent with a 429 or a 503 for a full budget. */
  retryAfterSec: 1,
  /** JWT algorithms accepted when `jwt.algorithms` is not given (asymmetric only). */
  jwtAlgorithms: ['RS256', 'ES256', 'EdDSA'] as readonly string[],
} as const;
