/** Which requests a fault rule (or chaos) applies to. Every given field must match. */
export interface FaultMatch {
  /** HTTP method, compared case-insensitively. */
  method?: string | undefined;
  /** The request path without the query: a string must be equal, a RegExp must match. */
  path?: string | RegExp | undefined;
  /**
   * The JSON-RPC `method` of the request body, e.g. `/SubscribeToTask|tasks\/resubscribe/`. A request
   * without one (REST, card fetches) never matches a rule that sets this.
   */
  rpcMethod?: string | RegExp | undefined;
  /**
   * Only responses that turn out to be (`true`) or not to be (`false`) `text/event-stream`. Judged on
   * the agent's response, so rules that act before forwarding cannot use it.
   */
  sse?: boolean | undefined;
}

/** What is known about a request before it is forwarded. */
export interface RequestFacts {
  method: string;
  path: string;
  rpcMethod: string | undefined;
}

function matchesText(expected: string | RegExp, actual: string): boolean {
  // search() ignores lastIndex, so a /g or /y RegExp behaves the same on every request.
  return typeof expected === 'string' ? expected === actual : actual.search(expected) !== -1;
}

/** The request-side fields of `match` (everything but `sse`). */
export function matchesRequest(match: FaultMatch | undefined, request: RequestFacts): boolean {
  if (match === undefined) return true;
  if (match.method !== undefined && match.method.toUpperCase() !== request.method.toUpperCase()) return false;
  if (match.path !== undefined && !matchesText(match.path, request.path)) return false;
  if (match.rpcMethod !== undefined) {
    if (request.rpcMethod === undefined || !matchesText(match.rpcMethod, request.rpcMethod)) return false;
  }
  return true;
}

/**
 * The `sse` field of `match`, once the response's content type is known. Faults counted in events
 * (stalls, cuts after n events) apply to SSE responses only unless `sse` says otherwise: on a JSON
 * answer they would forward the whole body and then leave the keep-alive socket dead, a fault no
 * real network produces.
 */
export function matchesResponse(match: FaultMatch | undefined, sse: boolean, countsEvents = false): boolean {
  if (match?.sse === undefined) return sse || !countsEvents;
  return match.sse === sse;
}

/** Stalls and cuts after n events count SSE events: they wait for the response's content type. */
export function countsEvents(rule: { kind: string; afterBytes?: number | undefined }): boolean {
  return rule.kind === 'stall' || (rule.kind === 'cut' && rule.afterBytes === undefined);
}
