import type { Part } from '../model/types.js';
import { partKey } from './part-key.js';

/** Numbers per part: two independent 32-bit hashes of its key, and the key's length. */
const FIELDS = 3;

/** Hashes `key` into `out` at `at` (two 32-bit lanes with different primes, one pass, then its length). */
function digest(key: string, out: Int32Array, at: number): void {
  let a = 0x811c9dc5 | 0;
  let b = 0x27d4eb2f | 0;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 13;
  }
  out[at] = a;
  out[at + 1] = b;
  out[at + 2] = key.length;
}

/** The parts' keys an artifact is compared by: a {@link PartList} or a {@link PartDigest}. */
export interface HeldParts {
  readonly length: number;
  /** Whether the parts themselves are kept (`slice` returns them); a digest keeps only what compares them. */
  readonly kept: boolean;
  push(part: Part): void;
  hasKey(index: number, key: string): boolean;
  startsWith(keys: readonly string[]): boolean;
  isPrefixOf(keys: readonly string[]): boolean;
  slice(from?: number, to?: number): Part[];
}

/** Whether the first `n` parts held have the first `n` of `keys` (both have at least `n`). */
export function firstKeysMatch(held: Pick<HeldParts, 'hasKey'>, keys: readonly string[], n: number): boolean {
  for (let i = 0; i < n; i++) if (!held.hasKey(i, keys[i] as string)) return false;
  return true;
}

/**
 * What a follow keeps of an artifact when the app renders from events only (`keepArtifacts: false`):
 * no part, only what tells a replayed part from a new one — per part two 32-bit hashes of its key
 * (`partKey`) and the key's length, 12 bytes, whatever the part's size. Two different keys compare
 * equal only if both hashes and the length collide (about one pair in 2^64). `slice()` returns no
 * parts.
 */
export class PartDigest implements HeldParts {
  readonly kept = false;
  private meta = new Int32Array(8 * FIELDS);
  private count = 0;
  /** Scratch for the key being compared. */
  private static readonly probe = new Int32Array(FIELDS);

  static from(parts: readonly Part[]): PartDigest {
    const digest = new PartDigest();
    for (const part of parts) digest.push(part);
    return digest;
  }

  get length(): number {
    return this.count;
  }

  push(part: Part): void {
    const at = this.count++ * FIELDS;
    if (at === this.meta.length) {
      const meta = new Int32Array(at * 2);
      meta.set(this.meta);
      this.meta = meta;
    }
    digest(partKey(part), this.meta, at);
  }

  /** Keeps the first `length` parts (a replay diverged after them). */
  truncate(length: number): void {
    this.count = Math.min(this.count, Math.max(0, length));
  }

  hasKey(index: number, key: string): boolean {
    if (index < 0 || index >= this.count) return false;
    const at = index * FIELDS;
    if (this.meta[at + 2] !== key.length) return false;
    const probe = PartDigest.probe;
    digest(key, probe, 0);
    return this.meta[at] === probe[0] && this.meta[at + 1] === probe[1];
  }

  startsWith(keys: readonly string[]): boolean {
    return keys.length <= this.count && firstKeysMatch(this, keys, keys.length);
  }

  isPrefixOf(keys: readonly string[]): boolean {
    return this.count <= keys.length && firstKeysMatch(this, keys, this.count);
  }

  /** No parts are kept: always empty. */
  slice(): Part[] {
    return [];
  }
}
