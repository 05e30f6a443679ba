/**
 * A number in [0, 1) determined by `seed`, an event (or call) index and a label naming the decision.
 *
 * Stateless on purpose: a misbehaving task's choices must not depend on the order in which streams,
 * subscriptions and GetTask calls happen to ask, only on which event they are about. FNV-1a over the
 * inputs, then a murmur3-style finalizer to spread the bits. Not for anything cryptographic.
 */
export function misbehaveRandom(seed: number, index: number, label: string): number {
  let hash = 0x811c9dc5 ^ (seed >>> 0);
  for (const char of `${index >>> 0}/${label}`) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 4294967296;
}

/** An integer in [min, max], both included, drawn like {@link misbehaveRandom}. */
export function misbehaveInt(seed: number, index: number, label: string, min: number, max: number): number {
  return min + Math.floor(misbehaveRandom(seed, index, label) * (max - min + 1));
}
