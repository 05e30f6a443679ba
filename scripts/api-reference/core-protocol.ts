/** @module @a2a-tether/core/protocol */
export * from '@a2a-tether/core/protocol';
