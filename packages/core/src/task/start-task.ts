import { TetherError } from '../errors/tether-error.js';
import { toMessage, type MessageInput } from '../model/message-input.js';
import type { SendOptions } from '../transport/transport.js';
import type { FollowContext } from './follow-context.js';
import { TaskFollower, type DeliveryMode, type FollowOptions } from './follower.js';
import { canLease, isActiveRecord, TASK_RECORD_VERSION, type TaskRecord } from '../store/task-store.js';
import { taskKey } from '../store/task-key.js';
import { TaskHandle } from './task-handle.js';
import { storeWriteFailed } from './store-writer.js';
import { compactEvents } from './event-merge.js';
import type { Compaction } from './event-queue.js';
import type { Task } from '../model/types.js';
import type { FollowerSink } from './follow-types.js';
import { checkTags } from './tags.js';
import { leaseHeld } from './follow-records.js';
import type { TaskEvent } from './task-event.js';
import { FollowTrace, TaskWatch } from '../observe/task-watch.js';
import { monotonicNow } from '../util/monotonic-now.js';

/**
 * What the engine reports to a task's handle: the follower exists before its handle, so the handle is
 * set on its sink once made. One object, no closure per report.
 */
class HandleSink implements FollowerSink {
  handle: TaskHandle | undefined;
  follower: TaskFollower | undefined;
  constructor(readonly watch: TaskWatch) {}
  emit(events: TaskEvent[]): void {
    this.handle?.onEvents(events);
    const view = this.follower?.view;
    if (view) this.watch.events(events, view.taskId, view.contextId);
  }
  finished(task: Task): void {
    this.handle?.onFinished(task);
    this.watch.finished(task);
  }
  failed(error: TetherError): void {
    this.handle?.onFailed(error);
    if (error.code === 'LEASE_LOST') this.watch.lease('lost', this.follower?.view, undefined, error.message);
  }
  leased(fence: number | undefined): void {
    this.watch.lease('taken', this.follower?.view, fence);
  }
}

/** Options of `client.start()`. */
export type StartOptions = Omit<SendOptions, 'returnImmediately'> & FollowOptions;

/** Options of `client.resume()`. */
export type ResumeOptions = FollowOptions;

/** How to follow: what the caller asked for, what the client has (a push receiver), what the card says. */
function chooseMode(context: FollowContext, delivery: FollowOptions['delivery']): DeliveryMode {
  const agent = context.client.agent;
  if (delivery === 'push') {
    if (!context.push) {
      throw new TetherError('INVALID_ARGUMENT', "delivery 'push' needs a push receiver: connect(url, { push: { receiver, url } })", { maybeDelivered: false });
    }
    if (!agent.push) {
      throw new TetherError('UNSUPPORTED_OPERATION', `the agent's card does not offer push notifications (capabilities.pushNotifications); use 'auto', 'stream' or 'poll'`, {
        maybeDelivered: false,
      });
    }
    return 'push';
  }
  if ((delivery === undefined || delivery === 'auto') && context.push && agent.push) return 'push';
  if (delivery === 'poll' || !agent.streaming) return 'poll';
  return 'stream';
}

/** A follow that keeps no artifact parts cannot resync its events from its view: its buffer merges them instead. */
function compactionFor(keepArtifacts: boolean | undefined): Compaction | undefined {
  return keepArtifacts === false ? compactEvents : undefined;
}

/** Tabs send a tab that joins late the artifacts, so a follow under a coordinator must keep them. */
function refuseUnkeptWithTabs(context: FollowContext, keepArtifacts: boolean | undefined): void {
  if (keepArtifacts === false && context.coordinator) {
    throw new TetherError('INVALID_ARGUMENT', 'keepArtifacts: false does not work with tabs (a tab that joins late is sent the kept artifacts)', {
      maybeDelivered: false,
    });
  }
}

/**
 * Sends a message and follows the task it creates. Resolves once the task id is in the store
 * (G1) — or with a message handle when the agent answered directly.
 */
export async function startTask(context: FollowContext, input: MessageInput, options: StartOptions = {}): Promise<TaskHandle> {
  const { delivery, inputTimeoutMs, cancelOnInputTimeout, onResend, keepArtifacts, traceContext, parentTaskId, tags, ...send } = options;
  refuseUnkeptWithTabs(context, keepArtifacts);
  checkTags(tags);
  const message = toMessage(input, context.newId);
  const sink = watchedSink(context, traceContext, parentTaskId, message.messageId);
  const follower = new TaskFollower(context, sink, { delivery, inputTimeoutMs, cancelOnInputTimeout, onResend, keepArtifacts, traceContext: sink.watch.trace, parentTaskId, tags });
  // The handle exists before the send, so the first events (read while the send is answered) reach it.
  const handle = (sink.handle = new TaskHandle(context, follower, undefined, compactionFor(keepArtifacts), sink.watch));
  sink.follower = follower;
  const ack = await follower.start(message, chooseMode(context, delivery), { ...send, traceContext: sink.watch.trace });
  if (ack.kind === 'message') return new TaskHandle(context, undefined, ack.message);
  try {
    await follower.stored;
  } catch (error) {
    // G1 cannot hold: the app would hold a task nothing remembers. Stop following; the error names the
    // task (it runs on at the agent: resume or cancel it once the store works).
    follower.detach();
    throw storeWriteFailed(follower.taskId ?? '', error);
  }
  // Tabs: the task is new, so its claim leads (its stream is this tab's); the others can mirror it.
  if (context.coordinator && follower.taskId !== undefined) follower.lead(await context.coordinator.claim(follower.taskId));
  return handle;
}

/** A follow's sink, with what it tells the client's plugins and listeners, and the trace its requests continue. */
function watchedSink(context: FollowContext, traceContext: StartOptions['traceContext'], parentTaskId: string | undefined, messageId?: string): HandleSink {
  return new HandleSink(new TaskWatch(context.watch, new FollowTrace(traceContext), parentTaskId, messageId));
}

/**
 * A record whose state is terminal but has no outcome: its driver saw the task end, but its last write
 * (the outcome) did not land before the lease passed on — taking the lease fenced that write out. The
 * new holder writes the outcome (and the retention) in its stead. Best effort: a store failure here
 * leaves the record as it was, terminal and not active.
 */
async function recordEnd(context: FollowContext, record: TaskRecord, fence: number | undefined): Promise<void> {
  const now = context.scheduler.now();
  const state = record.state;
  await context.store
    .update(
      taskKey(record.agentUrl, record.taskId),
      (current) =>
        current && current.outcome === undefined && current.state === state
          ? { ...current, outcome: { kind: 'finished', state, at: now }, expiresAt: now + context.retentionMs, updatedAt: now }
          : current,
      fence === undefined ? undefined : { fence },
    )
    .catch(() => undefined);
}

/**
 * Follows a task again (after a restart, a detach, or from another process sharing the store). With a
 * store that leases tasks, only while this client holds the task's lease: `skipLeased` resolves
 * `undefined` when another process holds it (for `resumeAll()`); otherwise that is `LEASE_HELD`.
 */
export async function resumeTask(context: FollowContext, taskId: string, options: ResumeOptions, how: { skipLeased: true }): Promise<TaskHandle | undefined>;
export async function resumeTask(context: FollowContext, taskId: string, options?: ResumeOptions): Promise<TaskHandle>;
export async function resumeTask(
  context: FollowContext,
  taskId: string,
  options: ResumeOptions = {},
  how: { skipLeased?: boolean } = {},
): Promise<TaskHandle | undefined> {
  const { client, store, scheduler } = context;
  if (taskId === '') throw new TetherError('INVALID_ARGUMENT', 'a task id is needed', { maybeDelivered: false });
  refuseUnkeptWithTabs(context, options.keepArtifacts);
  // Several processes share the store: the lease first, then the record, read as its holder (a former
  // holder's later writes are fenced out, so what is read here is not overwritten by one).
  const asked = monotonicNow(scheduler);
  // The record and the lease are this agent's task's: another agent's task of the same id is another task (G11).
  const key = taskKey(client.agent.url, taskId);
  const lease = canLease(store) ? await store.lease(key, context.owner) : undefined;
  if (canLease(store) && !lease) {
    if (how.skipLeased) return undefined;
    throw await leaseHeld(context, taskId);
  }
  const release = (): void => void lease?.release().catch(() => undefined);
  let record: TaskRecord | undefined;
  try {
    record = await store.get(key);
  } catch (error) {
    release();
    throw error;
  }
  if (record && record.principal !== context.principal) {
    release();
    throw new TetherError(
      'PRINCIPAL_MISMATCH',
      `task ${taskId} was started by another principal than this client's (${context.principal === undefined ? 'none' : JSON.stringify(context.principal)})`,
      { taskId, maybeDelivered: false },
    );
  }
  // resumeAll() listed it as active, but another process finished it meanwhile: nothing to follow.
  if (how.skipLeased && record && !isActiveRecord(record)) {
    if (record.outcome === undefined && lease) await recordEnd(context, record, lease.fence);
    release();
    return undefined;
  }
  const recorded = record?.delivery === 'push' && !(context.push && client.agent.push) ? undefined : record?.delivery;
  let mode: DeliveryMode;
  try {
    // A task its record says finished (a task list shown again after a reload): one GetTask, no stream.
    const finished = record?.outcome?.kind === 'finished' && options.delivery === undefined;
    mode = chooseMode(context, finished ? 'poll' : (options.delivery ?? recorded ?? 'auto'));
    if (!record) {
      const now = scheduler.now();
      await store.put(
        {
          schemaVersion: TASK_RECORD_VERSION,
          taskId,
          contextId: '',
          agentUrl: client.agent.url,
          state: 'submitted',
          createdAt: now,
          updatedAt: now,
          delivery: mode,
          ...(context.principal === undefined ? {} : { principal: context.principal }),
        },
        lease?.fence === undefined ? undefined : { fence: lease.fence },
      );
    }
  } catch (error) {
    release();
    throw error;
  }
  // A task followed again continues the trace of its first request, and keeps naming its parent.
  const sink = watchedSink(context, options.traceContext ?? record?.trace, options.parentTaskId ?? record?.parentTaskId);
  const follower = new TaskFollower(context, sink, { ...options, traceContext: sink.watch.trace }, {
    taskId,
    contextId: record?.contextId ?? '',
    lastEventId: record?.lastEventId,
    mode,
    pushConfigId: record?.pushConfigId,
  });
  const handle = (sink.handle = new TaskHandle(context, follower, undefined, compactionFor(options.keepArtifacts), sink.watch));
  sink.follower = follower;
  if (lease) follower.holdLease(lease, asked);
  if (context.coordinator) {
    // Tabs: drive the task if no other tab does; else mirror the one that does, and take over when it goes.
    const claim = await context.coordinator.claim(taskId);
    if (!claim.leading) {
      follower.mirror(claim);
      return handle;
    }
    follower.lead(claim);
  }
  follower.resume();
  return handle;
}
