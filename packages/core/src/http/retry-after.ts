/**
 * The longest wait {@link parseRetryAfter} returns (ms): 2³¹ − 1, about 24.8 days, the longest a
 * timer can wait (`setTimeout` fires at once past it). A longer `Retry-After` is clamped to it, so
 * every budget that compares the wait with its own limit still sees "too long".
 */
export const MAX_RETRY_AFTER_MS = 2 ** 31 - 1;

/**
 * Parses `Retry-After` (delta-seconds or an HTTP-date) into milliseconds from `now`.
 * Returns `undefined` when absent or unparsable; negative waits become 0, and waits longer than
 * 2³¹ − 1 ms (about 24.8 days, the longest a timer can wait) become that: the result is always finite.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (typeof value !== 'string') return undefined;
  if (typeof now !== 'number') now = Date.now();
  const trimmed = value.trim();
  const ms = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
