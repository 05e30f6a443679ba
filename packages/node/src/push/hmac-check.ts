import { createHmac, timingSafeEqual } from 'node:crypto';

/** How pushes signed Standard-Webhooks style are verified (see {@link PushReceiverOptions.hmac}). */
export interface PushHmacOptions {
  /**
   * The shared signing key. A string starting with `whsec_` is the Standard Webhooks form (base64 of
   * the key after the prefix); any other string is used as UTF-8 bytes; a `Uint8Array` as is.
   */
  secret: string | Uint8Array;
}

/** The three Standard Webhooks headers, as presented. */
export interface HmacHeaders {
  readonly id: string;
  readonly timestamp: string;
  readonly signature: string;
}

/** A verified HMAC push: its id and timestamp, for the replay cache. */
export interface VerifiedHmac {
  readonly id: string;
  readonly timestampSec: number;
}

const TIMESTAMP = /^\d{1,15}$/;
// Ids are remembered against replays: a bounded length bounds what one entry holds.
const MAX_ID_LENGTH = 256;

function keyOf(secret: string | Uint8Array): Buffer {
  if (typeof secret !== 'string') return Buffer.from(secret);
  if (secret.startsWith('whsec_')) return Buffer.from(secret.slice('whsec_'.length), 'base64');
  return Buffer.from(secret, 'utf8');
}

/**
 * Verifies `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (several signatures may
 * be listed, space-separated, during key rotation) and the timestamp window.
 */
export class HmacCheck {
  readonly #key: Buffer;
  readonly #windowSec: number;

  constructor(options: PushHmacOptions, windowSec: number) {
    this.#key = keyOf(options.secret);
    this.#windowSec = windowSec;
  }

  /**
   * Checks what needs no body: the id and the timestamp (format and window). Returns why not as a
   * string; `undefined` when they pass. The receiver calls it before reading the body.
   */
  checkHeaders(headers: HmacHeaders, nowMs: number): string | undefined {
    if (headers.id === '') return 'webhook-id is empty';
    if (headers.id.length > MAX_ID_LENGTH) return `webhook-id is longer than ${MAX_ID_LENGTH} characters`;
    if (!TIMESTAMP.test(headers.timestamp)) return 'webhook-timestamp is not a number of seconds';
    const timestampSec = Number(headers.timestamp);
    if (Math.abs(nowMs / 1000 - timestampSec) > this.#windowSec) {
      return `webhook-timestamp ${timestampSec} is more than ${this.#windowSec} s from now`;
    }
    return undefined;
  }

  /** Verifies the headers against the raw body; returns why not as a string. */
  verify(headers: HmacHeaders, rawBody: Uint8Array, nowMs: number): VerifiedHmac | string {
    const refused = this.checkHeaders(headers, nowMs);
    if (refused !== undefined) return refused;
    const timestampSec = Number(headers.timestamp);
    const expected = createHmac('sha256', this.#key)
      .update(`${headers.id}.${headers.timestamp}.`, 'utf8')
      .update(rawBody)
      .digest();
    let matched = false;
    for (const entry of headers.signature.split(' ')) {
      const comma = entry.indexOf(',');
      if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
      const presented = Buffer.from(entry.slice(comma + 1), 'base64');
      // The length of an HMAC-SHA256 is public (32 bytes): checking it first leaks nothing.
      if (presented.length === expected.length && timingSafeEqual(presented, expected)) matched = true;
    }
    return matched ? { id: headers.id, timestampSec } : 'no v1 signature matches';
  }
}
