// @a2a-tether/node/redis — the Redis task store with leases. Its own entry, so that
// `@a2a-tether/node` never loads the `redis` client.
export { createRedisTaskStore, REDIS_STORE_DEFAULTS } from './redis-task-store.js';
export type { RedisStoreClient, RedisTaskStore, RedisTaskStoreOptions, TaskLease } from './redis-task-store.js';
