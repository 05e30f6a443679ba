import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import type { OpenResponse } from '../http/http-client.js';
import { describeCause } from '../http/read-body.js';
import { endsStream } from '../model/task-state.js';
import type { StreamEvent } from '../model/types.js';
import { SseReader } from '../sse/sse-reader.js';
import type { FrameDecoder } from './frame.js';

/** One decoded event with the SSE id it came with, if any. */
export interface StreamItem {
  event: StreamEvent;
  /** The SSE `id:` of the frame (agents that number their events); sent as `Last-Event-ID` to resume. */
  id: string | undefined;
}

/** The task a stream is about, when known before its first event. */
export interface FeedIdentity {
  taskId?: string | undefined;
  contextId?: string | undefined;
}

/**
 * An open stream of one task's events, read in batches: what a binding's `openStream` and
 * `openSubscription` return, and what the client and the task engine read. The SSE bindings implement it
 * over an HTTP response; a binding of your own gets one from `eventFeed()` over its events.
 */
export interface EventFeed {
  /** Events delivered so far. */
  readonly count: number;
  /**
   * An event so far lets the stream end (a message reply, a terminal or interrupted state, v0.3 `final`):
   * an end of the stream before that is premature (the engine resumes the task).
   */
  readonly complete: boolean;
  /** The task the events belong to (known up front, or learned from the first event). */
  readonly taskId: string | undefined;
  readonly contextId: string | undefined;
  /**
   * The next events (never an empty array), or `null` once the stream ended. Throws the typed error that
   * ended the stream (`NETWORK` for a broken connection, the agent's `A2AError`, `PROTOCOL_VIOLATION` …).
   */
  read(): Promise<StreamItem[] | null>;
  /** Stops reading and closes the connection; a pending `read()` ends with `ABORTED`. */
  close(): void;
  /** Where this stream is, for errors. */
  errorContext(): ErrorContext;
}

/**
 * Holds every event of a stream to its task and context (learned from the first event when not known up
 * front): an event of another task or context is a `PROTOCOL_VIOLATION`.
 */
export function checkIdentity(feed: { taskId: string | undefined; contextId: string | undefined; errorContext(): ErrorContext }, event: StreamEvent): void {
  const taskId = event.kind === 'task' ? event.id : event.taskId;
  if (taskId !== undefined && taskId !== '') {
    if (feed.taskId === undefined) feed.taskId = taskId;
    else if (taskId !== feed.taskId) {
      throw new TetherError('PROTOCOL_VIOLATION', `an event of task ${JSON.stringify(taskId)} arrived on the stream of task ${JSON.stringify(feed.taskId)}`, feed.errorContext());
    }
  }
  const contextId = event.contextId;
  if (contextId !== undefined && contextId !== '') {
    if (feed.contextId === undefined) feed.contextId = contextId;
    else if (contextId !== feed.contextId) {
      throw new TetherError('PROTOCOL_VIOLATION', `an event of context ${JSON.stringify(contextId)} arrived on the stream of context ${JSON.stringify(feed.contextId)}`, feed.errorContext());
    }
  }
}

/**
 * One open SSE response, read in batches: each {@link read} takes one network chunk and returns
 * every event it completed, decoded, with its SSE id. Everything between the socket and the
 * caller happens synchronously inside that call (SSE framing, JSON, unwrap, decode, identity check).
 *
 * Identity: every event must belong to the stream's task (learned from the first event when not
 * known up front) and context; an event of another task is a `PROTOCOL_VIOLATION`. Errors never
 * lose what came before them: the events decoded before a bad frame are returned first, and the
 * error is thrown by the next `read()`.
 */
export class SseEventFeed implements EventFeed {
  /** Events delivered so far. */
  count = 0;
  /**
   * An event so far lets the stream end (a message reply, a terminal or interrupted state, v0.3
   * `final`). It stays set: events an agent sends after it (an artifact after the final status) are
   * delivered, and do not make the end of the body premature.
   */
  complete = false;
  /** The task the events belong to (known up front, or learned from the first event). */
  taskId: string | undefined;
  contextId: string | undefined;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly sse: SseReader;
  private pending: unknown;
  private ended = false;
  private closed = false;

  constructor(
    private readonly open: OpenResponse,
    private readonly decoder: FrameDecoder,
    maxEventSize: number,
    identity: FeedIdentity = {},
  ) {
    open.link.clearTimeout();
    this.taskId = identity.taskId;
    this.contextId = identity.contextId || undefined;
    const body = open.response.body;
    if (!body) throw new TetherError('STREAM_INTERRUPTED', 'the stream has no body', this.errorContext());
    this.reader = body.getReader();
    this.sse = new SseReader(maxEventSize, open.context);
  }

  private readonly context = (): ErrorContext => this.errorContext();

  /** Where this stream is, for errors. */
  errorContext(): ErrorContext {
    return { ...this.open.context, taskId: this.taskId };
  }

  /**
   * The events of the next network chunk (never an empty array), or `null` once the body ended.
   * Throws the typed error that ended the stream (`NETWORK`, `ABORTED`, `MALFORMED_EVENT`,
   * `EVENT_TOO_LARGE`, `PROTOCOL_VIOLATION`, or the agent's `A2AError`).
   */
  async read(): Promise<StreamItem[] | null> {
    for (;;) {
      if (this.pending !== undefined) throw this.failWith(this.pending);
      if (this.ended) {
        this.open.observed?.end();
        return null;
      }
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await this.reader.read();
      } catch (error) {
        throw this.failWith(
          this.open.link.errorFor(this.errorContext(), undefined, error) ??
            new TetherError('NETWORK', `stream broke: ${describeCause(error)}`, { ...this.errorContext(), cause: error }),
        );
      }
      if (this.closed) throw this.failWith(this.aborted());
      const frames = chunk.done ? this.sse.end() : this.sse.push(chunk.value);
      if (chunk.done) {
        this.ended = true;
        this.open.link.dispose();
      }
      const items = frames.length === 0 ? undefined : this.decodeAll(frames);
      if (this.sse.failure && this.pending === undefined) this.pending = this.sse.failure;
      if (items !== undefined && items.length > 0) return items;
    }
  }

  private decodeAll(frames: readonly { data: string; event: string | undefined; id: string | undefined }[]): StreamItem[] {
    const items: StreamItem[] = [];
    for (const frame of frames) {
      try {
        const event = this.decoder.decode(frame, this.count + 1, this.context);
        checkIdentity(this, event);
        this.count++;
        if (endsStream(event)) this.complete = true;
        items.push({ event, id: frame.id });
        this.open.observed?.event(event);
      } catch (error) {
        this.pending = error;
        break;
      }
    }
    return items;
  }

  private aborted(): TetherError {
    return new TetherError('ABORTED', 'the stream was closed by its reader', this.errorContext());
  }

  private failWith(error: unknown): unknown {
    this.ended = true;
    this.pending = undefined;
    this.release();
    this.open.observed?.end(error);
    return error;
  }

  /** Stops reading: the body is cancelled (the connection closes); a pending `read()` ends with `ABORTED`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.release();
    // Closed by its reader: the request is over, without a failure of its own.
    this.open.observed?.end();
  }

  private release(): void {
    this.open.link.dispose();
    this.reader.cancel().catch(() => undefined);
    this.open.link.controller.abort();
  }
}
