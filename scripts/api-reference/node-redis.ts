/** @module @a2a-tether/node/redis */
export * from '@a2a-tether/node/redis';
