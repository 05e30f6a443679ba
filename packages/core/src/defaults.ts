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
  /** Largest agent card (bytes). */
  maxCardBytes: 1024 * 1024,
  /** How long a card is reused when the agent sent no caching headers (ms). */
  cardTtlMs: 5 * 60_000,
  /** The task engine (`client.start()`, `client.resume()`): see {@link RESILIENCE_DEFAULTS}. */
  resilience: RESILIENCE_DEFAULTS,
} as const;

export type { ResilienceOptions };
