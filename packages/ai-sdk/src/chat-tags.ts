import type { TaskRecord } from '@a2a-tether/core';
import type { ShownMark } from './chunk-mapper.js';

/** The longest tag value `start()` takes (core refuses longer ones with INVALID_ARGUMENT, nothing sent). */
const MAX_TAG_LENGTH = 1024;

/**
 * The tags a turn's task carries in its record (never sent to the agent), so that a chat's tasks are
 * found again after a reload through `client.tasks()`.
 */
export const CHAT_TAGS = {
  /** The chat id (`useChat`'s `id`). */
  chat: 'chatId',
  /** The id of the UI message of the user's latest message to the task (the turn, then each answer to a pause). */
  turn: 'userMessageId',
  /** The prompt, cut to fit a tag. */
  prompt: 'prompt',
  /** How many answers to pauses the task was sent: its assistant messages are numbered by it. */
  replies: 'replies',
  /** What the assistant messages before the latest answer showed of each artifact (JSON: per artifact, what was shown of it). */
  shown: 'shown',
} as const;

/** Text cut to fit a tag, on a character boundary. */
export function fitTag(text: string): string {
  if (text.length <= MAX_TAG_LENGTH) return text;
  const cut = MAX_TAG_LENGTH - 1;
  const high = text.charCodeAt(cut - 1);
  return `${text.slice(0, high >= 0xd800 && high <= 0xdbff ? cut - 1 : cut)}…`;
}

/** The tags of a new turn's task. */
export function turnTags(chatId: string, userMessageId: string, prompt: string): Record<string, string> {
  return { [CHAT_TAGS.chat]: fitTag(chatId), [CHAT_TAGS.turn]: fitTag(userMessageId), [CHAT_TAGS.prompt]: fitTag(prompt) };
}

/** The latest task of a chat among a client's records (oldest first), if any. */
export function latestTurn(records: readonly TaskRecord[], chatId: string): TaskRecord | undefined {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i];
    if (record?.tags?.[CHAT_TAGS.chat] === fitTag(chatId)) return record;
  }
  return undefined;
}

/** How many answers to pauses a task's record counts. */
export function repliesOf(record: TaskRecord | undefined): number {
  const n = Number(record?.tags?.[CHAT_TAGS.replies] ?? '0');
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * What earlier assistant messages of the task showed. A mark too long for one tag is not kept (`{}`):
 * after a reload, the message after such a pause shows those artifacts whole again.
 */
export function shownOf(record: TaskRecord | undefined): ShownMark {
  const raw = record?.tags?.[CHAT_TAGS.shown];
  if (raw === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    const mark: Record<string, [number, number, number]> = {};
    for (const [id, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (Array.isArray(value) && value.length === 3 && value.every((n) => Number.isInteger(n) && (n as number) >= 0)) {
        mark[id] = value as [number, number, number];
      }
    }
    return mark;
  } catch {
    return {};
  }
}

/** The tags a task gets when the user answers its pause: the answer's number, its UI message id, what was shown so far. */
export function replyTags(record: TaskRecord | undefined, userMessageId: string, replies: number, shown: ShownMark): Record<string, string> {
  const json = JSON.stringify(shown);
  const tags: Record<string, string> = { ...record?.tags, [CHAT_TAGS.turn]: fitTag(userMessageId), [CHAT_TAGS.replies]: String(replies) };
  if (json.length <= MAX_TAG_LENGTH) tags[CHAT_TAGS.shown] = json;
  else delete tags[CHAT_TAGS.shown];
  return tags;
}

/** The id of the assistant message for a task's answer: the task's, and after the n-th answer to a pause, numbered. */
export function assistantMessageId(taskId: string, replies: number): string {
  return replies === 0 ? `a2a-${taskId}` : `a2a-${taskId}-${replies}`;
}
