// @a2a-tether/node/redis — the Redis task and workflow stores with leases. Its own entry, so that
// `@a2a-tether/node` never loads the `redis` client.
export { createRedisTaskStore, REDIS_STORE_DEFAULTS } from './redis-task-store.js';
export type { RedisStoreClient, RedisTaskStore, RedisTaskStoreOptions, TaskLease } from './redis-task-store.js';
export { createRedisWorkflowStore } from './redis-workflow-store.js';
export type { RedisWorkflowStore, RedisWorkflowStoreOptions } from './redis-workflow-store.js';
