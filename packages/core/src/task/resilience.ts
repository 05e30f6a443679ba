/**
 * The task engine's settings and their defaults (`connect(url, { resilience })` overrides any of
 * them). Every loop of the engine is bounded by these: a reconnect or poll loop ends with the
 * agent's final state or a typed error, and outside a live stream a followed task makes at most
 * `maxRequestsPerWindow` requests per `requestWindowMs` (2 per second with the defaults).
 */
export const RESILIENCE_DEFAULTS = {
  /** First reconnect delay ceiling (ms); each delay is random in [0, ceiling] (full jitter). */
  initialDelayMs: 50,
  /** Largest reconnect delay ceiling (ms). */
  maxDelayMs: 15_000,
  /** Growth of the ceiling per failed attempt. */
  factor: 2,
  /** Failed attempts in a row (no progress, no healthy answer in between) before giving up with `RETRY_EXHAUSTED`. */
  maxAttempts: 12,
  /** Time from the first failure of a streak before giving up with `RETRY_EXHAUSTED` (ms). */
  maxElapsedMs: 5 * 60_000,
  /**
   * Time without progress while no live stream is open (polling, or reconnecting) before giving up
   * with `RETRY_EXHAUSTED` (ms; `Infinity` = never). A live stream may stay silent as long as the agent
   * answers the idle probe; a task waiting for input is not counted.
   */
  maxQuietMs: 30 * 60_000,
  /**
   * Silence on a live stream after which the agent is asked (GetTask) whether it moved on (ms).
   * Also the longest wait for the first event of the stream a send opens (`start()`, `reply()`).
   */
  idleProbeMs: 30_000,
  /**
   * A subscription to an agent whose subscriptions start with a Task snapshot (v1.0 promises it) that
   * has sent nothing this long after it was asked for is suspect: the agent is asked (GetTask) whether
   * the task moved — if it did, the engine reconnects; if not, the stream is kept (ms; 0 = only the
   * idle probe).
   */
  firstEventProbeMs: 500,
  /**
   * After a stream's terminal status, how long it is read on for content the agent sends after it (an
   * artifact after `final: true`) before the follow ends without waiting for the body to end (ms).
   */
  terminalDrainMs: 1_000,
  /** Streams in a row that ended or broke without progress before switching to polling. */
  emptyConnectionsBeforePolling: 3,
  /** While polling an agent that can stream: first wait before trying to stream again (ms); doubles per failed try. */
  streamRetryMs: 5_000,
  /** While polling: the longest wait between tries to stream again (ms). */
  maxStreamRetryMs: 5 * 60_000,
  /** Polling: interval right after a change (ms). */
  pollMinMs: 1_000,
  /** Polling: interval ceiling while nothing changes (ms). */
  pollMaxMs: 10_000,
  /** Polling: growth of the interval per unchanged poll. */
  pollFactor: 1.5,
  /** While `auth-required`, how often to look whether the agent resumed on its own (ms; 0 = never). */
  authRequiredPollMs: 10_000,
  /**
   * Events kept for `events()` while no one reads them; beyond, the reader gets a resync of the view (the
   * status and whole artifacts, as `recovered` events) and the agent's messages. Enough for the events
   * between `start()` and a first read; small, because a handle that is never read (an app that awaits
   * only `done()`) keeps them for the whole task: 50 events are ~25 KB.
   */
  maxBufferedEvents: 50,
  /** Check the final result with GetTask: after a gap only (default), or always. */
  finalCheck: 'after-gap' as 'after-gap' | 'always',
  /**
   * How long to look for a send whose answer was lost — ListTasks on v1.0, the task's history for a
   * reply — before giving up with `DELIVERY_UNKNOWN` (ms). An agent may store the task seconds after it
   * took the message, so a short "not found" proves nothing. Looks are paced (250 ms apart at first,
   * doubling up to 2 s) under the request-rate ceiling; 0 looks once.
   */
  lostSendLookupMs: 30_000,
  /** Times a message is sent in all (the first send included) while its sends surely never reach the agent. */
  maxSendAttempts: 4,
  /**
   * A send whose answer was lost and that nothing showed arrived — the lookup found no trace within
   * `lostSendLookupMs`, or (v0.3, a creating send) there is no way to look: `false` (default) fails with
   * `DELIVERY_UNKNOWN`; `true` sends it again with the same message id — only for agents known to
   * deduplicate by message id. Every send again is reported to `onResend`.
   */
  resendUnknownDeliveries: false as boolean,
  /**
   * The request-rate ceiling outside a live stream: at most this many requests … (paced: two at once,
   * then one every `requestWindowMs / (maxRequestsPerWindow - 2)`, so no request waits longer for it).
   */
  maxRequestsPerWindow: 20,
  /** … in any window of this length (ms). */
  requestWindowMs: 10_000,
} as const;

/** The task engine's settings (see {@link RESILIENCE_DEFAULTS}). */
export type ResilienceOptions = {
  -readonly [K in keyof typeof RESILIENCE_DEFAULTS]: (typeof RESILIENCE_DEFAULTS)[K] extends number
    ? number
    : (typeof RESILIENCE_DEFAULTS)[K];
};
