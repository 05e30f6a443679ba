import type { Message, Metadata, Part } from '../model/types.js';
import { TetherError } from '../errors/tether-error.js';

/**
 * What you can pass where a message is expected: a string (one text part), or a message
 * whose `messageId`, `role` (`user`) and `kind` may be omitted. `text` is a shortcut for one
 * text part (added after `parts`, if both are given).
 *
 * A message must have something to say: an empty string, a message without parts, and a
 * message whose only parts are empty text parts are `INVALID_ARGUMENT` (nothing is sent).
 * Whitespace counts as content, and an empty text part beside a file or data part is sent as given.
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

/**
 * Builds a full Message; a missing `messageId` gets a fresh one (reused on retries by the caller).
 *
 * @throws TetherError `INVALID_ARGUMENT` for a message with nothing to say (see {@link MessageInput}).
 */
export function toMessage(input: MessageInput, newId: () => string): Message {
  const fields = typeof input === 'string' ? { text: input } : input;
  const parts: Part[] = [...(fields.parts ?? [])];
  if (fields.text !== undefined) parts.push({ kind: 'text', text: fields.text });
  if (parts.every((p) => p.kind === 'text' && p.text === '')) {
    throw new TetherError('INVALID_ARGUMENT', 'a message needs some content: a non-empty text, or a file or data part');
  }
  if (typeof input === 'string') return { kind: 'message', messageId: newId(), role: 'user', parts };
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
