import type { Message, SendResult, Task, TaskPage } from '../model/types.js';
import type { TaskStore } from '../store/task-store.js';
import type { EventFeed } from '../transport/event-feed.js';
import type { CallOptions, ListTasksQuery, SendOptions } from '../transport/transport.js';
import type { Scheduler } from '../util/scheduler.js';
import type { ResilienceOptions } from './resilience.js';

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
}

/** What every task a client follows shares. */
export interface FollowContext {
  client: EngineClient;
  store: TaskStore;
  /** Who the client acts for (recorded with each task; see `ConnectOptions.principal`). */
  principal: string | undefined;
  /** How long a finished task's record is kept (ms). */
  retentionMs: number;
  scheduler: Scheduler;
  random: () => number;
  resilience: ResilienceOptions;
  newId: () => string;
}
