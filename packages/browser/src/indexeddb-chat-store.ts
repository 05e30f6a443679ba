import { TetherError } from '@a2a-tether/core';
import { createStore, del, get, set } from 'idb-keyval';

/** Options of {@link createIndexedDbChatStore}. */
export interface IndexedDbChatStoreOptions {
  /**
   * The task store's database name (default `tether`): the messages live beside its records, in the
   * database `<dbName>-chats` (an IndexedDB database's object stores are fixed when it is created).
   */
  dbName?: string | undefined;
}

/** A chat's messages in IndexedDB, kept whole per chat id (the AI SDK transport's `messages` store). */
export interface IndexedDbChatStore<M = unknown> {
  /** The chat's messages, oldest first; `undefined` for a chat never kept. */
  get(chatId: string): Promise<M[] | undefined>;
  /** Keeps the chat's messages, replacing what was kept. */
  set(chatId: string, messages: M[]): Promise<void>;
  /** Forgets the chat's messages (a "new chat" button). */
  delete(chatId: string): Promise<void>;
}

/**
 * The messages of each chat in the browser's IndexedDB, beside the task records, so that a reload shows
 * the whole chat — the user's messages, the answers, a pause's question — as the AI SDK's `UIMessage`s:
 * `new A2AChatTransport({ client, messages: createIndexedDbChatStore<ChatMessage>({ dbName }) })`.
 * Every tab of the origin shares them. A failure of the database is a typed `STORE_READ_FAILED` /
 * `STORE_WRITE_FAILED` (the transport goes on without keeping; `loadMessages` rejects with it).
 */
export function createIndexedDbChatStore<M = unknown>(options: IndexedDbChatStoreOptions = {}): IndexedDbChatStore<M> {
  const store = createStore(`${options.dbName ?? 'tether'}-chats`, 'chats');
  const failed = (code: 'STORE_READ_FAILED' | 'STORE_WRITE_FAILED', what: string) => (error: unknown) => {
    throw new TetherError(code, `IndexedDB chat store: ${what} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error, maybeDelivered: false });
  };
  return {
    get: (chatId) => get<M[]>(chatId, store).catch(failed('STORE_READ_FAILED', `reading chat ${chatId}`)),
    set: (chatId, messages) => set(chatId, messages, store).catch(failed('STORE_WRITE_FAILED', `writing chat ${chatId}`)),
    delete: (chatId) => del(chatId, store).catch(failed('STORE_WRITE_FAILED', `deleting chat ${chatId}`)),
  };
}
