/** @module @a2a-tether/core/signing */
export * from '@a2a-tether/core/signing';
