import type { Dialect } from './dialect.js';

/**
 * A task's generation (A2A v1.1 draft, §3.2.7) as the model keeps it: an int64 the agent writes as a
 * JSON number or, as ProtoJSON does, a decimal string. Anything else — a fraction, a negative, a value
 * past 2^53, another type — and 0 (ProtoJSON's default: "the agent does not keep generations") read
 * as no generation. Never an error: an agent that sends none, or a broken one, is followed as before.
 */
export function readGeneration(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** `out` with the generation of `wire` (a task or event as received), when it has a valid one and the dialect is v1.0 (v0.3 has none). */
export function withGeneration<T extends { generation?: number | undefined }>(out: T, wire: object, dialect: Dialect): T {
  const generation = dialect === 'v1' ? readGeneration((wire as { generation?: unknown }).generation) : undefined;
  if (generation !== undefined) out.generation = generation;
  return out;
}
