import type { Part, TextPart } from '../model/types.js';
import { partKey } from './part-key.js';


/** How a part is held: plain text without a media type, plain `text/plain`, or as the object itself. */
const PLAIN = 0;
const PLAIN_TEXT_PLAIN = 1;
const OBJECT = 2;

function grow<T extends Uint8Array | Uint16Array | Int32Array>(array: T, needed: number, make: (size: number) => T): T {
  if (needed <= array.length) return array;
  const next = make(Math.max(needed, array.length * 2, 64));
  next.set(array);
  return next;
}

/**
 * The parts of one artifact, as the app has them. A long chunked artifact is mostly small text
 * parts; held as JavaScript objects and strings, each one would survive the young generation and be
 * copied by the garbage collector twice — most of what following a fast stream costs. So plain text
 * parts (no metadata, no file name, media type absent or `text/plain`) are kept as UTF-16 code units
 * in one growing buffer (outside the garbage-collected heap; exact for any string, lone surrogates
 * included), and only other parts as objects. Reading
 * a part back gives an equal part (key order as the decoder writes it); keys are as `partKey` gives.
 */
export class PartList {
  private units = new Uint16Array(0);
  private used = 0;
  /** Per part: its kind of storage. */
  private kinds = new Uint8Array(0);
  /** Per part: start and end in `units` (plain), or `start` = index in `objects`. */
  private starts = new Int32Array(0);
  private ends = new Int32Array(0);
  private readonly objects: Part[] = [];
  private count = 0;
  /** Parts already rebuilt for a reader of the whole list (extended as parts arrive, on demand). */
  private built: Part[] | undefined;

  static from(parts: readonly Part[]): PartList {
    const list = new PartList();
    for (const part of parts) list.push(part);
    return list;
  }

  get length(): number {
    return this.count;
  }

  push(part: Part): void {
    const i = this.count++;
    if (i >= this.kinds.length) {
      const size = Math.max(64, this.kinds.length * 2);
      this.kinds = grow(this.kinds, size, (n) => new Uint8Array(n));
      this.starts = grow(this.starts, size, (n) => new Int32Array(n));
      this.ends = grow(this.ends, size, (n) => new Int32Array(n));
    }
    if (
      part.kind === 'text' &&
      part.metadata === undefined &&
      part.filename === undefined &&
      (part.mediaType === undefined || part.mediaType === 'text/plain')
    ) {
      const text = part.text;
      let units = this.units;
      if (this.used + text.length > units.length) units = this.units = grow(units, this.used + text.length, (n) => new Uint16Array(n));
      let at = this.used;
      for (let k = 0; k < text.length; k++) units[at++] = text.charCodeAt(k);
      this.kinds[i] = part.mediaType === undefined ? PLAIN : PLAIN_TEXT_PLAIN;
      this.starts[i] = this.used;
      this.used = at;
      this.ends[i] = at;
      return;
    }
    this.kinds[i] = OBJECT;
    this.starts[i] = this.objects.length;
    this.objects.push(part);
  }

  private text(index: number): string {
    const units = this.units;
    let text = '';
    // In slices: String.fromCharCode takes its arguments on the stack. `apply` with the typed array
    // itself, not a spread: a spread walks the iterator protocol (~7× slower for a 160-unit part).
    for (let at = this.starts[index] as number, end = this.ends[index] as number; at < end; at += 8192) {
      text += String.fromCharCode.apply(null, units.subarray(at, Math.min(end, at + 8192)) as unknown as number[]);
    }
    return text;
  }

  /** Part `index` (0 ≤ index < length). */
  at(index: number): Part {
    const kind = this.kinds[index];
    if (kind === OBJECT) return this.objects[this.starts[index] as number] as Part;
    const part: TextPart = { kind: 'text', text: this.text(index) };
    if (kind === PLAIN_TEXT_PLAIN) part.mediaType = 'text/plain';
    return part;
  }

  /** The key of part `index` (see `partKey`). */
  key(index: number): string {
    if (this.kinds[index] === OBJECT) return partKey(this.at(index));
    const text = this.text(index);
    return text.charCodeAt(0) === 0 ? partKey(this.at(index)) : text;
  }

  /** Whether part `index` has this key (see `partKey`), compared in place: no string is built. */
  hasKey(index: number, key: string): boolean {
    if (this.kinds[index] === OBJECT) return partKey(this.objects[this.starts[index] as number] as Part) === key;
    const start = this.starts[index] as number;
    const length = (this.ends[index] as number) - start;
    const units = this.units;
    if (length > 0 && units[start] === 0) return this.key(index) === key; // keyed like other parts
    if (key.length !== length) return false;
    for (let k = 0; k < length; k++) if (units[start + k] !== key.charCodeAt(k)) return false;
    return true;
  }

  /**
   * Parts `from` to `to` (exclusive), as a new array. The whole list is rebuilt once and then
   * extended, so an app that reads the view after every event pays for each part once.
   */
  slice(from = 0, to = this.count): Part[] {
    if (from === 0 && to === this.count) {
      const built = (this.built ??= []);
      for (let i = built.length; i < this.count; i++) built.push(this.at(i));
      return built.slice();
    }
    const out: Part[] = [];
    for (let i = from; i < to; i++) out.push(this.at(i));
    return out;
  }

  /** Whether `keys` are the keys of this list's first parts. */
  startsWith(keys: readonly string[]): boolean {
    if (keys.length > this.count) return false;
    for (let i = 0; i < keys.length; i++) if (!this.hasKey(i, keys[i] as string)) return false;
    return true;
  }

  /** Whether this list's keys are the first of `keys`. */
  isPrefixOf(keys: readonly string[]): boolean {
    if (this.count > keys.length) return false;
    for (let i = 0; i < this.count; i++) if (!this.hasKey(i, keys[i] as string)) return false;
    return true;
  }
}
