import { TetherError, type ErrorContext } from '../errors/tether-error.js';

/**
 * Reads a body as text, failing with INVALID_RESPONSE once it passes `maxBytes` (so a
 * misbehaving agent cannot make us buffer without bound). Network failures mid-body become NETWORK.
 */
export async function readText(response: Response, maxBytes: number, context: ErrorContext): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new TetherError('INVALID_RESPONSE', `response body exceeds ${maxBytes} bytes`, context);
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    if (error instanceof TetherError) throw error;
    throw new TetherError('NETWORK', `connection lost while reading the response: ${describeCause(error)}`, {
      ...context,
      cause: error,
    });
  }
  return text + decoder.decode();
}

/**
 * A short, single-line excerpt of a body for error messages: `<script>`/`<style>` blocks and HTML
 * tags stripped, whitespace folded, at most `max` characters (then `…`).
 *
 * Linear in the length of `text`, which an agent controls (up to megabytes): the obvious regular
 * expressions backtrack over the rest of the text from every unclosed `<` (quadratic). Here each
 * search for a closing `>` or `</script>` is remembered, so no search covers the same text twice,
 * and folding stops as soon as `max` characters are kept.
 */
export function snippet(text: string, max = 200): string {
  const flat = foldTags(stripBlocks(text), max + 1);
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

const BLOCKS = ['script', 'style'];
const LT = 60;

/** Replaces each `<script…</script>` and `<style…</style>` block (any case) by a space. */
function stripBlocks(text: string): string {
  // Only names that are closed somewhere can start a block; once a name's last closing is behind
  // the scan, it cannot start one any more. (`>` first: a one-character search is the cheapest.)
  if (!text.includes('>') || !text.includes('</')) return text;
  let live = BLOCKS.filter((name) => new RegExp(`</${name}>`, 'i').test(text));
  const closers = new Map(live.map((name) => [name, nextMatch(text, new RegExp(`</${name}>`, 'gi'))]));
  let open = opener(live);
  let out = '';
  let kept = 0;
  while (open) {
    const match = open.exec(text);
    if (match === null) break;
    const name = (match[1] ?? '').toLowerCase();
    const end = closers.get(name)?.(open.lastIndex) ?? -1;
    if (end === -1) {
      const at = open.lastIndex;
      live = live.filter((other) => other !== name);
      open = opener(live);
      if (open) open.lastIndex = at;
      continue;
    }
    out += `${text.slice(kept, match.index)} `;
    kept = end + name.length + 3;
    open.lastIndex = kept;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** A global, case-insensitive search for the start of a block of one of `names`. */
function opener(names: readonly string[]): RegExp | undefined {
  return names.length === 0 ? undefined : new RegExp(`<(${names.join('|')})`, 'gi');
}

/**
 * Finds the next match of a global `pattern` at or after `from`, for non-decreasing `from`: the
 * last answer is reused while it still lies ahead, so the searches never cover the same text twice.
 */
function nextMatch(text: string, pattern: RegExp): (from: number) => number {
  let found = -2;
  return (from) => {
    if (found === -1 || found >= from) return found;
    pattern.lastIndex = from;
    found = pattern.exec(text)?.index ?? -1;
    return found;
  };
}

/** Replaces tags (`<` + anything but `>` + `>`) and whitespace runs by one space, trimmed; stops at `limit` characters. */
function foldTags(text: string, limit: number): string {
  let out = '';
  let space = false;
  let gt = text.indexOf('>');
  for (let i = 0; i < text.length && out.length < limit; ) {
    const c = text.charCodeAt(i);
    if (c === LT) {
      if (gt !== -1 && gt <= i) gt = text.indexOf('>', i + 1);
      if (gt > i + 1) {
        space = true;
        i = gt + 1;
        continue;
      }
    }
    if (isSpace(c)) {
      space = true;
      i++;
      continue;
    }
    if (space && out.length > 0) out += ' ';
    space = false;
    out += text[i];
    i++;
  }
  return out;
}

/** `\s` of a regular expression (ECMAScript white space and line terminators), for one UTF-16 code unit. */
function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** The most specific description of a low-level failure (undici puts the errno in `cause`). */
export function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    if (typeof current === 'object') {
      const record = current as { code?: unknown; message?: unknown; cause?: unknown };
      const text = [record.code, record.message].filter((v) => typeof v === 'string' && v).join(' ');
      if (text && !parts.includes(text)) parts.push(text);
      current = record.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(': ') || 'unknown error';
}

/** The errno-like code of a low-level failure, if any (`ECONNREFUSED`, `UND_ERR_SOCKET` …). */
export function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
