/** @module @a2a-tether/core */
export * from '@a2a-tether/core';
