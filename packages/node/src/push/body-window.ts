/**
 * The digests of the bodies one task accepted in the last `windowMs`, at most `capacity` of them:
 * the same bytes again inside the window are a repeat. Entries are kept in arrival order, so the
 * expired ones and, past the bound, the oldest ones leave from the front (O(1) per push).
 */
export class BodyWindow {
  /** Digest → when it leaves the window (ms), oldest first. */
  readonly #expiries = new Map<string, number>();
  readonly #capacity: number;
  readonly #windowMs: number;

  constructor(capacity: number, windowMs: number) {
    this.#capacity = capacity;
    this.#windowMs = windowMs;
  }

  get size(): number {
    return this.#expiries.size;
  }

  /** Whether a body with this digest arrived within the window (and is still remembered). */
  has(digest: string, nowMs: number): boolean {
    this.#prune(nowMs);
    const expiresAtMs = this.#expiries.get(digest);
    return expiresAtMs !== undefined && expiresAtMs > nowMs;
  }

  remember(digest: string, nowMs: number): void {
    this.#expiries.delete(digest);
    this.#expiries.set(digest, nowMs + this.#windowMs);
    for (const oldest of this.#expiries.keys()) {
      if (this.#expiries.size <= this.#capacity) break;
      this.#expiries.delete(oldest);
    }
  }

  #prune(nowMs: number): void {
    for (const [digest, expiresAtMs] of this.#expiries) {
      if (expiresAtMs > nowMs) break;
      this.#expiries.delete(digest);
    }
  }
}
