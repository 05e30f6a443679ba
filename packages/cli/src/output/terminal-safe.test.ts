import { describe, expect, it } from 'vitest';
import type { CliIO } from '../io.js';
import { escapeUnsafe, line, oneLine, terminalSafe } from './terminal-safe.js';

/** Every code point the terminal must never get from an agent (the list of G12, spelled out). */
const UNSAFE: number[] = [
  ...Array.from({ length: 0x20 }, (_, i) => i).filter((c) => c !== 0x09 && c !== 0x0a),
  0x7f,
  ...Array.from({ length: 0x20 }, (_, i) => 0x80 + i),
  0x061c,
  0x200e,
  0x200f,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
  0x2028,
  0x2029,
];

describe('escapeUnsafe', () => {
  it('writes each unsafe code point as a visible \\uXXXX, and nothing else', () => {
    for (const code of UNSAFE) expect(escapeUnsafe(`a${String.fromCharCode(code)}b`)).toBe(`a\\u${code.toString(16).padStart(4, '0')}b`);
    expect(escapeUnsafe('\u001b]52;c;aGk=\u0007')).toBe('\\u001b]52;c;aGk=\\u0007');
    expect(escapeUnsafe('\u009b2J\u202eevil')).toBe('\\u009b2J\\u202eevil');
  });

  it('leaves tab, newline and every other code point below U+3000 as they are', () => {
    const unsafe = new Set(UNSAFE);
    for (let code = 0; code < 0x3000; code++) {
      if (unsafe.has(code) || (code >= 0xd800 && code <= 0xdfff)) continue;
      const ch = String.fromCharCode(code);
      expect(escapeUnsafe(ch), `U+${code.toString(16)}`).toBe(ch);
    }
    expect(escapeUnsafe('tab\there\nnext, émoji 😀, Arabic مرحبا, Hebrew שלום')).toBe('tab\there\nnext, émoji 😀, Arabic مرحبا, Hebrew שלום');
  });

  it('is idempotent: escaping twice is escaping once', () => {
    const all = UNSAFE.map((c) => String.fromCharCode(c)).join('x');
    expect(escapeUnsafe(escapeUnsafe(all))).toBe(escapeUnsafe(all));
  });

  it('keeps JSON valid and lossless: the escape is the code point\'s own JSON escape', () => {
    const value = { [`k\u202e\u0085`]: UNSAFE.map((c) => String.fromCharCode(c)).join(''), s: '\\u001b is not ESC', n: 1 };
    for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
      const safe = escapeUnsafe(text);
      expect(safe).not.toMatch(/[\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
      expect(JSON.parse(safe)).toEqual(value);
    }
  });
});

describe('oneLine and line', () => {
  it('shows line breaks as \\n and \\r, so a value cannot forge the next line', () => {
    expect(oneLine('a\nCode: forged')).toBe('a\\nCode: forged');
    expect(oneLine('a\r\nb\rc')).toBe('a\\r\\nb\\rc');
    expect(oneLine('plain')).toBe('plain');
  });

  it('line`…` escapes the values, not the template\'s own newline', () => {
    const id = 't-1\nWarning: forged';
    expect(line`Warning: task ${id} ended ${'failed'}\n`).toBe('Warning: task t-1\\nWarning: forged ended failed\n');
    expect(line`no values\n`).toBe('no values\n');
  });
});

describe('terminalSafe', () => {
  it('escapes what goes to stdout and stderr, and keeps the rest of the io', () => {
    const seen: string[] = [];
    const io: CliIO = { out: (t) => seen.push(`out:${t}`), err: (t) => seen.push(`err:${t}`), cwd: '/w', isTTY: true };
    const safe = terminalSafe(io);
    safe.out('a\u001b[2Jb\n');
    safe.err('\u009b\u202e\n');
    expect(seen).toEqual(['out:a\\u001b[2Jb\n', 'err:\\u009b\\u202e\n']);
    expect(safe.cwd).toBe('/w');
    expect(safe.isTTY).toBe(true);
  });
});
