import { invalidParams } from './agent-error.js';

// Small readers for incoming JSON. They throw InvalidParams (-32602) naming the offending field, so a
// client codec bug shows up as a precise error rather than a silently ignored field.

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function requireObject(value: unknown, field: string): JsonObject {
  if (!isObject(value)) throw invalidParams(`${field} must be an object`);
  return value;
}

export function requireString(obj: JsonObject, key: string, where: string): string {
  const value = obj[key];
  if (typeof value !== 'string' || value === '') throw invalidParams(`${where}.${key} is required (non-empty string)`);
  return value;
}

export function optionalString(obj: JsonObject, key: string, where: string): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidParams(`${where}.${key} must be a string`);
  return value === '' ? undefined : value;
}

export function optionalBoolean(obj: JsonObject, key: string, where: string): boolean | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalidParams(`${where}.${key} must be a boolean`);
  return value;
}

/** Integers may come as JSON numbers or (ProtoJSON int64 / query strings) as decimal strings. */
export function optionalInteger(obj: JsonObject, key: string, where: string): number | undefined {
  const value = obj[key];
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw invalidParams(`${where}.${key} must be an integer`);
  return n;
}

export function optionalStringArray(obj: JsonObject, key: string, where: string): string[] | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw invalidParams(`${where}.${key} must be an array of strings`);
  }
  return value.length === 0 ? undefined : (value as string[]);
}

export function optionalRecord(obj: JsonObject, key: string, where: string): JsonObject | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  return requireObject(value, `${where}.${key}`);
}

export function requireArray(obj: JsonObject, key: string, where: string): unknown[] {
  const value = obj[key];
  if (!Array.isArray(value)) throw invalidParams(`${where}.${key} is required (array)`);
  return value;
}

/** Copy `obj` without keys whose value is undefined (keeps output free of `"x": undefined` noise). */
export function compact(obj: Record<string, unknown>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}
