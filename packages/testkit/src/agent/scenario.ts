import type { TestMessage, TestPart, TestTaskState } from './model.js';

/** What a scenario passes to `ctx.artifact(...)`. Give `parts`, or `text` for a single text part. */
export interface ScenarioArtifactInput {
  artifactId: string;
  name?: string | undefined;
  description?: string | undefined;
  parts?: TestPart[] | undefined;
  text?: string | undefined;
  /** Add these parts to the artifact with the same id instead of replacing it. */
  append?: boolean | undefined;
  /** Marks the artifact complete. */
  lastChunk?: boolean | undefined;
  /**
   * The artifact's `metadata`. With `append`, these keys are merged over the stored artifact's metadata
   * (and the update event carries just these).
   */
  metadata?: Record<string, unknown> | undefined;
}

/** Options of {@link ScenarioContext.status}. */
export interface ScenarioStatusOptions {
  /**
   * The agent status message's `metadata`. Given without `messageText`, the status still gets a message:
   * one empty text part (`''`) carrying this metadata.
   */
  metadata?: Record<string, unknown> | undefined;
}

/**
 * The API a scenario script drives the fake agent with.
 *
 * The task (`task.id`, `task.contextId`) is reserved up front but only exists on the wire once the
 * scenario calls {@link ScenarioContext.status} or {@link ScenarioContext.artifact} for the first time
 * (it is created in `submitted`). A scenario that calls {@link ScenarioContext.message} first answers
 * with a Message and creates no task.
 */
export interface ScenarioContext {
  /** Ids reserved for the task this run creates (if it creates one). */
  readonly task: { readonly id: string; readonly contextId: string };
  /** The first text part of the user message that started the run. */
  readonly text: string;
  /** `key=value` pairs that followed the scenario name in {@link ScenarioContext.text}. */
  readonly params: Readonly<Record<string, string>>;
  /** The user message that started the run. */
  readonly userMessage: TestMessage;
  /**
   * Move the task to `state`, with an agent status message when `messageText` (or `options.metadata`)
   * is given; `options.metadata` becomes that message's `metadata`.
   */
  status(state: TestTaskState, messageText?: string, options?: ScenarioStatusOptions): void;
  /** Emit an artifact update. */
  artifact(input: ScenarioArtifactInput): void;
  /** Answer with an agent Message instead of a task. Only allowed before the task exists. */
  message(text: string): void;
  /**
   * Wait for the next follow-up message (same taskId) and resolve with its first text part.
   * Rejects when the task is canceled or the agent closed.
   */
  waitForInput(): Promise<string>;
  /** Sleep on a real timer; rejects when the task is canceled or the agent closed. */
  sleep(ms: number): Promise<void>;
  /**
   * Aborted when the task is canceled (CancelTask) or the agent closes.
   *
   * Cancel is cooperative: CancelTask aborts this signal, which makes {@link ScenarioContext.sleep} and
   * {@link ScenarioContext.waitForInput} reject, and the task ends `canceled` when the script then stops.
   * A script that uses neither (it waits on its own timer) and keeps calling `status`/`artifact` ignores
   * the cancel: CancelTask answers with the task as it is after `cancelWaitMs`, and the task ends in
   * whatever state the script gives it (e.g. `completed`). Only a closed agent makes those calls throw.
   */
  readonly cancelled: AbortSignal;
}

/** A scenario script. Selected by the first word of the user message's first text part. */
export type ScenarioFn = (ctx: ScenarioContext) => Promise<void> | void;

/**
 * Throw from a scenario to make the agent answer with a protocol error instead of a task update:
 * a unary call gets the error response, an open stream gets an `event: error` frame and ends (or a plain
 * JSON error if no event was sent yet). The task's state is left as it was, like a crashed agent.
 */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';

  constructor(
    /** JSON-RPC / A2A error code, e.g. -32603. */
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A parsed scenario command: `<name> key=value key=value …`. */
export interface ScenarioCommand {
  name: string;
  params: Record<string, string>;
}

/** Split `stream updates=3 chunks=5` into name and params; words without `=` are ignored. */
export function parseScenarioCommand(text: string): ScenarioCommand {
  const words = text.trim().split(/\s+/);
  const name = words[0] ?? '';
  const params: Record<string, string> = {};
  for (const word of words.slice(1)) {
    const eq = word.indexOf('=');
    if (eq > 0) params[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return { name, params };
}
