import type { Message, Metadata, Part } from '../model/types.js';
import { TetherError } from '../errors/tether-error.js';

/**
 * What you can pass where a message is expected: a string (one text part), or a message
 * whose `messageId`, `role` (`user`) and `kind` may be omitted. `text` is a shortcut for one
 * text part (added after `parts`, if both are given).
 */
export type MessageInput =
  | string
  | {
      parts?: Part[] | undefined;
      text?: string | undefined;
      messageId?: string | undefined;
      role?: 'user' | 'agent' | undefined;
      taskId?: string | undefined;
      contextId?: string | undefined;
      metadata?: Metadata | undefined;
      extensions?: string[] | undefined;
      referenceTaskIds?: string[] | undefined;
    };

/** Builds a full Message; a missing `messageId` gets a fresh one (reused on retries by the caller). */
export function toMessage(input: MessageInput, newId: () => string): Message {
  if (typeof input === 'string') {
    return { kind: 'message', messageId: newId(), role: 'user', parts: [{ kind: 'text', text: input }] };
  }
  const parts: Part[] = [...(input.parts ?? [])];
  if (input.text !== undefined) parts.push({ kind: 'text', text: input.text });
  if (parts.length === 0) throw new TetherError('INVALID_ARGUMENT', 'a message needs at least one part (or `text`)');
  const message: Message = { kind: 'message', messageId: input.messageId ?? newId(), role: input.role ?? 'user', parts };
  if (input.taskId !== undefined) message.taskId = input.taskId;
  if (input.contextId !== undefined) message.contextId = input.contextId;
  if (input.metadata !== undefined) message.metadata = input.metadata;
  if (input.extensions !== undefined) message.extensions = input.extensions;
  if (input.referenceTaskIds !== undefined) message.referenceTaskIds = input.referenceTaskIds;
  return message;
}

/** A random UUID (crypto.randomUUID where available). */
export function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  // Fallback for old runtimes: RFC 4122 v4 layout from Math.random (ids, not secrets).
  return 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, (ch) => {
    const r = (Math.random() * 16) | 0;
    return (ch === 'x' ? r : (r & 0x3) | 0x8).toString(16);
  });
}
