/** @module @a2a-tether/otel */
export * from '@a2a-tether/otel';
