/**
 * A small seeded PRNG (mulberry32). Every random choice the fault proxy makes comes from one of these, so
 * a seed replays the same faults for the same sequence of requests. Not for anything cryptographic.
 */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. Always draws, so the sequence does not depend on `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/**
 * A seed for one named stream of choices (e.g. one tag's n-th request), derived from `seed`: FNV-1a
 * over the seed and the parts, so it is the same on every run and platform.
 */
export function deriveSeed(seed: number, ...parts: ReadonlyArray<string | number>): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (const char of parts.join('\u0000')) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
