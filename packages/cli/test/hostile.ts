// What a hostile agent puts in every field it controls, and the scan that proves none of it reached a
// terminal: every code point of the output is checked, not a few known strings.

/** A one-line value (ids, names, status and error messages): ESC sequences, OSC 52, C1 CSI, bidi, DEL, U+2028, a CR and a newline that try to forge a line. */
export const LINE = 'x\u001b[2J\u001b]52;c;aGk=\u0007\u009b31m\u202eexe.txt\u2066\u200f\u061c\u007f\u2028\u0008\rForged: yes\nForged: line';

/** A text part: the same controls, and newlines of its own (a block may keep those). */
export const PART = 'text\u001b]52;c;aGk=\u0007 \u009b2J \u202e\u0000 one\r\ntwo\u2029\u0085three';

/** The code points that must never reach stdout or stderr (newline and tab are the CLI's own). */
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

/** Every forbidden code point in `text`, with its offset and the text around it (empty when clean). */
export function forbiddenIn(text: string): string[] {
  const found: string[] = [];
  let offset = 0;
  for (const ch of text) {
    if (FORBIDDEN.test(ch)) {
      const around = JSON.stringify(text.slice(Math.max(0, offset - 30), offset + 10));
      found.push(`U+${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')} at ${offset}: ${around}`);
    }
    offset += ch.length;
  }
  return found;
}

/** The label line of a block (output/text.ts): a block's content is the agent's text, its lines kept, up to the next blank line. */
const BLOCK_LABEL = /^(Artifact .*|History \d+ \(.*\)|Part \d+ \(.*\)|Message|Card):$/;

/** Lines outside blocks that a value forged (the CLI never prints a `Forged` label). */
export function forgedLines(text: string): string[] {
  const forged: string[] = [];
  let inBlock = false;
  for (const line of text.split('\n')) {
    if (inBlock) inBlock = line !== '';
    else if (BLOCK_LABEL.test(line)) inBlock = true;
    else if (line.startsWith('Forged')) forged.push(line);
  }
  return forged;
}
