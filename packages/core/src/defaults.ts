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
  /** Largest agent card (bytes). */
  maxCardBytes: 1024 * 1024,
  /** How long a card is reused when the agent sent no caching headers (ms). */
  cardTtlMs: 5 * 60_000,
  /** The task engine (`client.start()`, `client.resume()`). */
  resilience: {
    /** First reconnect delay ceiling (ms); the delay is random in [0, ceiling] (full jitter). */
    initialDelayMs: 250,
    /** Largest reconnect delay ceiling (ms). */
    maxDelayMs: 15_000,
    /** Growth of the ceiling per failed attempt. */
    factor: 2,
    /** Failed reconnects in a row (without any event in between) before giving up. */
    maxAttempts: 10,
    /** Time without progress before giving up (ms). The task stays in the store, resumable. */
    maxElapsedMs: 5 * 60_000,
    /**
     * Silence on a live stream after which the agent is asked (GetTask) whether it moved on (ms).
     * Also the longest wait for the first event of the stream a send opens (`start()`, `reply()`):
     * past it the send is treated as one whose answer was lost (looked for, then sent again).
     */
    idleProbeMs: 30_000,
    /** Connections in a row that delivered no event at all before switching to polling. */
    emptyConnectionsBeforePolling: 3,
    /** Polling: interval right after a change (ms). */
    pollMinMs: 500,
    /** Polling: interval ceiling while nothing changes (ms). */
    pollMaxMs: 10_000,
    /** Polling: growth of the interval per unchanged poll. */
    pollFactor: 1.5,
    /** While `auth-required`, how often to look whether the agent resumed on its own (ms; 0 = never). */
    authRequiredPollMs: 10_000,
    /** Events kept for `events()` while no one reads them; beyond, the reader gets a resync of the view. */
    maxBufferedEvents: 2_000,
    /** Check the final result with GetTask: after a gap only (default), or always. */
    finalCheck: 'after-gap' as 'after-gap' | 'always',
    /** Attempts to find a task whose creating send lost its answer, before re-sending (v1.0 ListTasks). */
    lostSendLookups: 3,
  },
} as const;

/** The task engine's settings (see {@link DEFAULTS}.resilience). */
export type ResilienceOptions = {
  -readonly [K in keyof (typeof DEFAULTS)['resilience']]: (typeof DEFAULTS)['resilience'][K] extends number
    ? number
    : (typeof DEFAULTS)['resilience'][K];
};
