import { TetherError, type TetherErrorOptions } from '../errors/tether-error.js';

/**
 * One AbortController per call that follows the caller's signal and a timeout, and remembers
 * which of the two fired so the error can say TIMEOUT or ABORTED. `dispose()` removes the
 * listener and the timer (no leaks on long-lived caller signals).
 */
export class LinkedSignal {
  readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private cause: 'timeout' | 'caller' | undefined;
  private readonly onCallerAbort = (): void => this.abort('caller', this.callerSignal?.reason);

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ) {
    if (callerSignal?.aborted) {
      this.abort('caller', callerSignal.reason);
      return;
    }
    callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    if (timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      this.timer = setTimeout(() => this.abort('timeout'), timeoutMs);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops the timeout (e.g. once a stream's headers arrived) but keeps following the caller. */
  clearTimeout(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private abort(cause: 'timeout' | 'caller', reason?: unknown): void {
    if (this.cause) return;
    this.cause = cause;
    this.clearTimeout();
    this.controller.abort(reason);
  }

  /** If the signal fired, the matching TetherError (TIMEOUT or ABORTED); else `undefined`. */
  errorFor(context: TetherErrorOptions, timeoutMs: number | undefined, cause?: unknown): TetherError | undefined {
    if (this.cause === 'timeout') {
      return new TetherError('TIMEOUT', `no answer within ${timeoutMs} ms`, { ...context, cause });
    }
    if (this.cause === 'caller') {
      return new TetherError('ABORTED', 'aborted by the caller', {
        ...context,
        cause: this.callerSignal?.reason ?? cause,
      });
    }
    return undefined;
  }

  dispose(): void {
    this.clearTimeout();
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }
}
