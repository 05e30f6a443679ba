/**
 * What a read whose credentials are not verifiable yet is charged at least: about what one
 * connection's buffers hold before anything reads them, so that a budget also bounds how many such
 * connections are open, whatever length they declare.
 */
const MIN_RESERVATION = 16 * 1024;

/**
 * The bytes held by bodies being read whose credentials can be checked only on those bytes (an HMAC
 * signature). Anyone who can reach the port can send such bodies, so together they get a fixed
 * budget: a read reserves its share before it starts and a read that does not fit is refused at once.
 */
export class UnverifiedBudget {
  readonly #limit: number;
  readonly #maxBodyBytes: number;
  #reserved = 0;

  constructor(limit: number, maxBodyBytes: number) {
    this.#limit = limit;
    this.#maxBodyBytes = maxBodyBytes;
  }

  /** Bytes reserved by the reads in flight. */
  get reserved(): number {
    return this.#reserved;
  }

  /**
   * Reserves room for a body that declared `declared` bytes (NaN: undeclared, so the largest allowed):
   * the bytes reserved, which are also the most the read may take, or 0 when they do not fit. One
   * read always fits when nothing else is reserved, so a budget below one body still lets pushes in.
   */
  reserve(declared: number): number {
    const wanted = Number.isInteger(declared) && declared >= 0 ? declared : this.#maxBodyBytes;
    const bytes = Math.min(this.#maxBodyBytes, Math.max(MIN_RESERVATION, wanted));
    if (this.#reserved > 0 && this.#reserved + bytes > this.#limit) return 0;
    this.#reserved += bytes;
    return bytes;
  }

  release(bytes: number): void {
    this.#reserved -= bytes;
  }
}
