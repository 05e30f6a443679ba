/** @module @a2a-tether/browser */
export * from '@a2a-tether/browser';
