import { RESILIENCE_DEFAULTS, type ResilienceOptions } from './task/resilience.js';

/**
 * Every default Tether uses, in one place. Override per client in `connect()` options
 * (`resilience` for the task engine's knobs).
 */
export const DEFAULTS = {
  /** Time limit of a unary call, and of a stream until its response headers arrive (ms). */
  timeoutMs: 30_000,
  /** Largest single SSE event, in characters of decoded text (~bytes for ASCII JSON). */
  maxEventSize: 8 * 1024 * 1024,
  /** Largest unary response body (bytes). */
  maxResponseBytes: 32 * 1024 * 1024,
  /**
   * Deepest nesting of objects and arrays decoded from an agent (a task, message, event or task page, counted
   * from its top object: a data part inside an artifact has 95 levels of its own). Deeper is refused
   * (`INVALID_RESPONSE`, `MALFORMED_EVENT` in a stream), naming the limit and where: what is decoded can be
   * cloned, stringified and validated without exhausting the stack. Fixed, not an option.
   */
  maxDepth: 100,
  /** Largest agent card (bytes). */
  maxCardBytes: 1024 * 1024,
  /** How long a card is reused when the agent sent no caching headers (ms). */
  cardTtlMs: 5 * 60_000,
  /**
   * Retries of the client's idempotent unary calls — the card fetch in `connect()`, `getTask`,
   * `listTasks`, `getPushConfig`, `listPushConfigs`, `deletePushConfig` — after a transient failure
   * (network, timeout, 408/425/429/5xx; never an agent's A2A error). Set per client in `connect()`
   * and per call (`{ maxRetries: 0 }`). Sends, streams, `cancelTask` and `createPushConfig` are
   * never retried by the client; the task engine has its own budget.
   */
  maxRetries: 2,
  /**
   * Waits between those retries (ms), by p-retry: `min` doubling per retry, randomized up to twice
   * that, at most `max`. A `Retry-After` answer is waited out first.
   */
  retryDelayMs: { min: 300, max: 8_000 },
  /** A `Retry-After` longer than this (ms) is not waited for: the call fails with the error and its `retryAfterMs`. */
  maxRetryAfterMs: 60_000,
  /**
   * How long the record of a finished task stays in the store (ms): 7 days. `client.tasks()` shows it
   * until then; past it, `tasks()` and `resumeAll()` delete it. Set per client with `connect(url, { retentionMs })`.
   */
  retentionMs: 7 * 24 * 60 * 60_000,
  /**
   * Lease time to live of a store that leases tasks (ms), when the store is given none (the Redis
   * store's `leaseMs`): a process that dies gives its tasks up to another after at most this long.
   * The engine renews every quarter of it, and stops driving a task when no renewal was confirmed
   * within two thirds of it.
   */
  leaseMs: 30_000,
  /** How long `cancel()` watches for the task to end after its request, unless `waitMs` says (ms). */
  cancelWaitMs: 5_000,
  /** Push delivery: GetTask this often anyway while waiting for pushes, unless `push.safetyPollMs` says (ms). */
  pushSafetyPollMs: 60_000,
  /** With the platform's network signals (browsers): after a wake, the longest random delay before the next attempt, and how often to look whether an offline network is back in case a wake was missed (ms). */
  network: { wakeJitterMs: 1_000, offlineLookMs: 5_000 },
  /**
   * Tabs (a coordinator): how often a mirror asks the driver for a snapshot until one comes; how long a
   * mirror granted the claim of a task its driver just ended waits for the driver's "finished"; how long
   * a mirror's reply sent by the driver waits for the driver's answer (ms).
   */
  tabs: { mirrorSyncMs: 1_000, lateEndMs: 2_000, relayTimeoutMs: 60_000 },
  /** The task engine (`client.start()`, `client.resume()`): see {@link RESILIENCE_DEFAULTS}. */
  resilience: RESILIENCE_DEFAULTS,
} as const;

export type { ResilienceOptions };
