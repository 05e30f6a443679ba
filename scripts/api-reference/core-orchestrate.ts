/** @module @a2a-tether/core/orchestrate */
export * from '@a2a-tether/core/orchestrate';
