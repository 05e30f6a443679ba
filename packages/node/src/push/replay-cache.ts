/** What {@link ReplayCache.check} found. */
export type ReplayVerdict =
  /** Not seen within its window: {@link ReplayCache.remember} it once the push is taken. */
  | 'new'
  /** Seen before with the same body: a redelivery of the same push. */
  | 'same'
  /** Seen before with another body: a replayed credential. */
  | 'different'
  /** The sender's share holds only live entries and has no room: refusing is the only safe answer. */
  | 'full';

interface Entry {
  readonly expiresAtMs: number;
  readonly bodyDigest: string;
  readonly sender: string;
}

/**
 * Ids (JWT `jti`, `webhook-id`) seen within their freshness window. An entry is kept until its own
 * timestamp + window: after that the timestamp check refuses the push anyway. Each sender (see
 * `senderOf` in push-receiver.ts) holds at most `perSender` live ids, so a flooding sender fills
 * only its own share; when its share is full of live ids its new ids are refused rather than an id
 * evicted, since an evicted id could be replayed.
 */
export class ReplayCache {
  readonly #entries = new Map<string, Entry>();
  readonly #perSender = new Map<string, number>();
  readonly #capacity: number;
  // No entry expires before this: a sweep before then cannot free anything.
  #nextExpiryMs = Number.POSITIVE_INFINITY;

  constructor(perSender: number) {
    this.#capacity = perSender;
  }

  /** How many ids are held, all senders together. */
  get size(): number {
    return this.#entries.size;
  }

  /** When the earliest entry expires (ms), for a `Retry-After` when full. */
  get nextExpiryMs(): number {
    return this.#nextExpiryMs;
  }

  /** Checks `key` for `sender` without remembering it. */
  check(key: string, bodyDigest: string, sender: string, nowMs: number): ReplayVerdict {
    const known = this.#entries.get(key);
    if (known !== undefined && known.expiresAtMs > nowMs) return known.bodyDigest === bodyDigest ? 'same' : 'different';
    if (known !== undefined) this.#delete(key, known);
    if ((this.#perSender.get(sender) ?? 0) >= this.#capacity && !this.#sweep(sender, nowMs)) return 'full';
    return 'new';
  }

  /** Remembers a key {@link check} found new, with the digest of its body. */
  remember(key: string, bodyDigest: string, sender: string, expiresAtMs: number): void {
    this.#entries.set(key, { expiresAtMs, bodyDigest, sender });
    this.#perSender.set(sender, (this.#perSender.get(sender) ?? 0) + 1);
    if (expiresAtMs < this.#nextExpiryMs) this.#nextExpiryMs = expiresAtMs;
  }

  clear(): void {
    this.#entries.clear();
    this.#perSender.clear();
    this.#nextExpiryMs = Number.POSITIVE_INFINITY;
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key);
    const left = (this.#perSender.get(entry.sender) ?? 1) - 1;
    if (left > 0) this.#perSender.set(entry.sender, left);
    else this.#perSender.delete(entry.sender);
  }

  /** Drops expired entries; whether `sender` then has room. */
  #sweep(sender: string, nowMs: number): boolean {
    if (nowMs < this.#nextExpiryMs) return false;
    let next = Number.POSITIVE_INFINITY;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAtMs <= nowMs) this.#delete(key, entry);
      else if (entry.expiresAtMs < next) next = entry.expiresAtMs;
    }
    this.#nextExpiryMs = next;
    return (this.#perSender.get(sender) ?? 0) < this.#capacity;
  }
}
