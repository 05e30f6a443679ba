import type { TaskState } from '@a2a-tether/core';

/** `data-a2a-status` (id `status`, updated in place): the task's state and the agent's status text. Progress, not answer text. */
export interface A2AStatusData {
  taskId: string;
  contextId: string;
  state: TaskState;
  /** The text of the agent's status message, when it has one. */
  text?: string | undefined;
}

/**
 * `data-a2a-pause` (id `pause`): the task waits for the user. The message ends here; the chat's next
 * user message is sent to this task as the answer.
 */
export interface A2APauseData {
  taskId: string;
  contextId: string;
  state: 'input-required' | 'auth-required';
  /** The agent's question (its status message's text), when it asked one. */
  text?: string | undefined;
}

/** `data-a2a` (id `<artifactId or messageId>:<index>`): one data part of an artifact or an agent message. */
export interface A2AData {
  artifactId?: string | undefined;
  messageId?: string | undefined;
  /** The part's index among the data parts of its artifact (or among the parts of its message). */
  index: number;
  data: unknown;
}

/**
 * The data parts this transport writes, for typing your messages:
 * `UIMessage<unknown, A2AUIDataTypes>` (see the AI SDK's `UIMessage`).
 */
export type A2AUIDataTypes = {
  'a2a-status': A2AStatusData;
  'a2a-pause': A2APauseData;
  a2a: A2AData;
};
