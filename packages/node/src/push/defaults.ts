/**
 * The defaults of {@link createPushReceiver}, in one record. Override any of them in its options.
 */
export const PUSH_RECEIVER_DEFAULTS = {
  /** Largest push body (bytes); a larger one is answered 413 and not read further. 256 KiB. */
  maxBodyBytes: 256 * 1024,
  /** How far (seconds) a JWT `iat` or a `webhook-timestamp` may be from the receiver's clock, either way. */
  windowSec: 300,
  /** Accepted pushes not yet taken by a subscriber; beyond this, pushes are answered 429 with `Retry-After`. */
  maxQueue: 1000,
  /** JWT ids and webhook ids remembered against replays (each until its timestamp + window). */
  replayCacheSize: 10_000,
  /** The `Retry-After` (seconds) sent with a 429. */
  retryAfterSec: 1,
  /** JWT algorithms accepted when `jwt.algorithms` is not given (asymmetric only). */
  jwtAlgorithms: ['RS256', 'ES256', 'EdDSA'] as readonly string[],
  /** Identical bodies remembered per task, to deliver a repeated push once. */
  recentBodiesPerTask: 16,
} as const;
