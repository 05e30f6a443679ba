/** @module @a2a-tether/node */
export * from '@a2a-tether/node';
