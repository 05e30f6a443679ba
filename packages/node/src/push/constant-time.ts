import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Compares secrets without leaking, through timing, where they differ or how long the expected one
 * is: both sides are reduced to HMAC-SHA256 digests under a per-process random key (always 32
 * bytes), and the digests are compared with `timingSafeEqual`.
 */
export class SecretMatcher {
  readonly #key = randomBytes(32);

  /** The digest to keep instead of the secret itself. */
  digest(secret: string): Buffer {
    return createHmac('sha256', this.#key).update(secret, 'utf8').digest();
  }

  /** Whether `presented` is the secret `expected` is the digest of. */
  matches(presented: string, expected: Buffer): boolean {
    return this.same(this.digest(presented), expected);
  }

  /** Whether two digests made by {@link digest} are equal, compared in constant time. */
  same(presented: Buffer, expected: Buffer): boolean {
    return timingSafeEqual(presented, expected);
  }
}
