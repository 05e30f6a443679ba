/** @module @a2a-tether/testkit */
export * from '@a2a-tether/testkit';
