/** @module @a2a-tether/core/workers */
export * from '@a2a-tether/core/workers';
