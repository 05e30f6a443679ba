// One gRPC call's time limit and its caller's signal, as one signal that says which of the two ended it.
// The limit is a timer (monotonic: a wall clock stepped back or forth does not move it), not a grpc-js
// `deadline`, which is a wall-clock date.

/** A call's `timeoutMs` and the caller's signal together; `dispose()` removes the timer and the listener. */
export class CallDeadline {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The limit passed (and not the caller's abort before it). */
  timedOut = false;

  constructor(
    private readonly caller: AbortSignal | undefined,
    readonly timeoutMs: number,
  ) {
    if (caller?.aborted) this.controller.abort();
    else caller?.addEventListener('abort', this.onAbort, { once: true });
    if (!this.controller.signal.aborted && timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.controller.abort();
      }, timeoutMs);
    }
  }

  private readonly onAbort = (): void => {
    this.stopTimer();
    this.controller.abort();
  };

  /** Aborted by the limit or by the caller. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the limit (a stream opened); the caller's signal still ends the call. */
  stopTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.stopTimer();
    this.caller?.removeEventListener('abort', this.onAbort);
  }
}
