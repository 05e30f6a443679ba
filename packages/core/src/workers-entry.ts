// @a2a-tether/core/workers — what Cloudflare Workers need beyond core: a task store in a Durable Object's
// storage, so that a task outlives the request that started it. A subpath, so that no other build carries it.

export { createDurableObjectTaskStore } from './store/durable-object-task-store.js';
export type { DurableObjectStorageLike, DurableObjectTaskStoreOptions } from './store/durable-object-task-store.js';
