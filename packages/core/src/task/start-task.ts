import type { SendOptions } from '../client/a2a-client.js';
import { toMessage, type MessageInput } from '../client/message-input.js';
import type { AgentCard } from '../card/card-types.js';
import { TetherError } from '../errors/tether-error.js';
import type { Task } from '../model/types.js';
import { TASK_RECORD_VERSION, type TaskRecord } from '../store/task-store.js';
import type { Connection } from './delivery-engine.js';
import type { EngineContext } from './engine-context.js';
import { findDelivered, firstEvent, retrySend } from './lost-send.js';
import { Reconciler } from './reconciler.js';
import { TaskHandle, type FollowOptions } from './task-handle.js';

/** Options of `client.start()`. */
export type StartOptions = Omit<SendOptions, 'returnImmediately'> & FollowOptions;

/** Options of `client.resume()`. */
export type ResumeOptions = FollowOptions;

function chooseMode(delivery: FollowOptions['delivery'], card: AgentCard): 'stream' | 'poll' {
  if (delivery === 'stream' || delivery === 'poll') return delivery;
  return card.capabilities.streaming ? 'stream' : 'poll';
}

async function remember(context: EngineContext, task: Pick<Task, 'id' | 'contextId'>, mode: 'stream' | 'poll'): Promise<void> {
  const now = context.scheduler.now();
  const record: TaskRecord = {
    schemaVersion: TASK_RECORD_VERSION,
    taskId: task.id,
    contextId: task.contextId,
    agentUrl: context.client.cardUrl,
    state: 'submitted',
    createdAt: now,
    updatedAt: now,
    delivery: mode,
  };
  await context.store.put(record);
}

/**
 * Sends a message and follows the task it creates. Resolves once the task id is in the store
 * (G1) — or with a message handle when the agent answered directly.
 */
export async function startTask(context: EngineContext, input: MessageInput, options: StartOptions = {}): Promise<TaskHandle> {
  const { delivery, inputTimeoutMs, cancelOnInputTimeout, ...send } = options;
  const follow: FollowOptions = { inputTimeoutMs, cancelOnInputTimeout };
  const client = context.client;
  const mode = chooseMode(delivery, client.card);
  const message = toMessage(input, context.newId);
  let handle: TaskHandle | undefined;
  let connection: Connection | undefined;

  const adopt = async (task: Task, gap: boolean, recovered: boolean): Promise<TaskHandle> => {
    const reconciler = new Reconciler(task.id, task.contextId);
    await remember(context, task, mode);
    const h = new TaskHandle(context, { kind: 'task', reconciler, mode, follow, gap });
    h.emitInitial(reconciler.applySnapshot(task, { recovered }));
    return h;
  };

  await retrySend(
    context,
    message,
    async () => {
      if (mode === 'poll') {
        const answer = await client.sendMessage(message, { ...send, returnImmediately: true });
        handle = answer.kind === 'message' ? new TaskHandle(context, { kind: 'message', message: answer }) : await adopt(answer, false, false);
        return;
      }
      const stream = client.streamMessage(message, send);
      const iterator = stream[Symbol.asyncIterator]();
      const first = await firstEvent(context, stream, iterator);
      if (first.done) throw new TetherError('STREAM_INTERRUPTED', 'the stream ended before its first event');
      const event = first.value;
      if (event.kind === 'message') {
        await iterator.return?.();
        handle = new TaskHandle(context, { kind: 'message', message: event });
        return;
      }
      const id = event.kind === 'task' ? event.id : event.taskId;
      const reconciler = new Reconciler(id, event.contextId);
      await remember(context, { id, contextId: event.contextId }, mode);
      handle = new TaskHandle(context, { kind: 'task', reconciler, mode, follow, gap: false });
      handle.emitInitial(reconciler.applyEvent(event, { eventId: stream.lastEventId }));
      connection = { stream, iterator, reconnect: false, delivered: 1 };
    },
    async () => {
      const found = await findDelivered(context, message);
      if (!found) return false;
      handle = await adopt(found, true, true);
      return true;
    },
  );
  const started = handle as TaskHandle;
  started.begin(connection);
  return started;
}

/** Follows a task again (after a restart, a detach, or from another process sharing the store). */
export async function resumeTask(context: EngineContext, taskId: string, options: ResumeOptions = {}): Promise<TaskHandle> {
  const client = context.client;
  const record = await context.store.get(taskId);
  if (record && record.agentUrl !== client.cardUrl) {
    throw new TetherError('INVALID_ARGUMENT', `task ${taskId} belongs to the agent at ${record.agentUrl}, not ${client.cardUrl}`, { taskId });
  }
  const mode = chooseMode(options.delivery ?? record?.delivery ?? 'auto', client.card);
  if (!record) await remember(context, { id: taskId, contextId: '' }, mode);
  const reconciler = new Reconciler(taskId, record?.contextId ?? '');
  const handle = new TaskHandle(context, {
    kind: 'task',
    reconciler,
    mode,
    follow: { inputTimeoutMs: options.inputTimeoutMs, cancelOnInputTimeout: options.cancelOnInputTimeout },
    gap: true,
  });
  handle.resumeFrom(record?.lastEventId);
  handle.begin();
  return handle;
}
