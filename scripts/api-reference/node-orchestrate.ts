/** @module @a2a-tether/node/orchestrate */
export * from '@a2a-tether/node/orchestrate';
