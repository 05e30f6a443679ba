import { randomUUID } from 'node:crypto';
import { Role, TaskState } from '@a2a-js/sdk';
import type { Message, Part, Task } from '@a2a-js/sdk';
import { AgentEvent } from '@a2a-js/sdk/server';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { ExecutionLog } from './official-server.js';
import type { ArtifactChunk, ScenarioRunner, ScenarioSink, ScenarioState } from './scenario.js';

const STATE: Record<ScenarioState, TaskState> = {
  submitted: TaskState.TASK_STATE_SUBMITTED,
  working: TaskState.TASK_STATE_WORKING,
  'input-required': TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
};

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(text: string, contextId: string, taskId: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function firstText(parts: readonly Part[]): string {
  for (const part of parts) {
    if (part.content?.$case === 'text') return part.content.value;
  }
  return '';
}

/**
 * Publishes one scenario turn as @a2a-js/sdk 1.3.0 events. In 1.3.0 the request handler
 * settles the bus when `execute` returns (and keeps it alive on input-required), so the
 * executor never calls `finished()`; every turn, follow-ups included, must start with a Task
 * or a Message or the handler rejects the stream.
 */
class V1Sink implements ScenarioSink {
  readonly #bus: ExecutionEventBus;
  readonly #context: RequestContext;

  constructor(bus: ExecutionEventBus, context: RequestContext) {
    this.#bus = bus;
    this.#context = context;
  }

  reply(text: string): void {
    // A stand-alone reply belongs to the context but to no task.
    this.#bus.publish(AgentEvent.message(agentMessage(text, this.#context.contextId, '')));
  }

  openTask(state: ScenarioState): void {
    const task: Task = {
      id: this.#context.taskId,
      contextId: this.#context.contextId,
      status: { state: STATE[state], message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [this.#context.userMessage],
      metadata: undefined,
    };
    this.#bus.publish(AgentEvent.task(task));
  }

  resumeTask(): void {
    const task = this.#context.task;
    if (task === undefined) throw new Error(`follow-up without a stored task ${this.#context.taskId}`);
    this.#bus.publish(AgentEvent.task(task));
  }

  status(state: ScenarioState, text?: string): void {
    publishStatus(this.#bus, this.#context.taskId, this.#context.contextId, state, text);
  }

  artifact(chunk: ArtifactChunk): void {
    this.#bus.publish(
      AgentEvent.artifactUpdate({
        taskId: this.#context.taskId,
        contextId: this.#context.contextId,
        artifact: {
          artifactId: chunk.artifactId,
          name: chunk.name,
          description: '',
          parts: [textPart(chunk.text)],
          metadata: undefined,
          extensions: [],
        },
        append: chunk.append,
        lastChunk: chunk.lastChunk,
        metadata: undefined,
      }),
    );
  }
}

function publishStatus(
  bus: ExecutionEventBus,
  taskId: string,
  contextId: string,
  state: ScenarioState,
  text?: string,
): void {
  bus.publish(
    AgentEvent.statusUpdate({
      taskId,
      contextId,
      status: {
        state: STATE[state],
        message: text === undefined ? undefined : agentMessage(text, contextId, taskId),
        timestamp: new Date().toISOString(),
      },
      metadata: undefined,
    }),
  );
}

export class V1ScenarioExecutor implements AgentExecutor {
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
      new V1Sink(bus, context),
    );
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    if (this.#runner.requestCancel(taskId)) return;
    // Nothing is looping (e.g. the task waits in input-required), yet the handler waits for
    // a terminal event on this bus after we return: publish it here.
    publishStatus(bus, taskId, this.#contextIds.get(taskId) ?? '', 'canceled', 'canceled while idle');
  };
}
