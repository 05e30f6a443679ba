/** @module @a2a-tether/ai-sdk */
export * from '@a2a-tether/ai-sdk';
