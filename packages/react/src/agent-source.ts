import { connect as browserConnect, TetherError, type A2AClient, type BrowserConnectOptions, type MessageInput, type StartOptions, type TaskHandle, type TaskRecord } from '@a2a-tether/browser';
import { taskSources } from './task-source.js';

/** What {@link useAgent} renders. */
export interface AgentSnapshot {
  /** `connecting` (reading the card), `ready`, or `error` (see `error`). */
  status: 'connecting' | 'ready' | 'error';
  /** The connected client, shared by every component that asked for the same agent. */
  client: A2AClient | undefined;
  /** Why connecting failed (a typed error: `CARD_INVALID`, `NETWORK` …). */
  error: TetherError | undefined;
}

/** Options of {@link useAgent}: the browser package's `connect` options, read once per agent. */
export interface UseAgentOptions extends BrowserConnectOptions {
  /**
   * Tells apart two clients of the same URL (e.g. two users, two stores). The options are read when
   * the agent is first asked for; a different `key` connects again with the new options.
   */
  key?: string | undefined;
  /** How to connect (default: `@a2a-tether/browser`'s `connect`). */
  connect?: ((url: string, options: BrowserConnectOptions) => Promise<A2AClient>) | undefined;
}

/** One agent of the page: connected once, its client shared; it lives as long as the page. */
export class AgentSource {
  private snapshot: AgentSnapshot = { status: 'connecting', client: undefined, error: undefined };
  private readonly listeners = new Set<() => void>();
  private connecting: Promise<A2AClient> | undefined;

  constructor(
    private readonly url: string,
    private readonly options: UseAgentOptions,
  ) {}

  getSnapshot = (): AgentSnapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    void this.client().catch(() => undefined);
    return () => void this.listeners.delete(listener);
  };

  /** The client, connecting on first use. */
  client(): Promise<A2AClient> {
    if (this.connecting) return this.connecting;
    const { key: _key, connect = browserConnect, ...options } = this.options;
    this.connecting = connect(this.url, options).then(
      (client) => {
        this.set({ status: 'ready', client, error: undefined });
        return client;
      },
      (error: unknown) => {
        const typed = error instanceof TetherError ? error : new TetherError('NETWORK', String(error), { cause: error });
        this.set({ status: 'error', client: undefined, error: typed });
        // The next component that asks tries again.
        this.connecting = undefined;
        throw typed;
      },
    );
    return this.connecting;
  }

  private set(snapshot: AgentSnapshot): void {
    this.snapshot = snapshot;
    for (const listener of [...this.listeners]) listener();
  }
}

const agents = new Map<string, AgentSource>();

/** The page's source for an agent (`url` and `options.key`). */
export function agentSource(url: string, options: UseAgentOptions): AgentSource {
  const id = `${url}\u0000${options.key ?? ''}`;
  let source = agents.get(id);
  if (!source) agents.set(id, (source = new AgentSource(url, options)));
  return source;
}

/**
 * Starts a task with `client.start()` and registers its handle with the hooks, so that `useTask(taskId)`
 * anywhere on the page shows it over this handle (never a second follow of the same task).
 */
export async function startTask(client: A2AClient, input: MessageInput, options?: StartOptions): Promise<TaskHandle> {
  const handle = await client.start(input, options);
  taskSources.ofHandle(handle);
  return handle;
}

/** The records of one client's tasks as an external store, over one `watchTasks()` however many components list them. */
export class TaskListSource {
  private snapshot: TaskListSnapshot = { records: [], loading: true, error: undefined };
  private readonly listeners = new Set<() => void>();
  private stop: (() => void) | undefined;

  constructor(private readonly client: A2AClient) {}

  getSnapshot = (): TaskListSnapshot => this.snapshot;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    this.stop ??= this.client.watchTasks(
      (records) => this.set({ records, loading: false, error: undefined }),
      { onError: (error) => this.set({ ...this.snapshot, loading: false, error }) },
    );
    return () => {
      this.listeners.delete(listener);
      queueMicrotask(() => {
        if (this.listeners.size > 0 || !this.stop) return;
        this.stop();
        this.stop = undefined;
      });
    };
  };

  private set(snapshot: TaskListSnapshot): void {
    this.snapshot = snapshot;
    for (const listener of [...this.listeners]) listener();
  }
}

/** What {@link useTasks} renders. */
export interface TaskListSnapshot {
  /** The records of the agent's tasks in this browser (every tab's), oldest first: live ones and finished ones within their retention. */
  records: readonly TaskRecord[];
  /** Until the store was first read. */
  loading: boolean;
  /** Why the store could not be read (the last list stays). */
  error: TetherError | undefined;
}

const lists = new WeakMap<A2AClient, TaskListSource>();

/** The page's task list source of a client. */
export function taskListSource(client: A2AClient): TaskListSource {
  let source = lists.get(client);
  if (!source) lists.set(client, (source = new TaskListSource(client)));
  return source;
}
