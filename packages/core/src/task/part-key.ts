import type { Part } from '../model/types.js';

function stable(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  const keys = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * A key equal for equal parts whatever their key order (computed once per part received). A plain
 * text part (no metadata or file name; media type absent or `text/plain`) is keyed by its text
 * itself — the same string, no copy — so holding the keys of a long artifact costs no second copy
 * of it; every other key starts with a NUL, which such a text may not (a text that does is keyed
 * like the other parts).
 */
export function partKey(part: Part): string {
  if (
    part.kind === 'text' &&
    part.metadata === undefined &&
    part.filename === undefined &&
    (part.mediaType === undefined || part.mediaType === 'text/plain') &&
    part.text.charCodeAt(0) !== 0
  ) {
    return part.text;
  }
  return `\u0000${stable(part)}`;
}
