import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import { endsStream } from '../model/task-state.js';
import type { StreamEvent } from '../model/types.js';
import { checkIdentity, type EventFeed, type StreamItem } from './event-feed.js';

/** Options of {@link eventFeed}. */
export interface EventFeedOptions {
  /** The task the events must belong to, when known (a subscription); else learned from the first event. */
  taskId?: string | undefined;
  /** Where the stream is, for errors (e.g. `{ operation: 'SubscribeToTask', url }`). */
  context?: ErrorContext | undefined;
  /** Called once when the reader stops early (`close()`): close the connection. */
  onClose?: (() => void) | undefined;
}

/**
 * An {@link EventFeed} over a binding's own events (`@a2a-tether/core`'s normalized `StreamEvent`s), for a
 * binding of your own (`connect(url, { bindings })`): it holds each event to the stream's task and context,
 * notes when the stream may end, and types what breaks it. End the iterable when the connection ends (the
 * engine resumes a task whose stream ended early); throw a `TetherError` for a failure (anything else
 * becomes `NETWORK`: the stream broke).
 */
export function eventFeed(events: AsyncIterable<StreamEvent>, options: EventFeedOptions = {}): EventFeed {
  if (typeof (events as Partial<AsyncIterable<StreamEvent>> | null)?.[Symbol.asyncIterator] !== 'function') {
    throw new TetherError('INVALID_ARGUMENT', 'eventFeed: not an async iterable of events', { maybeDelivered: false });
  }
  return new IterableEventFeed(events[Symbol.asyncIterator](), typeof options === 'object' && options !== null ? options : {});
}

class IterableEventFeed implements EventFeed {
  count = 0;
  complete = false;
  taskId: string | undefined;
  contextId: string | undefined;
  private closed = false;
  private ended = false;

  constructor(
    private readonly iterator: AsyncIterator<StreamEvent>,
    private readonly options: EventFeedOptions,
  ) {
    this.taskId = options.taskId;
  }

  errorContext(): ErrorContext {
    return { ...this.options.context, taskId: this.taskId };
  }

  async read(): Promise<StreamItem[] | null> {
    if (this.ended) return null;
    let next: IteratorResult<StreamEvent>;
    try {
      next = await this.iterator.next();
    } catch (error) {
      this.ended = true;
      if (this.closed) throw new TetherError('ABORTED', 'the stream was closed by its reader', this.errorContext());
      if (error instanceof TetherError) throw error;
      throw new TetherError('NETWORK', `stream broke: ${error instanceof Error ? error.message : String(error)}`, { ...this.errorContext(), cause: error });
    }
    if (this.closed) throw new TetherError('ABORTED', 'the stream was closed by its reader', this.errorContext());
    if (next.done) {
      this.ended = true;
      return null;
    }
    checkIdentity(this, next.value);
    this.count++;
    if (endsStream(next.value)) this.complete = true;
    return [{ event: next.value, id: undefined }];
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.options.onClose?.();
    void this.iterator.return?.()?.catch(() => undefined);
  }
}
