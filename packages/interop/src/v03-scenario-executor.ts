import { randomUUID } from 'node:crypto';
import type { Message, Part, Task, TaskStatusUpdateEvent } from 'a2a-sdk-v03';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from 'a2a-sdk-v03/server';
import type { ExecutionLog } from './official-server.js';
import type { ArtifactChunk, ScenarioRunner, ScenarioSink, ScenarioState } from './scenario.js';

/** v0.3 ends a stream on `final: true`, which it also sets on input-required. */
const FINAL_STATES: ReadonlySet<ScenarioState> = new Set(['input-required', 'completed', 'failed', 'canceled', 'rejected']);

function agentMessage(text: string, contextId: string, taskId?: string): Message {
  return {
    kind: 'message',
    messageId: randomUUID(),
    role: 'agent',
    parts: [{ kind: 'text', text }],
    contextId,
    ...(taskId === undefined ? {} : { taskId }),
  };
}

function firstText(parts: readonly Part[]): string {
  for (const part of parts) {
    if (part.kind === 'text') return part.text;
  }
  return '';
}

function statusEvent(taskId: string, contextId: string, state: ScenarioState, text?: string): TaskStatusUpdateEvent {
  return {
    kind: 'status-update',
    taskId,
    contextId,
    status: {
      state,
      timestamp: new Date().toISOString(),
      ...(text === undefined ? {} : { message: agentMessage(text, contextId, taskId) }),
    },
    final: FINAL_STATES.has(state),
  };
}

/**
 * Publishes one scenario turn as @a2a-js/sdk 0.3.14 events. In 0.3 the executor owns the
 * bus lifecycle: it calls `finished()` after its last event (the SDK samples do the same).
 * A follow-up turn starts with a status-update and no Task, as typical v0.3 agents do.
 */
class V03Sink implements ScenarioSink {
  readonly #bus: ExecutionEventBus;
  readonly #context: RequestContext;

  constructor(bus: ExecutionEventBus, context: RequestContext) {
    this.#bus = bus;
    this.#context = context;
  }

  reply(text: string): void {
    this.#bus.publish(agentMessage(text, this.#context.contextId));
    this.#bus.finished();
  }

  openTask(state: ScenarioState): void {
    const task: Task = {
      kind: 'task',
      id: this.#context.taskId,
      contextId: this.#context.contextId,
      status: { state, timestamp: new Date().toISOString() },
      history: [this.#context.userMessage],
      artifacts: [],
    };
    this.#bus.publish(task);
  }

  resumeTask(): void {}

  status(state: ScenarioState, text?: string): void {
    const event = statusEvent(this.#context.taskId, this.#context.contextId, state, text);
    this.#bus.publish(event);
    if (event.final) this.#bus.finished();
  }

  artifact(chunk: ArtifactChunk): void {
    this.#bus.publish({
      kind: 'artifact-update',
      taskId: this.#context.taskId,
      contextId: this.#context.contextId,
      artifact: { artifactId: chunk.artifactId, name: chunk.name, parts: [{ kind: 'text', text: chunk.text }] },
      append: chunk.append,
      lastChunk: chunk.lastChunk,
    });
  }
}

export class V03ScenarioExecutor implements AgentExecutor {
  readonly #runner: ScenarioRunner;
  readonly #log: ExecutionLog;
  /** cancelTask only receives a taskId, but a status update also needs the contextId. */
  readonly #contextIds = new Map<string, string>();

  constructor(runner: ScenarioRunner, log: ExecutionLog) {
    this.#runner = runner;
    this.#log = log;
  }

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const message = context.userMessage;
    this.#log.record(message.messageId);
    this.#contextIds.set(context.taskId, context.contextId);
    await this.#runner.run(
      { taskId: context.taskId, text: firstText(message.parts), followUp: context.task !== undefined },
      new V03Sink(bus, context),
    );
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    if (this.#runner.requestCancel(taskId)) return;
    // Nothing is looping, yet the handler drains this bus until a final event: publish it here.
    bus.publish(statusEvent(taskId, this.#contextIds.get(taskId) ?? '', 'canceled', 'canceled while idle'));
    bus.finished();
  };
}
