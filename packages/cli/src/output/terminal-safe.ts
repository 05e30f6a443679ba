import type { CliIO } from '../io.js';

// G12: nothing an agent sends reaches a terminal unescaped. Every byte the CLI writes to stdout and
// stderr goes through {@link terminalSafe} (run.ts wraps the run's streams once; the live view, which
// draws on the terminal itself, escapes what it writes the same way), so a new field cannot forget it.
// Lines are the CLI's own: a one-line value shows an agent's line breaks as `\n` ({@link oneLine}).

/**
 * What never reaches the terminal: C0 controls except tab and newline (ESC, BEL, CR, BS, NUL …), DEL,
 * C1 controls (U+0080–U+009F, e.g. U+009B, an 8-bit CSI), the bidirectional controls that reorder what
 * is shown (U+061C, U+200E/U+200F, U+202A–U+202E, U+2066–U+2069), and the line and paragraph
 * separators U+2028/U+2029 (raw in JSON.stringify's output; line breaks to some readers).
 */
export const UNSAFE_CHARS = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';

const UNSAFE = new RegExp(`[${UNSAFE_CHARS}]`, 'g');

const escapeOne = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `text` with each unsafe code point written as a visible `\uXXXX` (ESC as `\u001b`, U+202E as
 * `\u202e`); tab and newline stay. Inside a JSON string that is the code point's own escape, so JSON
 * output stays valid and parses to the agent's exact string.
 */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/** A value that must stay on one line (a field, an id, a name, a message in a `Warning:` line): line breaks shown as `\n` and `\r`. */
export function oneLine(text: string): string {
  return text.replace(/\r\n|\n|\r/g, (br) => (br === '\r\n' ? '\\r\\n' : br === '\n' ? '\\n' : '\\r'));
}

/**
 * A one-line diagnostic built from a template: the literal text is the CLI's, every interpolated value
 * goes through {@link oneLine} (an agent's id or message cannot end the line and forge the next one).
 */
export function line(strings: TemplateStringsArray, ...values: readonly unknown[]): string {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += oneLine(String(value)) + (strings[i + 1] ?? '');
  });
  return out;
}

/** `io` whose stdout and stderr escape every unsafe code point: the output boundary of a run. */
export function terminalSafe(io: CliIO): CliIO {
  return {
    out: (text) => io.out(escapeUnsafe(text)),
    err: (text) => io.err(escapeUnsafe(text)),
    cwd: io.cwd,
    isTTY: io.isTTY,
  };
}
