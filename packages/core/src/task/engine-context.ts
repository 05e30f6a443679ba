import type { SendOptions, GetTaskOptions, CancelTaskOptions } from '../client/a2a-client.js';
import type { MessageInput } from '../client/message-input.js';
import type { AgentCard, SelectedInterface } from '../card/card-types.js';
import type { ResilienceOptions } from '../defaults.js';
import type { SendResult, Task, TaskPage } from '../model/types.js';
import type { TaskStore } from '../store/task-store.js';
import type { EventStream } from '../transport/event-stream.js';
import type { CallOptions, ListTasksQuery, SubscribeOptions } from '../transport/transport.js';
import type { Scheduler } from '../util/scheduler.js';

/** The client operations the task engine uses (A2AClient has them all). */
export interface EngineClient {
  readonly card: AgentCard;
  readonly cardUrl: string;
  readonly interface: SelectedInterface;
  sendMessage(message: MessageInput, options?: SendOptions): Promise<SendResult>;
  streamMessage(message: MessageInput, options?: SendOptions): EventStream;
  getTask(taskId: string, options?: GetTaskOptions): Promise<Task>;
  listTasks(query?: ListTasksQuery, options?: CallOptions): Promise<TaskPage>;
  cancelTask(taskId: string, options?: CancelTaskOptions): Promise<Task>;
  subscribe(taskId: string, options?: SubscribeOptions): EventStream;
}

/** What every task handle of a client shares. */
export interface EngineContext {
  client: EngineClient;
  store: TaskStore;
  scheduler: Scheduler;
  random: () => number;
  resilience: ResilienceOptions;
  newId: () => string;
}
