// @a2a-tether/browser/chats — a chat's messages in IndexedDB beside the task records (for the AI SDK
// transport's `messages` option). A subpath of its own: a page that keeps no chat never loads it.
export { createIndexedDbChatStore } from './indexeddb-chat-store.js';
export type { IndexedDbChatStore, IndexedDbChatStoreOptions } from './indexeddb-chat-store.js';
