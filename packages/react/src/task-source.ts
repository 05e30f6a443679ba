import {
  isInterruptedState,
  isTerminalState,
  TetherError,
  type A2AClient,
  type CancelOptions,
  type CancelOutcome,
  type ConnectionState,
  type Message,
  type MessageInput,
  type SendOptions,
  type TaskHandle,
  type TaskState,
  type TaskView,
} from '@a2a-tether/browser';

/** How much of the agent's answer has arrived: stable across a reload (it is counted from the task's view). */
export interface TaskProgress {
  /** Artifact parts received (a chunk that appends one part counts one). */
  parts: number;
  /** UTF-8 bytes of the artifacts' text parts. */
  bytes: number;
}

/** A pause the agent is waiting on: `input-required` or `auth-required`, with its question. */
export interface TaskPause {
  state: 'input-required' | 'auth-required';
  /** The agent's status message (its question), when it sent one. */
  message: Message | undefined;
}

/** What {@link useTask} renders: one immutable snapshot per change. */
export interface TaskSnapshot {
  /** The task id (`undefined` before there is one, or for a direct message answer). */
  taskId: string | undefined;
  /**
   * `idle` (no task given), `loading` (following it again by id), `following`, `done` (the follow
   * ended: the task is terminal), `error` (the follow failed: see `error`).
   */
  status: 'idle' | 'loading' | 'following' | 'done' | 'error';
  /** The task's state as last seen (`unknown` before anything was seen). */
  state: TaskState;
  /** The task as the handle shows it: artifacts as they grow, status message, history. */
  view: TaskView | undefined;
  /** The link to the agent: `live`, `reconnecting`, `polling`, … `closed`. */
  connection: ConnectionState;
  /** Parts and bytes received so far. */
  progress: TaskProgress;
  /** The pause to answer with `reply()`, while the task waits for one. */
  pause: TaskPause | undefined;
  /** The agent's direct answer, when it created no task. */
  message: Message | undefined;
  /** Why the follow failed (a typed error), or why it could not start. */
  error: TetherError | undefined;
}

const encoder = new TextEncoder();

/** The snapshot of no task at all. */
export const IDLE: TaskSnapshot = Object.freeze({
  taskId: undefined,
  status: 'idle',
  state: 'unknown',
  view: undefined,
  connection: 'closed',
  progress: Object.freeze({ parts: 0, bytes: 0 }),
  pause: undefined,
  message: undefined,
  error: undefined,
}) as TaskSnapshot;

function asTetherError(error: unknown): TetherError {
  return error instanceof TetherError ? error : new TetherError('NETWORK', error instanceof Error ? error.message : String(error), { cause: error });
}

/**
 * One task as an external store (`subscribe` / `getSnapshot`): reads the handle's events while someone
 * listens and keeps one immutable snapshot, replaced on every change. A status change is a snapshot of
 * its own (so a pause is never merged away); artifact chunks are merged per microtask.
 */
export class TaskSource {
  private snapshot: TaskSnapshot;
  private readonly listeners = new Set<() => void>();
  private handle: TaskHandle | undefined;
  private reading: AbortController | undefined;
  private scheduled = false;
  private ended = false;
  /** Called once nobody has listened for a microtask (StrictMode unmounts and mounts again at once). */
  onIdle: (() => void) | undefined;

  constructor(
    readonly taskId: string | undefined,
    private readonly open: (() => Promise<TaskHandle>) | undefined,
    handle?: TaskHandle,
  ) {
    this.handle = handle;
    this.snapshot = handle ? this.build(handle) : { ...IDLE, taskId, status: 'loading' };
  }

  /** The handle, once there is one. */
  get current(): TaskHandle | undefined {
    return this.handle;
  }

  /** Whether the follow has ended (terminal, failed or detached). */
  get finished(): boolean {
    return this.ended;
  }

  getSnapshot = (): TaskSnapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (this.listeners.size === 1) this.start();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      queueMicrotask(() => {
        if (this.listeners.size > 0) return;
        this.reading?.abort();
        this.reading = undefined;
        this.onIdle?.();
      });
    };
  };

  /** Answers the pause; the snapshot follows the task on. */
  async reply(input: MessageInput, options?: SendOptions): Promise<void> {
    const handle = this.handle;
    if (!handle) throw new TetherError('INVALID_ARGUMENT', 'reply: there is no task yet', { maybeDelivered: false });
    await handle.reply(input, options);
  }

  /** Asks the agent to cancel; the outcome says whether it confirmed. */
  async cancel(options?: CancelOptions): Promise<CancelOutcome> {
    const handle = this.handle;
    if (!handle) throw new TetherError('INVALID_ARGUMENT', 'cancel: there is no task yet', { maybeDelivered: false });
    return handle.cancel(options);
  }

  private start(): void {
    if (this.reading || this.ended) return;
    const reading = (this.reading = new AbortController());
    void this.read(reading.signal);
  }

  private async read(signal: AbortSignal): Promise<void> {
    let handle = this.handle;
    if (!handle) {
      try {
        handle = this.handle = await this.open!();
      } catch (error) {
        this.end({ ...this.snapshot, status: 'error', error: asTetherError(error) });
        return;
      }
      if (signal.aborted) return;
      this.publish();
    }
    try {
      for await (const event of handle.events({ signal })) {
        if (event.type === 'status') this.publish();
        else this.schedule();
      }
      if (signal.aborted) return;
      if (handle.kind === 'message') {
        this.end(this.build(handle));
        return;
      }
      await handle.done();
      this.end(this.build(handle));
    } catch (error) {
      if (signal.aborted) return;
      this.end({ ...this.build(handle), status: 'error', error: asTetherError(error) });
    }
  }

  private end(snapshot: TaskSnapshot): void {
    this.ended = true;
    this.reading = undefined;
    this.set(snapshot);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      if (!this.ended) this.publish();
    });
  }

  private publish(): void {
    if (this.handle) this.set(this.build(this.handle));
  }

  private set(snapshot: TaskSnapshot): void {
    this.snapshot = snapshot;
    for (const listener of [...this.listeners]) listener();
  }

  private build(handle: TaskHandle): TaskSnapshot {
    if (handle.kind === 'message') return { ...IDLE, status: 'done', message: handle.message };
    const view = handle.view;
    let parts = 0;
    let bytes = 0;
    for (const artifact of view.artifacts) {
      parts += artifact.parts.length;
      for (const part of artifact.parts) if (part.kind === 'text') bytes += encoder.encode(part.text).length;
    }
    const terminal = isTerminalState(view.state);
    return {
      taskId: view.taskId,
      status: terminal && view.connection === 'closed' ? 'done' : 'following',
      state: view.state,
      view,
      connection: view.connection,
      progress: { parts, bytes },
      pause: isInterruptedState(view.state) ? { state: view.state as TaskPause['state'], message: view.statusMessage } : undefined,
      message: undefined,
      error: undefined,
    };
  }
}

/**
 * The task sources of a page: one per task, shared by every component showing it. A task this page
 * started (or a handle given to `useTask`) is followed by its handle; a task known only by id is followed
 * again with `client.resume()` — in a tab that does not stream it, that mirrors the tab that does — and
 * detached once no component shows it.
 */
export class TaskSources {
  private readonly byId = new Map<string, TaskSource>();
  private readonly byHandle = new WeakMap<TaskHandle, TaskSource>();

  /** The source of a handle (registered under its task id, so `useTask(taskId)` finds it). */
  ofHandle(handle: TaskHandle): TaskSource {
    let source = this.byHandle.get(handle);
    if (source) return source;
    const taskId = handle.taskId;
    const known = taskId === undefined ? undefined : this.byId.get(taskId);
    if (known?.current === handle) source = known;
    else {
      const owned = (source = new TaskSource(taskId, undefined, handle));
      // The app owns this handle: nobody listening stops the reading, never the follow. Once the follow
      // ended and nobody shows it, the page forgets it (a later useTask(taskId) follows it again by id).
      if (taskId !== undefined) {
        this.byId.set(taskId, owned);
        owned.onIdle = () => {
          if (owned.finished && this.byId.get(taskId) === owned) this.byId.delete(taskId);
        };
      }
    }
    this.byHandle.set(handle, source);
    return source;
  }

  /** The source of a task known by id, following it again through `client` when no component does. */
  ofTaskId(client: A2AClient, taskId: string): TaskSource {
    const known = this.byId.get(taskId);
    if (known) return known;
    const source = new TaskSource(taskId, () => client.resume(taskId));
    source.onIdle = () => {
      if (this.byId.get(taskId) !== source) return;
      this.byId.delete(taskId);
      // Resumed here for the components that showed it: nobody shows it now, so stop following.
      source.current?.detach();
    };
    this.byId.set(taskId, source);
    return source;
  }
}

/** The page's task sources. */
export const taskSources = new TaskSources();
