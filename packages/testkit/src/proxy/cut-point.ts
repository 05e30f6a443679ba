/** Where inside an event a `cut` with `within: 'event' | 'utf8'` stops. */
export type CutWithin = 'boundary' | 'event' | 'utf8';

/** Length of the UTF-8 sequence a lead byte starts, or 0 for ASCII and continuation bytes. */
function sequenceLength(byte: number): number {
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe0 && byte <= 0xef) return 3;
  if (byte >= 0xf0 && byte <= 0xf4) return 4;
  return 0;
}

/**
 * How many bytes of `event` (one whole event, terminator included) to send before cutting, so that the
 * client holds part of it but never all: `'event'` stops halfway; `'utf8'` stops inside the first
 * multi-byte character (after half its bytes, at least the lead byte), or halfway when there is none.
 */
export function bytesBeforeCut(event: Uint8Array, within: 'event' | 'utf8'): number {
  if (within === 'utf8') {
    for (let i = 0; i < event.length; i++) {
      const length = sequenceLength(event[i] ?? 0);
      if (length > 0 && i + length <= event.length) return i + Math.ceil(length / 2);
    }
  }
  return Math.max(0, Math.min(Math.max(1, Math.floor(event.length / 2)), event.length - 1));
}
