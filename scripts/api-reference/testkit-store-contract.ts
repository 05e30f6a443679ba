/** @module @a2a-tether/testkit/store-contract */
export * from '@a2a-tether/testkit/store-contract';
