import type { ClientCredentialsSetup } from '../auth/client-credentials.js';
import type { TokenRequest } from '../auth/auth-options.js';
import type { Message, PushNotificationConfig, SendResult, Task, TaskPage } from '../model/types.js';
import type { TaskStore } from '../store/task-store.js';
import type { EventFeed } from '../transport/event-feed.js';
import type { CallOptions, ListTasksQuery, SendOptions } from '../transport/transport.js';
import type { Scheduler } from '../util/scheduler.js';
import type { ResilienceOptions } from './resilience.js';
import type { StoreLease } from '../store/task-store.js';
import type { StreamSlots } from './stream-slots.js';
import type { NetworkSignals, TaskCoordinator } from './coordinator.js';
import type { Watch } from '../observe/watch.js';
import type { TraceContext } from '../observe/trace-context.js';
import type { GenerationGate } from './generation-gate.js';

/** What the engine must know about the agent it follows tasks on. */
export interface AgentFacts {
  /** The agent's card URL: records are kept per agent. */
  url: string;
  /** The card says the agent streams (SendStreamingMessage, SubscribeToTask). */
  streaming: boolean;
  /** The interface speaks ListTasks (v1.0): a lost creating send can be looked for. */
  listTasks: boolean;
  /** Subscriptions start with a Task snapshot (v1.0); otherwise one is fetched when a subscription opens. */
  subscribeSnapshot: boolean;
  /** The card says the agent can push task updates to a webhook (`capabilities.pushNotifications`). */
  push: boolean;
}

/**
 * The client operations the task engine uses. Calls made through it are not retried by the
 * client: the engine's own budget and request-rate ceiling decide every retry.
 */
export interface EngineClient {
  readonly agent: AgentFacts;
  sendMessage(message: Message, options: SendOptions): Promise<SendResult>;
  openStream(message: Message, options: SendOptions, signal: AbortSignal): Promise<EventFeed>;
  openSubscription(taskId: string, lastEventId: string | undefined, signal: AbortSignal): Promise<EventFeed>;
  getTask(
    taskId: string,
    options: { historyLength?: number | undefined; signal?: AbortSignal | undefined; traceContext?: TraceContext | undefined; currentGeneration?: number | undefined },
  ): Promise<Task>;
  listTasks(query: ListTasksQuery, options: CallOptions): Promise<TaskPage>;
  cancelTask(taskId: string, options: { metadata?: Record<string, unknown> | undefined } & CallOptions): Promise<Task>;
  createPushConfig(config: PushNotificationConfig, options: CallOptions): Promise<PushNotificationConfig>;
  deletePushConfig(taskId: string, configId: string, options: CallOptions): Promise<void>;
}

/**
 * Where pushes for the client's tasks arrive: the push receiver of `@a2a-tether/node`
 * (`createPushReceiver`) is one. Runtime-neutral: the engine only registers tasks and listens.
 */
export interface PushChannel {
  /** Accept pushes for this task from now on, authenticated by this token (the push config's `token`). */
  expect(taskId: string, options?: { token?: string | undefined }): void;
  /** Stop accepting pushes for this task. */
  forget(taskId: string): void;
  /** Call `listener` when pushes for the task arrive (merged while it is busy); returns the unsubscribe. */
  subscribe(taskId: string, listener: (notice: unknown) => void | Promise<void>): () => void;
  /**
   * Registers a push config's token before the send that carries it, so that a push that comes before the
   * agent names the task is held for it (agents push as they create a task). When the channel has it, the
   * engine uses it instead of `expect`/`subscribe`/`forget`: each registration is its own, even when two
   * agents give their tasks one id.
   */
  register?(options: { token: string; taskId?: string | undefined }): PushChannelRegistration;
}

/** One registration of a {@link PushChannel}: a token, and the task it opens once the agent named it. */
export interface PushChannelRegistration {
  /** Settles once a push can find the registration wherever it lands (several replicas); never rejects. */
  readonly ready: Promise<void>;
  /** The agent named the task: pushes held for the registration that name it are delivered, the others dropped. */
  bind(taskId: string): void;
  /** Call `listener` when pushes arrive (merged while it is busy); returns the unsubscribe. */
  subscribe(listener: (notice: unknown) => void | Promise<void>): () => void;
  /** Stop accepting pushes for this registration, and drop what is held for it. */
  forget(): void;
}

/** Push delivery (`connect(url, { push })`): where agents post, and who receives it. */
export interface PushDelivery {
  /** The receiver the webhook URL reaches. */
  receiver: PushChannel;
  /** The webhook URL agents post to (must reach `receiver`). */
  url: string;
  /** While waiting for pushes, GetTask this often anyway, in case a push was lost (ms; default 60 000). */
  safetyPollMs?: number | undefined;
}

/** What every task a client follows shares. */
export interface FollowContext {
  client: EngineClient;
  store: TaskStore;
  /** Who the client acts for (recorded with each task; see `ConnectOptions.principal`). */
  principal: string | undefined;
  /** How long a finished task's record is kept (ms). */
  retentionMs: number;
  /** Push delivery, when the client was given a receiver. */
  push: PushDelivery | undefined;
  /** The runners of push delivery and of leases, when `connect()` handed them (see {@link EngineParts}). */
  parts: EngineParts;
  /** This client's name as a lease owner (unique per client; see `ConnectOptions.leaseOwner`). */
  owner: string;
  /** The tasks this client follows right now (`resumeAll()` skips them), each with the trace its requests continue. */
  following: Map<string, { readonly options: { readonly traceContext?: TraceContext | undefined } }>;
  /** The client's plugins and lifecycle listeners. */
  watch: Watch;
  /** The streams this client may hold open at once (see `ConnectOptions.maxStreams`). */
  streamSlots: StreamSlots;
  /** Tabs: who drives each task, and how the others mirror it (see `ConnectOptions.coordinator`). */
  coordinator?: TaskCoordinator | undefined;
  /** The platform's network and page signals (see `ConnectOptions.network`). */
  network?: NetworkSignals | undefined;
  scheduler: Scheduler;
  random: () => number;
  resilience: ResilienceOptions;
  newId: () => string;
  /**
   * A new task's {@link GenerationGate}, when the client honours the v1.1-draft task generation
   * (`connect(url, { experimental: { generations } })`).
   */
  gate?: (() => GenerationGate) | undefined;
}

/** What re-arming a resumed push-mode task needs (its old config id: removed once a new one is registered). */
export interface RearmArgs {
  client: EngineClient;
  delivery: PushDelivery | undefined;
  scheduler: Scheduler;
  newId: () => string;
  taskId: string;
  oldConfigId: string | undefined;
  signal: AbortSignal;
}

/**
 * One task's push delivery as the engine drives it: the type of `EngineParts.push`'s runner. Core's runner
 * (`PushWaiter`) is not exported; `connect()` hands it to the engine.
 */
export interface PushRunner {
  /** The task's webhook config (its token is never stored). */
  readonly config: { id: string; token: string };
  /** The config to register with the creating send (the receiver holds pushes for its token from then on). */
  registration(): Omit<PushNotificationConfig, 'taskId'>;
  /** Settles once the receiver can take pushes for the token wherever they land: the send waits for it. */
  readonly ready: Promise<void>;
  /** The receiver accepts this task's pushes from now on. */
  listen(taskId: string): void;
  /** Waits for a push, or `ms` (the safety poll): true when it is time to look, false when `signal` aborted. */
  wait(ms: number, signal: AbortSignal): Promise<boolean>;
  /** After a GetTask: how long to wait for pushes before the next. */
  nextDelayMs(): number;
  /** The receiver stops accepting the task's pushes. */
  stop(): void;
}

/**
 * One task's lease as the engine keeps it: the type of what `EngineParts.lease` makes. Core's runner
 * (`LeaseKeeper`) is not exported; `connect()` hands it to the engine.
 */
export interface LeaseRunner {
  /** Stops renewing, and gives the lease back once `after` settled. */
  release(after: Promise<unknown>): void;
}

/**
 * The runners only some apps need, handed to the engine by `connect()`: push delivery (a webhook
 * receiver, a Node server) and leases (a store several processes share). Core's and Node's
 * `connect()` hand both; the browser's, and `connectWithParts({}, …)`, hand neither, so the bundle
 * holds neither's code, and `push` or a store that leases is refused (docs/runtimes.md).
 */
export interface EngineParts {
  /** Push delivery: a task's own webhook config and the wait for its pushes. */
  push?:
    | {
        runner(delivery: PushDelivery, scheduler: Scheduler, newId: () => string): PushRunner;
        /** A resumed task's new webhook config (the old token was never stored); `undefined`: poll instead. */
        rearm(args: RearmArgs): Promise<PushRunner | undefined>;
      }
    | undefined;
  /** Keeps a task's lease (renewals, the local deadline) while the task is driven; `lost` is called once if it is lost. */
  lease?: ((lease: StoreLease, askedAt: number, scheduler: Scheduler, lost: (why: string) => void) => LeaseRunner) | undefined;
  /**
   * The OAuth 2.0 client-credentials grant (`auth.oauth2`): a bearer token provider for the setup. Servers
   * only: a client secret does not belong in a web page, so the browser package leaves it out.
   */
  oauth2?: ((setup: ClientCredentialsSetup) => (request: TokenRequest) => Promise<string>) | undefined;
  /**
   * A2A v1.1 draft, the task generation (`connect(url, { experimental: { generations: true } })`): a new
   * task's gate. Core's and Node's `connect()` hand it; the browser's leaves it out (bundle size), and
   * following a task there with `generations` on is `INVALID_ARGUMENT`.
   */
  generations?: (() => GenerationGate) | undefined;
}
