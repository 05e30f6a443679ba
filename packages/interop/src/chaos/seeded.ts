/** A small seeded PRNG (mulberry32): the chaos runner's task plans and client jitter come from these. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seed for one part of a run (a target, its proxy, its client), derived from the run's seed. */
export function deriveSeed(seed: number, ...labels: string[]): number {
  // FNV-1a over the seed and the labels: stable across runs and platforms.
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (const char of labels.join('/')) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** An integer in [min, max], both included. */
export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
