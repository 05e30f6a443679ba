/**
 * Finds where SSE events end in a byte stream fed chunk by chunk. An event ends at a blank line; lines
 * end in `\n`, `\r\n` or `\r` (WHATWG SSE), so `\n\n`, `\r\n\r\n`, `\r\r` and mixes all terminate one.
 * Works on bytes, not text: the proxy must count events without decoding (and so without repairing)
 * what it passes through.
 */
export class SseBoundaryScanner {
  /** At the start of a line: the previous byte ended a line (or nothing was seen yet). */
  private atLineStart = true;
  /** The previous byte was `\r`, so a `\n` now belongs to that line ending. */
  private afterCr = false;
  /** Nothing but line endings since the last event ended: a blank line there is not an event. */
  private eventEmpty = true;

  /**
   * Scan the next chunk and return the offsets just past each event terminator in it. A terminator that
   * ends in `\r` is extended over a directly following `\n` when that byte is in the same chunk.
   */
  scan(chunk: Uint8Array): number[] {
    const ends: number[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === 0x0a && this.afterCr) {
        this.afterCr = false;
        if (ends.at(-1) === i) ends[ends.length - 1] = i + 1;
        continue;
      }
      this.afterCr = byte === 0x0d;
      if (byte !== 0x0a && byte !== 0x0d) {
        this.atLineStart = false;
        this.eventEmpty = false;
        continue;
      }
      if (this.atLineStart && !this.eventEmpty) {
        ends.push(i + 1);
        this.eventEmpty = true;
      }
      this.atLineStart = true;
    }
    return ends;
  }
}
