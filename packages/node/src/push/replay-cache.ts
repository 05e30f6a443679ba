/** What {@link ReplayCache.admit} found. */
export type ReplayVerdict =
  /** First time: remembered now. */
  | 'new'
  /** Seen before with the same body: a redelivery of the same push. */
  | 'same'
  /** Seen before with another body: a replayed credential. */
  | 'different'
  /** The cache holds only live entries and has no room: refusing is the only safe answer. */
  | 'full';

interface Entry {
  readonly expiresAtMs: number;
  readonly bodyDigest: string;
}

/**
 * Ids (JWT `jti`, `webhook-id`) seen within their freshness window, bounded in size. An entry is
 * kept until its own timestamp + window: after that the timestamp check refuses the push anyway.
 * When full of live entries it refuses new ids instead of evicting one, since an evicted id could
 * be replayed.
 */
export class ReplayCache {
  readonly #entries = new Map<string, Entry>();
  readonly #capacity: number;
  // No entry expires before this: a sweep before then cannot free anything.
  #nextExpiryMs = Number.POSITIVE_INFINITY;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** How many ids are held. */
  get size(): number {
    return this.#entries.size;
  }

  /** Checks `key` and remembers it (with the digest of its body) when new. */
  admit(key: string, bodyDigest: string, expiresAtMs: number, nowMs: number): ReplayVerdict {
    const known = this.#entries.get(key);
    if (known !== undefined && known.expiresAtMs > nowMs) return known.bodyDigest === bodyDigest ? 'same' : 'different';
    if (known !== undefined) this.#entries.delete(key);
    if (this.#entries.size >= this.#capacity && !this.#sweep(nowMs)) return 'full';
    this.#entries.set(key, { expiresAtMs, bodyDigest });
    if (expiresAtMs < this.#nextExpiryMs) this.#nextExpiryMs = expiresAtMs;
    return 'new';
  }

  /** When the earliest entry expires (ms), for a `Retry-After` when full. */
  get nextExpiryMs(): number {
    return this.#nextExpiryMs;
  }

  /** Drops expired entries; `false` when nothing could be dropped. */
  #sweep(nowMs: number): boolean {
    if (nowMs < this.#nextExpiryMs) return false;
    let next = Number.POSITIVE_INFINITY;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAtMs <= nowMs) this.#entries.delete(key);
      else if (entry.expiresAtMs < next) next = entry.expiresAtMs;
    }
    this.#nextExpiryMs = next;
    return this.#entries.size < this.#capacity;
  }

  clear(): void {
    this.#entries.clear();
    this.#nextExpiryMs = Number.POSITIVE_INFINITY;
  }
}
