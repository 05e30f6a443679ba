/** How many owners the limits remember at once; past that the oldest window is dropped. */
const MAX_OWNERS = 10_000;
const WINDOW_MS = 60_000;

/** A refusal of the limits: the HTTP status and, for 429, when to come back. */
export interface LimitRefusal {
  readonly status: 429;
  readonly retryAfterSeconds: number;
  readonly reason: string;
}

/**
 * Requests per minute (a fixed window per owner) and open streams per owner. Bounded memory: at most
 * {@link MAX_OWNERS} windows, the oldest dropped first.
 */
export class OwnerLimits {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly streams = new Map<string, number>();

  constructor(
    private readonly requestsPerMinute: number,
    private readonly streamsPerOwner: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Counts a request of `owner`; a refusal when it is one too many this minute. */
  request(owner: string): LimitRefusal | undefined {
    const now = this.now();
    let window = this.windows.get(owner);
    if (window === undefined || now - window.start >= WINDOW_MS) {
      this.windows.delete(owner);
      window = { start: now, count: 0 };
      this.windows.set(owner, window);
      if (this.windows.size > MAX_OWNERS) this.windows.delete(this.windows.keys().next().value as string);
    }
    if (window.count >= this.requestsPerMinute) {
      return { status: 429, retryAfterSeconds: Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000)), reason: `more than ${this.requestsPerMinute} requests a minute` };
    }
    window.count++;
    return undefined;
  }

  /** Opens a stream of `owner`: a release function, or a refusal when it has too many open. */
  openStream(owner: string): (() => void) | LimitRefusal {
    const open = this.streams.get(owner) ?? 0;
    if (open >= this.streamsPerOwner) return { status: 429, retryAfterSeconds: 1, reason: `more than ${this.streamsPerOwner} open streams` };
    this.streams.set(owner, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.streams.get(owner) ?? 1) - 1;
      if (left <= 0) this.streams.delete(owner);
      else this.streams.set(owner, left);
    };
  }
}
