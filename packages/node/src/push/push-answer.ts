/** A push refused: the HTTP status and why (never the credentials presented). */
export interface Refusal {
  readonly kind: 'refused';
  readonly status: number;
  readonly reason: string;
  /** The task the push was for, when the body was read and named one. */
  readonly taskId?: string | undefined;
  /** Sent as `Retry-After` (a 429, or a 503 the sender may retry). */
  readonly retryAfterSec?: number | undefined;
}

/** A push taken: 202 queued (or held), 200 nothing new (the same body or id again, an older state). */
export interface Accepted {
  readonly kind: 'accepted';
  readonly status: 200 | 202;
  readonly outcome: 'accepted' | 'duplicate' | 'stale';
}

/** What a stage or the admission decided about a push: what the sender is answered. */
export type Verdict = Accepted | Refusal;

/** The answer, whatever the server. `consumed`: the body was read to its end. */
export interface PushAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly consumed: boolean;
}

export function refusal(status: number, reason: string, extra: { taskId?: string | undefined; retryAfterSec?: number | undefined } = {}): Refusal {
  return { kind: 'refused', status, reason, ...extra };
}

export const ACCEPTED: Accepted = { kind: 'accepted', status: 202, outcome: 'accepted' };
export const DUPLICATE: Accepted = { kind: 'accepted', status: 200, outcome: 'duplicate' };
export const STALE: Accepted = { kind: 'accepted', status: 200, outcome: 'stale' };

/** Whether a stage's result is a refusal (the push goes no further). */
export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'refused';
}

/** The HTTP answer for a verdict. */
export function answerOf(verdict: Verdict, consumed: boolean): PushAnswer {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (verdict.kind === 'accepted') return { status: verdict.status, headers, body: JSON.stringify({ status: verdict.outcome }), consumed };
  if (verdict.retryAfterSec !== undefined) headers['retry-after'] = String(verdict.retryAfterSec);
  if (verdict.status === 405) headers['allow'] = 'POST';
  return { status: verdict.status, headers, body: JSON.stringify({ error: verdict.reason }), consumed };
}
