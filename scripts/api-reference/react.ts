/** @module @a2a-tether/react */
export * from '@a2a-tether/react';
