import type { EventFeed } from '../transport/event-feed.js';

/**
 * The streams a client may hold open at once. Each followed task's SSE stream holds one HTTP/1.1
 * connection, and a connection pool (undici's per origin, a browser's ~6 per host) has a limit: past
 * it, a new request waits for a free connection without end. The engine takes a slot before it opens
 * a stream; when none is free, the task is followed by polling (or push) and returns to a stream once
 * a slot frees. A slot is given back when its stream is closed.
 */
export class StreamSlots {
  private used = 0;

  constructor(readonly max: number) {}

  /** Whether a stream could be opened now. */
  free(): boolean {
    return this.used < this.max;
  }

  /** Takes a slot; `false` when none is free. */
  acquire(): boolean {
    if (!this.free()) return false;
    this.used++;
    return true;
  }

  release(): void {
    if (this.used > 0) this.used--;
  }

  /** Streams open right now. */
  get inUse(): number {
    return this.used;
  }
}

/**
 * Opens a stream in one of `slots`, given back when the stream's feed is closed (every path that ends
 * a stream closes its feed). `undefined` when no slot is free.
 */
export async function openInSlot(slots: StreamSlots, open: () => Promise<EventFeed>): Promise<EventFeed | undefined> {
  if (!slots.acquire()) return undefined;
  let feed: EventFeed;
  try {
    feed = await open();
  } catch (error) {
    slots.release();
    throw error;
  }
  let released = false;
  const close = feed.close.bind(feed);
  feed.close = () => {
    if (!released) {
      released = true;
      slots.release();
    }
    close();
  };
  return feed;
}
