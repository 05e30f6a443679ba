/**
 * A W3C trace context (https://www.w3.org/TR/trace-context/) to continue: the caller's span, whose
 * children the requests of a call become. Pass it as `traceContext` to a call, to `start()` or to
 * `resume()`; `@a2a-tether/otel` passes the active OpenTelemetry span's instead.
 */
export interface TraceContext {
  /** `00-<32 hex trace id>-<16 hex parent span id>-<2 hex flags>`. A value that does not parse starts a new trace. */
  readonly traceparent?: string | undefined;
  /** Vendor data of the trace, sent on unchanged. */
  readonly tracestate?: string | undefined;
}

/** The trace context a request continues; `sent` is told the `traceparent` it went out with. */
export interface RequestTrace extends TraceContext {
  sent?(traceparent: string): void;
  /** Which retry the request is: of a call the client repeats, or a follow's reconnect (1: the first retry). */
  readonly attempt?: number | undefined;
}

/** The parts of a `traceparent`. */
export interface TraceIds {
  traceId: string;
  spanId: string;
  /** `01`: the caller recorded (sampled) its span. */
  flags: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The ids of a version-00 `traceparent`, or `undefined` when it is not one (all-zero ids are invalid). */
export function parseTraceparent(value: string | undefined): TraceIds | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value.trim());
  if (!match || match[1] === ZERO_TRACE || match[2] === ZERO_SPAN) return undefined;
  return { traceId: match[1] as string, spanId: match[2] as string, flags: match[3] as string };
}

/** `bytes` random bytes as lower-case hex (Web Crypto, present in every runtime Tether supports). */
function randomHex(bytes: number): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  let out = '';
  for (const value of values) out += (value < 16 ? '0' : '') + value.toString(16);
  return out;
}

/**
 * The `traceparent` of a new request span: a child of `parent` (same trace and flags), or the root of
 * a new trace, not sampled (`00`: Tether records nothing itself; a tracer plugin sets its own).
 */
export function childTraceparent(parent: string | undefined): string {
  const ids = parseTraceparent(parent);
  return `00-${ids?.traceId ?? randomHex(16)}-${randomHex(8)}-${ids?.flags ?? '00'}`;
}
