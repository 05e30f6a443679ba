import type { Part } from '../model/types.js';

function stable(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** A key equal for equal parts whatever their key order (computed once per part received). */
export function partKey(part: Part): string {
  if (part.kind === 'text' && part.metadata === undefined && part.mediaType === undefined && part.filename === undefined) {
    return `t${part.text}`;
  }
  return `j${stable(part)}`;
}
