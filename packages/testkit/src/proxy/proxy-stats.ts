/** Counters over the proxy's lifetime. {@link FaultProxy.stats} returns a fresh copy on each read. */
export interface FaultProxyStats {
  /** Requests received. */
  requests: number;
  /** Requests sent on to the agent. */
  forwarded: number;
  /** Responses cut, by mode. */
  cuts: { reset: number; end: number };
  stalls: number;
  /** Status answers injected (by rules or chaos). */
  injectedStatus: number;
  /** Responses dripped. */
  dripped: number;
  delayedHeaders: number;
  lostAnswers: number;
  droppedRequests: number;
  /** Response body bytes sent to clients. */
  bytesForwarded: number;
  /** The seed of the PRNG behind every random choice; pass it back to reproduce a run. */
  seed: number;
}

/** One request through the proxy. Updated in place while its response is still flowing. */
export interface FaultProxyLogEntry {
  /** 1, 2, 3 … in arrival order. */
  id: number;
  method: string;
  /** The request path without the query. */
  path: string;
  /** The JSON-RPC `method` of the request body, when it had one. */
  rpcMethod?: string | undefined;
  /** The value of the proxy's `tagHeader` on this request, when it had one (see `FaultProxyOptions.tagHeader`). */
  tag?: string | undefined;
  /** The status the client got; absent when it got none (dropped, lost, reset before headers). */
  status?: number | undefined;
  /** What was applied, e.g. `cut(reset, afterEvents=2, within=boundary)`; chaos faults start `chaos: `. */
  fault?: string | undefined;
  /** The agent answered with `text/event-stream`. */
  sse: boolean;
  /** Complete SSE events sent to the client. */
  eventsForwarded: number;
  /** Response body bytes sent to the client. */
  bytesForwarded: number;
  /** Body writes to the client socket (one per upstream chunk, or per drip slice). */
  writes: number;
  /** `Date.now()` when the request arrived. */
  at: number;
}

export function emptyStats(seed: number): FaultProxyStats {
  return {
    requests: 0,
    forwarded: 0,
    cuts: { reset: 0, end: 0 },
    stalls: 0,
    injectedStatus: 0,
    dripped: 0,
    delayedHeaders: 0,
    lostAnswers: 0,
    droppedRequests: 0,
    bytesForwarded: 0,
    seed,
  };
}
