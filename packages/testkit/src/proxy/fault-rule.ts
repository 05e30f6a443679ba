import type { CutWithin } from './cut-point.js';
import type { FaultMatch } from './fault-match.js';

/** Fields every fault rule may carry. */
export interface FaultRuleCommon {
  /** Which requests it applies to; all requests when absent. */
  match?: FaultMatch | undefined;
  /** How many requests it applies to before it is used up: default 1, `Infinity` allowed. */
  times?: number | undefined;
  /**
   * Apply to a matching request only with this probability (0–1), drawn from the proxy's seeded PRNG
   * (the request's own one when it is tagged, see `FaultProxyOptions.tagHeader`).
   */
  probability?: number | undefined;
}

/**
 * Pass `afterEvents` SSE events (default 0) or `afterBytes` body bytes through, then cut. The upstream
 * request is aborted too, so the agent sees its client disconnect. When the response ends sooner, the
 * cut happens at its end instead.
 */
export interface CutFault extends FaultRuleCommon {
  kind: 'cut';
  afterEvents?: number | undefined;
  afterBytes?: number | undefined;
  /**
   * `'reset'`: a TCP reset of the client connection, like a load balancer dropping it. `'end'`: a clean
   * end of the response, which looks like success to a client that does not check how the stream ended.
   */
  mode: 'reset' | 'end';
  /**
   * With `afterEvents`: `'boundary'` (default) cuts right after an event; `'event'` inside the next event;
   * `'utf8'` inside a multi-byte UTF-8 character of the next event (inside the event if it has none).
   */
  within?: CutWithin | undefined;
}

/** Answer with `status` instead of the agent's response. Use `times` for a burst. */
export interface StatusFault extends FaultRuleCommon {
  kind: 'status';
  status: number;
  /** Sent as the `Retry-After` header (seconds, or an HTTP date as a string). */
  retryAfter?: number | string | undefined;
  /** Default: a small HTML error page, as gateways send. */
  body?: string | undefined;
  /** Default `text/html; charset=utf-8`. */
  contentType?: string | undefined;
  /**
   * `true`: forward the request and let the agent answer in full, then send the status instead (the
   * agent did the work, the client sees a failure). Default `false`: the agent never sees the request.
   */
  forward?: boolean | undefined;
}

/**
 * Forward the headers and `afterEvents` events (default 0), then nothing more while keeping the client
 * connection open: a half-open connection. The agent's response is still read (and dropped). Ends only
 * when the client goes away or the proxy closes.
 */
export interface StallFault extends FaultRuleCommon {
  kind: 'stall';
  afterEvents?: number | undefined;
}

/** Pass the response body through in writes of at most `bytesPerWrite`, `intervalMs` apart. */
export interface DripFault extends FaultRuleCommon {
  kind: 'drip';
  bytesPerWrite: number;
  intervalMs: number;
}

/** Wait `ms` before forwarding the response headers. */
export interface DelayHeadersFault extends FaultRuleCommon {
  kind: 'delayHeaders';
  ms: number;
}

/**
 * Forward the request and let the agent answer in full, then reset the client connection before any of
 * the answer was sent: the agent acted on the request, the client never learns it.
 */
export interface LoseAnswerFault extends FaultRuleCommon {
  kind: 'loseAnswer';
}

/** Reset the client connection without forwarding: the agent never sees the request. */
export interface DropRequestFault extends FaultRuleCommon {
  kind: 'dropRequest';
}

/** One fault the proxy can inject. See {@link FaultProxy.addFault}. */
export type FaultRule =
  | CutFault
  | StatusFault
  | StallFault
  | DripFault
  | DelayHeadersFault
  | LoseAnswerFault
  | DropRequestFault;

/** True for faults applied instead of forwarding, before any response exists. */
export function actsBeforeForwarding(rule: FaultRule): boolean {
  return rule.kind === 'dropRequest' || (rule.kind === 'status' && rule.forward !== true);
}

function count(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}

/** Throw on rules that could never act as written, so a typo fails the test that made it. */
export function validateFaultRule(rule: FaultRule): void {
  const times = rule.times ?? 1;
  if (!(times === Infinity || (Number.isInteger(times) && times >= 1))) {
    throw new RangeError(`times must be a positive integer or Infinity, got ${times}`);
  }
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
    throw new RangeError(`probability must be within 0–1, got ${rule.probability}`);
  }
  if (rule.match?.sse !== undefined && actsBeforeForwarding(rule)) {
    throw new TypeError(`A ${rule.kind} rule acts before the response exists, so it cannot match on sse`);
  }
  switch (rule.kind) {
    case 'cut':
      count('afterEvents', rule.afterEvents);
      count('afterBytes', rule.afterBytes);
      if (rule.afterBytes !== undefined && (rule.afterEvents !== undefined || rule.within !== undefined)) {
        throw new TypeError('A cut takes afterBytes, or afterEvents with an optional within, not both');
      }
      if (rule.mode !== 'reset' && rule.mode !== 'end') throw new TypeError(`Unknown cut mode ${String(rule.mode)}`);
      return;
    case 'status':
      if (!(Number.isInteger(rule.status) && rule.status >= 200 && rule.status <= 599)) {
        throw new RangeError(`status must be an HTTP status code 200–599, got ${rule.status}`);
      }
      return;
    case 'stall':
      count('afterEvents', rule.afterEvents);
      return;
    case 'drip':
      if (!(Number.isInteger(rule.bytesPerWrite) && rule.bytesPerWrite >= 1)) {
        throw new RangeError(`bytesPerWrite must be a positive integer, got ${rule.bytesPerWrite}`);
      }
      count('intervalMs', rule.intervalMs);
      return;
    case 'delayHeaders':
      count('ms', rule.ms);
      return;
    case 'loseAnswer':
    case 'dropRequest':
      return;
    default:
      throw new TypeError(`Unknown fault kind ${String((rule as { kind: unknown }).kind)}`);
  }
}

/** A short, stable description for the proxy log, e.g. `cut(reset, afterEvents=2, within=event)`. */
export function describeFault(rule: FaultRule): string {
  switch (rule.kind) {
    case 'cut':
      return rule.afterBytes !== undefined
        ? `cut(${rule.mode}, afterBytes=${rule.afterBytes})`
        : `cut(${rule.mode}, afterEvents=${rule.afterEvents ?? 0}, within=${rule.within ?? 'boundary'})`;
    case 'status': {
      const extras = [rule.retryAfter === undefined ? '' : `, retryAfter=${rule.retryAfter}`, rule.forward === true ? ', forward' : ''];
      return `status(${rule.status}${extras.join('')})`;
    }
    case 'stall':
      return `stall(afterEvents=${rule.afterEvents ?? 0})`;
    case 'drip':
      return `drip(bytesPerWrite=${rule.bytesPerWrite}, intervalMs=${rule.intervalMs})`;
    case 'delayHeaders':
      return `delayHeaders(ms=${rule.ms})`;
    case 'loseAnswer':
    case 'dropRequest':
      return rule.kind;
  }
}
