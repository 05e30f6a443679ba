import { randomUUID } from 'node:crypto';
import { A2A_ERROR_CODES, AgentError } from './agent-error.js';
import type { MisbehaviourSelection } from './misbehaviour.js';
import { firstText, isTerminal } from './model.js';
import type { TestMessage, TestPart, TestTaskState } from './model.js';
import { ScenarioError, parseScenarioCommand } from './scenario.js';
import type { ScenarioArtifactInput, ScenarioContext, ScenarioFn, ScenarioStatusOptions } from './scenario.js';
import type { TaskEntry, TaskObserver, TaskRegistry, TaskRun } from './task-registry.js';

interface Waiter {
  resolve(text: string): void;
  reject(reason: unknown): void;
}

/** Thrown inside scenarios (by sleep/waitForInput, or status calls after close) when they must stop. */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('Aborted', 'AbortError');
}

/**
 * One execution of a scenario script: it owns the script's cancellation signal, its input queue for
 * follow-up messages, and the task it creates (if any). It outlives stream connections, so the task keeps
 * going while the agent is stopped.
 */
export class ScenarioRun implements TaskRun {
  entry: TaskEntry | undefined;
  /** False once the script returned or threw. */
  active = true;
  /** Resolves when the script has finished and its outcome was applied. */
  done: Promise<void> = Promise.resolve();
  private readonly controller = new AbortController();
  private readonly pending = new Set<TaskObserver>();
  private readonly inputs: string[] = [];
  private readonly waiters: Waiter[] = [];
  private replied = false;
  private canceled = false;

  constructor(
    private readonly registry: TaskRegistry,
    private readonly scenarioName: string,
    private readonly scenario: ScenarioFn,
    private readonly userMessage: TestMessage,
    readonly taskId: string,
    readonly contextId: string,
    /** Misbehaviours the user message selected for the task this run creates. */
    private readonly misbehaviour?: MisbehaviourSelection,
  ) {}

  /** Follow this run; moves to the task's observers once the task exists. Returns an unsubscribe function. */
  observe(observer: TaskObserver): () => void {
    if (this.entry !== undefined) {
      const entry = this.entry;
      entry.observers.add(observer);
      return () => entry.observers.delete(observer);
    }
    this.pending.add(observer);
    return () => {
      this.pending.delete(observer);
      this.entry?.observers.delete(observer);
    };
  }

  /** Run the script. Its synchronous part (up to the first await) runs before this returns. */
  start(): void {
    this.registry.trackRun(this);
    this.done = this.execute();
  }

  /** Deliver a follow-up message's text to waitForInput(). */
  pushInput(text: string): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) waiter.resolve(text);
    else this.inputs.push(text);
  }

  /** CancelTask: abort the script's signal; the task ends canceled unless the script reaches another end. */
  cancel(): void {
    this.canceled = true;
    this.controller.abort(new DOMException('Task canceled', 'AbortError'));
  }

  /** Agent closing: stop the script without touching state. */
  abort(reason: string): void {
    this.controller.abort(new DOMException(reason, 'AbortError'));
  }

  private async execute(): Promise<void> {
    const { params } = parseScenarioCommand(firstText(this.userMessage));
    const ctx = this.context(params);
    let endError: AgentError | undefined;
    try {
      await this.scenario(ctx);
      if (this.canceled) this.finishCanceled();
    } catch (error) {
      endError = this.outcomeOf(error);
    } finally {
      this.active = false;
      const signal = this.controller.signal;
      for (const waiter of this.waiters.splice(0)) waiter.reject(abortReason(signal));
      this.registry.untrackRun(this);
    }
    if (this.registry.closed) return;
    if (this.entry === undefined && !this.replied && endError === undefined) {
      endError = new AgentError(
        A2A_ERROR_CODES.internalError,
        `Scenario "${this.scenarioName}" ended without a message or a task`,
      );
    }
    const observers = this.entry !== undefined ? this.entry.observers : this.pending;
    for (const observer of [...observers]) observer.end?.(endError);
  }

  /** Apply what a throw means; returns a protocol error to hand to observers, if any. */
  private outcomeOf(error: unknown): AgentError | undefined {
    if (this.registry.closed) return undefined;
    if (error instanceof ScenarioError) return new AgentError(error.code, error.message);
    if (this.canceled && error === this.controller.signal.reason) {
      this.finishCanceled();
      return undefined;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (this.entry === undefined) {
      return new AgentError(A2A_ERROR_CODES.internalError, `Scenario "${this.scenarioName}" failed: ${message}`);
    }
    if (!isTerminal(this.entry.status.state)) this.registry.setStatus(this.entry, 'failed', this.agentMessage(message));
    return undefined;
  }

  private finishCanceled(): void {
    if (this.entry !== undefined && !isTerminal(this.entry.status.state)) {
      this.registry.setStatus(this.entry, 'canceled');
    }
  }

  private agentMessage(text: string, metadata?: Record<string, unknown>): TestMessage {
    const message: TestMessage = {
      messageId: randomUUID(),
      role: 'agent',
      parts: [{ kind: 'text', text }],
      taskId: this.taskId,
      contextId: this.contextId,
    };
    if (metadata !== undefined) message.metadata = metadata;
    return message;
  }

  private assertOpen(): void {
    if (this.registry.closed) throw abortReason(this.controller.signal);
  }

  /** The task, created in `submitted` on first use. */
  private ensureTask(statusMessage?: TestMessage): TaskEntry {
    if (this.entry !== undefined) {
      if (isTerminal(this.entry.status.state)) {
        throw new Error(`Task ${this.taskId} is already ${this.entry.status.state}`);
      }
      return this.entry;
    }
    if (this.replied) throw new Error('This run already answered with a message; it cannot create a task');
    const userMessage: TestMessage = { ...this.userMessage, taskId: this.taskId, contextId: this.contextId };
    const observers = [...this.pending];
    this.pending.clear();
    this.entry = this.registry.create(this.taskId, this.contextId, userMessage, statusMessage, observers, this, this.misbehaviour);
    return this.entry;
  }

  private context(params: Record<string, string>): ScenarioContext {
    const signal = this.controller.signal;
    return {
      task: { id: this.taskId, contextId: this.contextId },
      text: firstText(this.userMessage),
      params,
      userMessage: this.userMessage,
      cancelled: signal,
      status: (state: TestTaskState, messageText?: string, options?: ScenarioStatusOptions) => {
        this.assertOpen();
        const metadata = options?.metadata;
        const message =
          messageText === undefined && metadata === undefined
            ? undefined
            : this.agentMessage(messageText ?? '', metadata);
        if (this.entry === undefined && state === 'submitted') {
          this.ensureTask(message);
          return;
        }
        const entry = this.ensureTask();
        this.registry.setStatus(entry, state, message);
      },
      artifact: (input: ScenarioArtifactInput) => {
        this.assertOpen();
        const entry = this.ensureTask();
        const parts: TestPart[] = input.parts ?? (input.text !== undefined ? [{ kind: 'text', text: input.text }] : []);
        if (parts.length === 0) throw new Error('An artifact needs `parts` or `text`');
        const artifact = {
          artifactId: input.artifactId,
          parts,
          name: input.name,
          description: input.description,
          metadata: input.metadata,
        };
        this.registry.addArtifact(entry, artifact, input.append === true, input.lastChunk === true);
      },
      message: (text: string) => {
        this.assertOpen();
        if (this.entry !== undefined) throw new Error('ctx.message() is for Message replies; this run already created a task');
        if (this.replied) throw new Error('ctx.message() may only be called once');
        this.replied = true;
        const reply: TestMessage = {
          messageId: randomUUID(),
          role: 'agent',
          parts: [{ kind: 'text', text }],
          contextId: this.contextId,
        };
        for (const observer of [...this.pending]) observer.message?.(reply);
      },
      waitForInput: () => {
        if (signal.aborted) return Promise.reject(abortReason(signal));
        const queued = this.inputs.shift();
        if (queued !== undefined) return Promise.resolve(queued);
        return new Promise<string>((resolve, reject) => {
          const onAbort = (): void => {
            const index = this.waiters.indexOf(waiter);
            if (index >= 0) this.waiters.splice(index, 1);
            reject(abortReason(signal));
          };
          const waiter: Waiter = {
            resolve: (text) => {
              signal.removeEventListener('abort', onAbort);
              resolve(text);
            },
            reject,
          };
          signal.addEventListener('abort', onAbort, { once: true });
          this.waiters.push(waiter);
        });
      },
      sleep: (ms: number) =>
        new Promise<void>((resolve, reject) => {
          if (signal.aborted) {
            reject(abortReason(signal));
            return;
          }
          const sleeps = this.registry.sleeps;
          const onAbort = (): void => {
            clearTimeout(timer);
            sleeps.delete(timer);
            reject(abortReason(signal));
          };
          const timer = setTimeout(() => {
            sleeps.delete(timer);
            signal.removeEventListener('abort', onAbort);
            resolve();
          }, ms);
          sleeps.add(timer);
          signal.addEventListener('abort', onAbort, { once: true });
        }),
    };
  }
}
