// SHA-256 (FIPS 180-4), incremental and synchronous: an artifact's digest grows chunk by chunk as the
// follow hands them on, so a lifecycle event carries the digest of the content so far, in order, with
// no await. (Web Crypto's digest is one-shot and asynchronous.) Used only when someone asks for
// `artifact` lifecycle events.

/** The first `count` primes. */
function primes(count: number): number[] {
  const out: number[] = [];
  for (let n = 2; out.length < count; n++) if (out.every((p) => n % p !== 0)) out.push(n);
  return out;
}

/** The first 32 bits of the fractional part of `x`. */
const fraction32 = (x: number): number => ((x - Math.floor(x)) * 0x1_0000_0000) >>> 0;

const PRIMES = primes(64);
/** Round constants: the cube roots of the first 64 primes; initial state: the square roots of the first 8. */
const K = Uint32Array.from(PRIMES, (p) => fraction32(Math.cbrt(p)));
const H0 = Uint32Array.from(PRIMES.slice(0, 8), (p) => fraction32(Math.sqrt(p)));

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** A running SHA-256: `update()` with bytes as they come, `hex()` for the digest of everything so far. */
export class Sha256 {
  private readonly h = H0.slice();
  private readonly buffer = new Uint8Array(64);
  private used = 0;
  /** Bytes taken so far. */
  private length = 0;
  private readonly w = new Uint32Array(64);

  update(data: Uint8Array): this {
    this.length += data.length;
    let at = 0;
    while (at < data.length) {
      const take = Math.min(64 - this.used, data.length - at);
      this.buffer.set(data.subarray(at, at + take), this.used);
      this.used += take;
      at += take;
      if (this.used === 64) {
        this.compress(this.h, this.buffer);
        this.used = 0;
      }
    }
    return this;
  }

  /** The digest of everything taken so far, in lower-case hex (the running state is left as it was). */
  hex(): string {
    const h = this.h.slice();
    const tail = new Uint8Array(this.used < 56 ? 64 : 128);
    tail.set(this.buffer.subarray(0, this.used));
    tail[this.used] = 0x80;
    const bits = this.length * 8;
    const view = new DataView(tail.buffer);
    view.setUint32(tail.length - 8, Math.floor(bits / 0x1_0000_0000));
    view.setUint32(tail.length - 4, bits >>> 0);
    for (let offset = 0; offset < tail.length; offset += 64) this.compress(h, tail.subarray(offset, offset + 64));
    let out = '';
    for (const word of h) out += word.toString(16).padStart(8, '0');
    return out;
  }

  private compress(h: Uint32Array, block: Uint8Array): void {
    const w = this.w;
    for (let i = 0; i < 16; i++) w[i] = ((block[i * 4] as number) << 24) | ((block[i * 4 + 1] as number) << 16) | ((block[i * 4 + 2] as number) << 8) | (block[i * 4 + 3] as number);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15] as number;
      const b = w[i - 2] as number;
      const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3);
      const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10);
      w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) | 0;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as [number, number, number, number, number, number, number, number];
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[i] as number) + (w[i] as number)) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0] as number) + a;
    h[1] = (h[1] as number) + b;
    h[2] = (h[2] as number) + c;
    h[3] = (h[3] as number) + d;
    h[4] = (h[4] as number) + e;
    h[5] = (h[5] as number) + f;
    h[6] = (h[6] as number) + g;
    h[7] = (h[7] as number) + hh;
  }
}
