import type { AgentCard, SelectedInterface } from '../card/card-types.js';
import { verifiedCard, type CardVerifier } from '../card/card-verifier.js';
import { cardReader } from '../card/load-card-reader.js';
import { A2AError, VersionNotSupportedError } from '../errors/a2a-errors.js';
import { TetherError } from '../errors/tether-error.js';
import type { HttpClient } from '../http/http-client.js';
import type { PushNotificationConfig, SendResult, Task, TaskPage } from '../model/types.js';
import type { SendParams } from '../protocol/encoder.js';
import type { EventFeed } from '../transport/event-feed.js';
import { EventStream } from '../transport/event-stream.js';
import { loadTransport } from '../transport/load-transport.js';
import type {
  CallOptions,
  CancelTaskOptions,
  GetTaskOptions,
  IdempotentCallOptions,
  ListTasksQuery,
  SendOptions,
  SubscribeOptions,
  Transport,
} from '../transport/transport.js';
import type { CustomBinding } from '../transport/custom-binding.js';
import type { TransportContext } from '../transport/transport-context.js';
import { toMessage, type MessageInput } from '../model/message-input.js';
import type { ResilienceOptions } from '../defaults.js';
import type { TaskRecord, TaskStore } from '../store/task-store.js';
import type { TasksFilter, WatchTasksOptions } from '../task/records.js';
import type { FollowContext, PushDelivery } from '../task/follow-context.js';
import type { EngineParts } from '../task/follow-context.js';
import type { NetworkSignals, TaskCoordinator } from '../task/coordinator.js';
import { taskEngine, type Engine } from '../task/load-engine.js';
import type { ResumeOptions, StartOptions } from '../task/start-task.js';
import type { TaskHandle } from '../task/task-handle.js';
import type { ReattachOptions } from '../task/reattach.js';
import type { Scheduler } from '../util/scheduler.js';
import { retryUnary } from './retry-unary.js';
import type { LifecycleListener, Watch } from '../observe/watch.js';
import type { LifecycleEvent, TetherPlugin } from '../observe/plugin.js';
import type { RequestTrace } from '../observe/trace-context.js';
import { redact } from '../errors/redact.js';
import { taskKey } from '../store/task-key.js';

/** What the client was built from; internal to `connect()`. */
export interface A2AClientInit {
  card: AgentCard;
  cardUrl: string;
  /** Checks the extended card as it checked the public one. */
  verifyCard?: CardVerifier | undefined;
  candidates: SelectedInterface[];
  /** The transport of `candidates[0]`, already loaded (`connect()` loads it once it has read the card). */
  transport: Transport;
  http: HttpClient;
  /** Names of the query parameters that carry credentials (see `A2AClient.credentialsInQuery`). */
  credentialsInQuery: string[];
  extensions: string[];
  /** The caller's own bindings (`connect(url, { bindings })`). */
  custom?: readonly CustomBinding[] | undefined;
  maxEventSize: number;
  newId: () => string;
  /** Default retries of the idempotent unary calls. */
  maxRetries: number;
  store: TaskStore;
  principal: string | undefined;
  retentionMs: number;
  push: PushDelivery | undefined;
  /** The engine's push and lease runners (see `EngineParts`). */
  parts: EngineParts;
  leaseOwner: string;
  maxStreams: number;
  coordinator?: TaskCoordinator | undefined;
  network?: NetworkSignals | undefined;
  resilience: ResilienceOptions;
  scheduler: Scheduler;
  random: () => number;
  /** The plugins and lifecycle listeners (`connect(url, { plugins })`, `client.observe()`). */
  watch: Watch;
  /** `connect(url, { experimental: { generations } })`: the engine honours the v1.1-draft task generation. */
  generations: boolean;
}

/** What the binding of `candidates[index]` is given. */
function transportContext(init: Omit<A2AClientInit, 'transport'>, index: number): TransportContext {
  return {
    http: init.http,
    iface: init.candidates[index] as SelectedInterface,
    extensions: init.extensions,
    maxEventSize: init.maxEventSize,
    custom: init.custom,
  };
}

/** A client on the first candidate interface, once that interface's code is loaded; `connect()` calls it. */
export async function openClient(init: Omit<A2AClientInit, 'transport'>): Promise<A2AClient> {
  return new A2AClient({ ...init, transport: await loadTransport(transportContext(init, 0)) });
}

/**
 * A retry's options: its trace context says which retry it is, in the caller's trace (read now: a
 * follow's first request was sent long before, and a retry is never a follow's first request).
 */
function attemptOptions<O extends IdempotentCallOptions>(options: O | undefined, attempt: number): O {
  const base = options?.traceContext;
  const trace: RequestTrace = { traceparent: base?.traceparent, tracestate: base?.tracestate, attempt };
  return { ...(options as O), traceContext: trace };
}

/**
 * Refuses an answer about another task than `taskId` (a task's `id`, a push config's `taskId`) with
 * PROTOCOL_VIOLATION, as a stream event of another task is (G10).
 */
function checkAbout(taskId: string, answers: unknown): void {
  for (const answer of ([] as { id?: string; taskId?: string }[]).concat(answers as [])) {
    const id = answer.taskId ?? answer.id;
    if (id !== taskId) throw new TetherError('PROTOCOL_VIOLATION', `the agent answered about task ${JSON.stringify(id)}, not ${JSON.stringify(taskId)}`, { taskId });
  }
}

/**
 * A connection to one A2A agent, on the interface chosen from its card. One method per
 * protocol operation; every call takes `{ signal, timeoutMs }` and fails with a typed error
 * (`TetherError`, or an `A2AError` subclass when the agent reported one).
 *
 * Calls that are safe to repeat (`getTask`, `listTasks`, `getPushConfig`, `listPushConfigs`,
 * `deletePushConfig`) are retried after transient failures, `maxRetries` times (see
 * `DEFAULTS.maxRetries`); sends, streams, `cancelTask` and `createPushConfig` never are.
 *
 * If the chosen interface cannot be reached (connection refused, unknown host) or turns out
 * not to exist (404/405, VersionNotSupported) before it ever answered, the client moves on to
 * the next compatible interface of the card and retries the call there.
 */
export class A2AClient {
  private cardValue: AgentCard;
  private index = 0;
  /** The transport of `candidates[index]`; `undefined` while the next one's code loads after a fallback. */
  private transport: Transport | undefined;
  private loading: Promise<Transport> | undefined;
  private answered = false;
  private engineContext: FollowContext | undefined;

  /** @internal Use `connect()`. */
  constructor(private readonly init: A2AClientInit) {
    this.cardValue = init.card;
    this.transport = init.transport;
    this.told();
  }

  /** What the plugins are told of the agent: its card's name and URL, and the version of the interface in use. */
  private told(): void {
    const watch = this.init.watch;
    const card = this.cardValue;
    watch.agent = { name: card.name, url: redact(this.init.cardUrl), description: card.description || undefined, version: card.version || undefined };
    const iface = this.init.candidates[this.index];
    watch.protocolVersion = iface?.protocolVersion;
    watch.tenant = iface?.tenant;
  }

  /**
   * Calls `listener` with every lifecycle event of this client — requests, tasks created, state and
   * connection changes, artifacts, pauses, cancels (docs/observability.md) — until the returned
   * function is called. Events carry ids, states, sizes and times, never content or credentials. A
   * listener that throws is reported once on the console and never breaks a call.
   */
  observe(listener: LifecycleListener): () => void {
    if (typeof listener !== 'function') throw new TetherError('INVALID_ARGUMENT', 'observe: the listener is not a function', { maybeDelivered: false });
    const { watch } = this.init;
    const own = (event: LifecycleEvent): void => listener(event);
    watch.listeners.add(own);
    // The hooks come with the engine's code, which connect() started loading.
    const engine = taskEngine.now;
    if (engine) watch.hooks ??= new engine.Observers(watch);
    else void taskEngine.get().then((loaded) => (watch.hooks ??= new loaded.Observers(watch)), () => undefined);
    return () => void watch.listeners.delete(own);
  }

  /** The plugins given to `connect()` (a workflow on this client's agent opens its spans with them). */
  get plugins(): readonly TetherPlugin[] {
    return this.init.watch.plugins;
  }

  /** The agent card (normalized). Replaced by the extended card after `getExtendedCard()`. */
  get card(): AgentCard {
    return this.cardValue;
  }

  /** Where the card was found. */
  get cardUrl(): string {
    return this.init.cardUrl;
  }

  /** The interface in use: binding, protocol version, URL (and tenant). */
  get interface(): SelectedInterface {
    return { ...(this.init.candidates[this.index] as SelectedInterface) };
  }

  /**
   * The query parameters that carry credentials, e.g. `['api_key']`: only when the card's security
   * scheme demands an API key `in: query` and no header scheme it offers can be satisfied with the
   * given `auth`. Empty when every credential travels in headers. Query strings end up in server,
   * proxy and CDN logs (and a browser's history): check this, and prefer a header scheme when the
   * agent offers one. Tether redacts these values from its errors; `redact()` does so for your logs.
   */
  get credentialsInQuery(): string[] {
    return [...this.init.credentialsInQuery];
  }

  /** Every compatible interface of the card, in the order they are tried. */
  get interfaces(): SelectedInterface[] {
    return this.init.candidates.map((c) => ({ ...c }));
  }

  /** The transport of `candidates[index]`, its code loaded once (a failed load is tried again by the next call). */
  private load(): Promise<Transport> {
    if (this.loading === undefined) {
      const index = this.index;
      const loading = loadTransport(transportContext(this.init, index)).then(
        (transport) => {
          if (this.index === index) this.transport = transport;
          return transport;
        },
        (error: unknown) => {
          if (this.loading === loading) this.loading = undefined;
          throw error;
        },
      );
      this.loading = loading;
    }
    return this.loading;
  }

  /** Whether an error means "this interface is not there", so the next one may be tried. */
  private shouldFallBack(error: unknown, transport: Transport): boolean {
    if (transport !== this.transport || this.index + 1 >= this.init.candidates.length) return false;
    if (!(error instanceof TetherError)) return false;
    if (error.code === 'NETWORK' && !error.maybeDelivered) return true;
    if (this.answered) return false;
    if (error instanceof VersionNotSupportedError) return true;
    return !(error instanceof A2AError) && (error.status === 404 || error.status === 405 || error.status === 501);
  }

  private advance(): void {
    this.index++;
    this.transport = undefined;
    this.loading = undefined;
    this.told();
  }

  /**
   * Runs `call` on the current interface, falling back to the next one while the first is not there. `about`:
   * the answer must be about that task (checked here, not in the bindings, so that none can skip it).
   */
  private async run<T>(call: (transport: Transport) => Promise<T>, about?: string): Promise<T> {
    for (;;) {
      const transport = this.transport ?? (await this.load());
      try {
        const result = await call(transport);
        if (transport === this.transport) this.answered = true;
        if (about !== undefined) checkAbout(about, result);
        return result;
      } catch (error) {
        if (error instanceof A2AError && transport === this.transport && !(error instanceof VersionNotSupportedError)) {
          this.answered = true;
        }
        if (!this.shouldFallBack(error, transport)) throw error;
        this.advance();
      }
    }
  }

  /** `run`, repeated after transient failures: only for calls that are safe to repeat. */
  private runIdempotent<T, O extends IdempotentCallOptions>(operation: string, options: O | undefined, call: (transport: Transport, options: O | undefined) => Promise<T>, about?: string): Promise<T> {
    // A retry's requests say which attempt they are (plugins, `request` lifecycle events).
    return retryUnary((retry) => this.run((t) => call(t, retry === 0 ? options : attemptOptions(options, retry)), about), {
      operation,
      maxRetries: options?.maxRetries ?? this.init.maxRetries,
      scheduler: this.init.scheduler,
      signal: options?.signal,
    });
  }

  /** A stream whose opening falls back like `run` (nothing was read from it yet). */
  private runStream(open: (transport: Transport, signal: AbortSignal) => Promise<EventFeed>, options: CallOptions | undefined): EventStream {
    return new EventStream(async (signal) => {
      const feed = await this.run((t) => open(t, signal));
      options?.onOpen?.();
      return feed;
    }, options?.signal);
  }

  private sendParams(input: MessageInput, options: SendOptions | undefined): SendParams {
    const params: SendParams = {
      message: toMessage(input, this.init.newId),
      blocking: !(options?.returnImmediately ?? false),
    };
    if (options?.acceptedOutputModes !== undefined) params.acceptedOutputModes = options.acceptedOutputModes;
    if (options?.historyLength !== undefined) params.historyLength = options.historyLength;
    if (options?.pushNotification !== undefined) params.pushNotification = options.pushNotification;
    if (options?.metadata !== undefined) params.metadata = options.metadata;
    if (options?.ifGenerationMatch !== undefined) params.ifGenerationMatch = options.ifGenerationMatch;
    return params;
  }

  private requireStreaming(operation: string): void {
    if (!this.cardValue.capabilities.streaming) {
      throw new TetherError(
        'UNSUPPORTED_OPERATION',
        `agent "${this.cardValue.name}" does not stream (its card has capabilities.streaming = false); use sendMessage and getTask, or a task handle with polling`,
        { operation },
      );
    }
  }

  /**
   * Sends a message; resolves with the agent's direct `Message` reply or the `Task` it created
   * or continued (tell them apart by `kind`). To continue a task, pass its `taskId` and `contextId`.
   */
  async sendMessage(message: MessageInput, options?: SendOptions): Promise<SendResult> {
    const params = this.sendParams(message, options);
    return this.run((t) => t.sendMessage(params, options));
  }

  /**
   * Sends a message and streams the answer: a `Message`, or the `Task` followed by its status
   * and artifact updates. Iterate with `for await`; `break` closes the connection. A stream that
   * ends before a terminal or interrupted state throws `STREAM_INTERRUPTED`.
   */
  streamMessage(message: MessageInput, options?: SendOptions): EventStream {
    this.requireStreaming('SendStreamingMessage');
    const params = this.sendParams(message, options);
    return this.runStream((t, signal) => t.openStream(params, options, signal), options);
  }

  /** Fetches a task's current state, artifacts and (some) history. */
  getTask(taskId: string, options?: GetTaskOptions): Promise<Task> {
    return this.runIdempotent('GetTask', options, (t, o) => t.getTask(taskId, o?.historyLength, o), taskId);
  }

  /**
   * Lists tasks visible to the caller, newest first (v1.0 agents only; v0.3 has no ListTasks): one page.
   * Every page: `taskPages(client, query)` of `@a2a-tether/core/protocol`.
   */
  listTasks(query: ListTasksQuery = {}, options?: IdempotentCallOptions): Promise<TaskPage> {
    return this.runIdempotent('ListTasks', options, (t, o) => t.listTasks(query, o));
  }

  /**
   * Finds this agent's unfinished tasks of a conversation (`ListTasks` by `contextId`, every page; `since` a
   * time) and follows each again, as `resume()` does — for when the local store is gone. Tasks this client
   * follows already are skipped. v1.0 agents only (`UNSUPPORTED_OPERATION` on v0.3).
   */
  reattach(options: ReattachOptions): Promise<TaskHandle[]> {
    return this.withEngine((engine) => engine.reattach(this.followContext(engine), options));
  }

  /**
   * Asks the agent to cancel a task and returns the task as the agent answered. Cancellation is
   * best effort: the answer may still show a non-terminal state; only `canceled` confirms it.
   * Not retried by the client.
   */
  cancelTask(taskId: string, options?: CancelTaskOptions): Promise<Task> {
    return this.run((t) => t.cancelTask(taskId, options?.metadata, options), taskId);
  }

  /** Streams a running task's events (v1.0 starts with a Task snapshot; v0.3 agents differ). */
  subscribe(taskId: string, options?: SubscribeOptions): EventStream {
    this.requireStreaming('SubscribeToTask');
    return this.runStream((t, signal) => t.openSubscription(taskId, options, signal), options);
  }

  /** Registers a webhook for a task's updates. Not retried by the client (it may create a second registration). */
  createPushConfig(config: PushNotificationConfig, options?: CallOptions): Promise<PushNotificationConfig> {
    return this.run((t) => t.createPushConfig(config, options), config.taskId);
  }

  /** Reads one webhook registration. */
  getPushConfig(taskId: string, configId: string, options?: IdempotentCallOptions): Promise<PushNotificationConfig> {
    return this.runIdempotent('GetTaskPushNotificationConfig', options, (t, o) => t.getPushConfig(taskId, configId, o), taskId);
  }

  /** Lists a task's webhook registrations. */
  listPushConfigs(taskId: string, options?: IdempotentCallOptions): Promise<PushNotificationConfig[]> {
    return this.runIdempotent('ListTaskPushNotificationConfigs', options, (t, o) => t.listPushConfigs(taskId, o), taskId);
  }

  /** Removes a webhook registration (idempotent on conforming agents). */
  deletePushConfig(taskId: string, configId: string, options?: IdempotentCallOptions): Promise<void> {
    return this.runIdempotent('DeleteTaskPushNotificationConfig', options, (t, o) => t.deletePushConfig(taskId, configId, o));
  }

  /**
   * Runs `use` on the task engine: at once when its code is loaded (`connect()` started loading it), else
   * once it is — or rejects with the `NETWORK` error of a load that failed (the next call tries again).
   */
  private withEngine<T>(use: (engine: Engine) => Promise<T>): Promise<T> {
    const engine = taskEngine.now;
    return engine ? use(engine) : taskEngine.get().then(use);
  }

  /** What every task of this client shares: built by the engine, once, when its code is here. */
  private followContext(engine: Engine): FollowContext {
    this.init.watch.hooks ??= new engine.Observers(this.init.watch);
    this.engineContext ??= engine.followContext(
      {
        run: (call) => this.run(call),
        agent: () => ({ card: this.card, cardUrl: this.cardUrl, protocolVersion: this.interface.protocolVersion }),
      },
      this.init,
    );
    return this.engineContext;
  }

  /** The store where followed tasks are recorded. */
  get store(): TaskStore {
    return this.init.store;
  }

  /**
   * The key `store` files this agent's task `taskId` under (`taskKey()` of the URL its records carry:
   * the card URL with credential-like values masked): `client.store.get(client.taskKey(id))`.
   */
  taskKey(taskId: string): string {
    return taskKey(redact(this.cardUrl), taskId);
  }

  /**
   * Sends a message and follows the task it creates, through drops, restarts and pauses.
   * Resolves once the task id is in the store, with a handle: `events()`, `view`, `done()`,
   * `reply()`, `cancel()`, `detach()`. A direct message answer gives a handle of `kind: 'message'`
   * (`handle.message`; `done()` rejects with `NO_TASK`, `result()` returns the message). Rejects with
   * `STORE_WRITE_FAILED` (carrying the task id) when the task's first record cannot be stored, and with
   * `NETWORK`, nothing sent, when a page cannot load the engine's code (`connect()` started loading it).
   */
  start(message: MessageInput, options?: StartOptions): Promise<TaskHandle> {
    return this.withEngine((engine) => engine.startTask(this.followContext(engine), message, options));
  }

  /** Follows a task again by id (from the store, or any task of this agent). */
  resume(taskId: string, options?: ResumeOptions): Promise<TaskHandle> {
    return this.withEngine((engine) => engine.resumeTask(this.followContext(engine), taskId, options));
  }

  /**
   * Follows again every task of this agent (and this client's principal) that the store remembers as
   * still to follow: not terminal, not lost, not followed by this client already. With a store shared by
   * several processes (one that leases tasks), only the tasks whose lease this client gets; call it again
   * from time to time to take over the tasks of a process that died. `limit` takes at most that many
   * (oldest first), so that several processes share the work. Finished records past their retention are
   * deleted.
   */
  async resumeAll(options: ResumeOptions & { limit?: number | undefined } = {}): Promise<TaskHandle[]> {
    const { limit = Number.POSITIVE_INFINITY, ...resume } = options;
    const engine = await taskEngine.get();
    const context = this.followContext(engine);
    const records = (await engine.listRecords(context, { active: true })).filter((r) => !context.following.has(r.taskId));
    const handles: TaskHandle[] = [];
    for (const record of records) {
      if (handles.length >= limit) break;
      const handle = await engine.resumeTask(context, record.taskId, resume, { skipLeased: true });
      if (handle) handles.push(handle);
    }
    return handles;
  }

  /**
   * The records of this agent's tasks (and this client's principal), oldest first: live ones, and
   * finished ones until their retention ends (`DEFAULTS.retentionMs`) — final state, outcome, the
   * cancel asked for and what was seen. Expired records are deleted on the way.
   */
  tasks(filter?: TasksFilter): Promise<TaskRecord[]> {
    return this.withEngine((engine) => engine.listRecords(this.followContext(engine), filter));
  }

  /**
   * Calls `listener` with `tasks()`'s records now, and again whenever a task of this agent is started,
   * changes state or outcome, has a cancel asked or confirmed, or is removed — in this client, and in
   * every tab or process on the same store where the store can say so (the IndexedDB store across the
   * tabs of an origin, the file store across processes; others are read every `intervalMs`). Returns the
   * function that stops it.
   */
  watchTasks(listener: (records: TaskRecord[]) => void, options?: WatchTasksOptions): () => void {
    if (typeof listener !== 'function') throw new TetherError('INVALID_ARGUMENT', 'watchTasks: the listener is not a function', { maybeDelivered: false });
    let stop: (() => void) | undefined;
    let stopped = false;
    void this.withEngine(async (engine) => {
      if (!stopped) stop = engine.watchRecords(this.followContext(engine), listener, options);
    }).catch((error: unknown) => options?.onError?.(error instanceof TetherError ? error : new TetherError('NETWORK', String(error), { cause: error })));
    return () => {
      stopped = true;
      stop?.();
    };
  }

  /**
   * Fetches the extended agent card (for authenticated clients) and uses it as `client.card`
   * from then on, as the spec recommends. With `connect(url, { verifyCard })` it is verified first
   * (`SIGNATURE_INVALID` leaves `client.card` as it was).
   *
   * @throws TetherError `UNSUPPORTED_OPERATION`, without a request, when the card says the agent has no
   *   extended card (`capabilities.extendedAgentCard`; `supportsAuthenticatedExtendedCard` in v0.3).
   */
  async getExtendedCard(options?: CallOptions): Promise<AgentCard> {
    const reader = await cardReader.get();
    reader.checkExtendedCard(this.cardValue);
    const raw = await this.run((t) => t.getExtendedCard(options));
    let card = reader.normalizeCard(raw, this.init.cardUrl);
    if (this.init.verifyCard) card = await verifiedCard(this.init.verifyCard, card, { url: this.init.cardUrl, signal: options?.signal });
    this.cardValue = card;
    this.told();
    return card;
  }
}

