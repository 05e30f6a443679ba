import type { Part } from '../model/types.js';
import { firstKeysMatch, type HeldParts } from './part-digest.js';
import { partKey } from './part-key.js';

/** How a part is held: plain text without a media type, plain `text/plain`, or as the object itself. */
const PLAIN = 0;
const PLAIN_TEXT_PLAIN = 1;
const OBJECT = 2;

/**
 * Plain text waiting in the tail is joined into one block once it holds this many characters (a block
 * then starts in V8's large-object space, never copied by the young generation's collector), or this
 * many parts.
 */
const BLOCK_CHARS = 1 << 17;
const BLOCK_PARTS = 1 << 10;

/** The fields of a part in `meta`. */
const FIELDS = 4;
const KIND = 0;
const WHERE = 1;
const START = 2;
const END = 3;

/**
 * The parts of one artifact, as the app has them. A long chunked artifact is mostly small text parts;
 * held as one object and one string each, they would all survive the young generation and be copied
 * by the garbage collector twice — most of what following a fast stream costs. So plain text parts
 * (no metadata, no file name, media type absent or `text/plain`) keep only their text: the decoder's
 * string itself (no copy), until about 128 Ki characters of them are joined into one block string
 * (the small strings then die young); a part is a range of its block. Other parts are kept as
 * objects. Reading a part back gives an equal part (key order as the decoder writes it); keys are as
 * `partKey` gives.
 */
export class PartList implements HeldParts {
  /** Joined text of plain parts. */
  private readonly blocks: string[] = [];
  /** The decoder's strings of the latest plain parts, not joined yet. */
  private tail: string[] = [];
  private tailChars = 0;
  /** The first part that may be in the tail. */
  private tailFrom = 0;
  /**
   * Four numbers per part, in one array (small lists stay on V8's heap: no buffer of their own): its
   * kind of storage; its block (plain), `-1 - i` for `tail[i]`, or its index in `objects`; and, for
   * plain text, its start and end in its block (in the tail: where the block will hold it).
   */
  private meta = new Int32Array(4 * FIELDS);
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

  /** The parts themselves are kept (see {@link HeldParts}). */
  get kept(): boolean {
    return true;
  }

  push(part: Part): void {
    const at = this.count++ * FIELDS;
    if (at === this.meta.length) {
      const meta = new Int32Array(at * 2);
      meta.set(this.meta);
      this.meta = meta;
    }
    const meta = this.meta;
    if (
      part.kind === 'text' &&
      part.metadata === undefined &&
      part.filename === undefined &&
      (part.mediaType === undefined || part.mediaType === 'text/plain')
    ) {
      const text = part.text;
      meta[at + KIND] = part.mediaType === undefined ? PLAIN : PLAIN_TEXT_PLAIN;
      meta[at + WHERE] = -1 - this.tail.length;
      meta[at + START] = this.tailChars;
      this.tailChars += text.length;
      meta[at + END] = this.tailChars;
      this.tail.push(text);
      if (this.tailChars >= BLOCK_CHARS || this.tail.length >= BLOCK_PARTS) this.compact();
      return;
    }
    meta[at + KIND] = OBJECT;
    meta[at + WHERE] = this.objects.length;
    this.objects.push(part);
  }

  /** Joins the tail's strings into one block. */
  private compact(): void {
    const block = this.blocks.length;
    this.blocks.push(this.tail.join(''));
    const meta = this.meta;
    for (let at = this.tailFrom * FIELDS; at < this.count * FIELDS; at += FIELDS) if (meta[at + KIND] !== OBJECT) meta[at + WHERE] = block;
    this.tail = [];
    this.tailChars = 0;
    this.tailFrom = this.count;
  }

  private text(index: number): string {
    const at = index * FIELDS;
    const where = this.meta[at + WHERE] as number;
    if (where < 0) return this.tail[-1 - where] as string;
    return (this.blocks[where] as string).slice(this.meta[at + START], this.meta[at + END]);
  }

  /** Part `index` (0 ≤ index < length). */
  at(index: number): Part {
    const kind = this.meta[index * FIELDS + KIND];
    if (kind === OBJECT) return this.objects[this.meta[index * FIELDS + WHERE] as number] as Part;
    const text = this.text(index);
    // Whole literals (key order as the decoder writes it): no shape change after creation.
    return kind === PLAIN_TEXT_PLAIN ? { kind: 'text', text, mediaType: 'text/plain' } : { kind: 'text', text };
  }

  /** The key of part `index` (see `partKey`). */
  key(index: number): string {
    if (this.meta[index * FIELDS + KIND] === OBJECT) return partKey(this.at(index));
    const text = this.text(index);
    return text.charCodeAt(0) === 0 ? partKey(this.at(index)) : text;
  }

  /** Whether part `index` has this key (see `partKey`); a text part's key is a slice of its block, no copy. */
  hasKey(index: number, key: string): boolean {
    return this.key(index) === key;
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
    return keys.length <= this.count && firstKeysMatch(this, keys, keys.length);
  }

  /** Whether this list's keys are the first of `keys`. */
  isPrefixOf(keys: readonly string[]): boolean {
    return this.count <= keys.length && firstKeysMatch(this, keys, this.count);
  }
}
