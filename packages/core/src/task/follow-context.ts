import type { Message, PushNotificationConfig, SendResult, Task, TaskPage } from '../model/types.js';
import type { TaskStore } from '../store/task-store.js';
import type { EventFeed } from '../transport/event-feed.js';
import type { CallOptions, ListTasksQuery, SendOptions } from '../transport/transport.js';
import type { Scheduler } from '../util/scheduler.js';
import type { ResilienceOptions } from './resilience.js';
import type { EngineParts } from './engine-parts.js';
import type { StreamSlots } from './stream-slots.js';
import type { NetworkSignals, TaskCoordinator } from './coordinator.js';

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
  getTask(taskId: string, options: { historyLength?: number | undefined; signal?: AbortSignal | undefined }): Promise<Task>;
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
  /** The tasks this client follows right now (`resumeAll()` skips them). */
  following: Map<string, object>;
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
}
