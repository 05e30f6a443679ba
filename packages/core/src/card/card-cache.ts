/** A cached card answer, with what HTTP caching needs to revalidate it. */
export interface CardCacheEntry {
  /** The card JSON exactly as received. */
  body: unknown;
  /** Where the card was found (after fallbacks). */
  url: string;
  etag?: string | undefined;
  lastModified?: string | undefined;
  /** Until when (epoch ms) the entry may be used without asking the agent. */
  freshUntil: number;
}

/** Where resolved cards are kept between `connect()` calls (memory by default; durable stores later). */
export interface CardCache {
  get(key: string): CardCacheEntry | undefined | Promise<CardCacheEntry | undefined>;
  set(key: string, entry: CardCacheEntry): void | Promise<void>;
  delete(key: string): void | Promise<void>;
}

/** A bounded in-memory {@link CardCache} (least recently used entries are dropped). */
export class MemoryCardCache implements CardCache {
  private readonly entries = new Map<string, CardCacheEntry>();

  constructor(private readonly maxEntries = 100) {}

  get(key: string): CardCacheEntry | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: CardCacheEntry): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/**
 * Freshness from `Cache-Control` (RFC 9111): `no-store` → don't keep; `no-cache` → revalidate
 * every time; `max-age` minus `Age`; else `Expires`; else the default TTL.
 */
export function freshnessMs(
  headers: Headers,
  now: number,
  defaultTtlMs: number,
): { store: boolean; ttlMs: number } {
  const cc = (headers.get('cache-control') ?? '').toLowerCase();
  if (/\bno-store\b/.test(cc)) return { store: false, ttlMs: 0 };
  if (/\bno-cache\b/.test(cc)) return { store: true, ttlMs: 0 };
  const maxAge = /\bmax-age=(\d+)/.exec(cc);
  if (maxAge) {
    const age = Number(headers.get('age') ?? 0) || 0;
    return { store: true, ttlMs: Math.max(0, (Number(maxAge[1]) - age) * 1000) };
  }
  const expires = headers.get('expires');
  if (expires) {
    const at = Date.parse(expires);
    return { store: true, ttlMs: Number.isNaN(at) ? 0 : Math.max(0, at - now) };
  }
  return { store: true, ttlMs: defaultTtlMs };
}
