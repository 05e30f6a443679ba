import { TetherError } from '../errors/tether-error.js';

/** Deeper than any real card; bounds the recursion so a hostile document cannot overflow the stack. */
const MAX_DEPTH = 512;

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function refuse(detail: string): never {
  throw new TetherError('INVALID_ARGUMENT', `canonicalize: ${detail}`, { maybeDelivered: false });
}

function serializeString(text: string, path: string): string {
  // RFC 8785 takes I-JSON input: every string must be valid Unicode.
  if (LONE_SURROGATE.test(text)) refuse(`${path} holds a lone surrogate (not valid Unicode)`);
  // For well-formed strings, ECMAScript's JSON.stringify escaping is exactly RFC 8785 §3.2.2.2.
  return JSON.stringify(text);
}

function serialize(value: unknown, path: string, depth: number): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) refuse(`${path} is ${String(value)} (not a JSON number)`);
      // RFC 8785 §3.2.2.3 is ECMAScript's Number-to-String; JSON.stringify applies it (and writes -0 as 0).
      return JSON.stringify(value);
    case 'string':
      return serializeString(value, path);
    case 'object':
      break;
    default:
      refuse(`${path} is a ${typeof value} (not JSON)`);
  }
  if (depth >= MAX_DEPTH) refuse(`${path} is nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    return `[${value.map((item, i) => serialize(item, `${path}[${i}]`, depth + 1)).join(',')}]`;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) refuse(`${path} is not a plain object`);
  const record = value as Record<string, unknown>;
  // Array.prototype.sort without a comparator orders by UTF-16 code units, as RFC 8785 §3.2.3 asks.
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort();
  const members = keys.map((key) => `${serializeString(key, `${path} key`)}:${serialize(record[key], `${path}.${key}`, depth + 1)}`);
  return `{${members.join(',')}}`;
}

/**
 * The JSON Canonicalization Scheme (RFC 8785) of a JSON value: object members sorted by the UTF-16
 * code units of their names, numbers written as ECMAScript writes them, strings escaped as JSON
 * requires and nothing more, no whitespace. Equal JSON data gives equal text, so the text can be signed.
 *
 * Object members whose value is `undefined` are left out (as `JSON.stringify` does).
 *
 * @throws TetherError `INVALID_ARGUMENT` for what is not I-JSON: `NaN` or infinite numbers, strings
 *   with lone surrogates, `undefined` outside an object, functions, symbols, bigints, objects that are
 *   not plain (`Date`, `Map` …), or nesting deeper than 512 levels.
 */
export function canonicalize(value: unknown): string {
  return serialize(value, '$', 0);
}
