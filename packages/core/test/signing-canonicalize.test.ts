// RFC 8785 (JSON Canonicalization Scheme): the test vectors are the RFC's own examples.
import { describe, expect, it } from 'vitest';
import { TetherError } from '../src/index.js';
import { canonicalize } from '../src/signing-entry.js';

function fromHex(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

function refusal(value: unknown): TetherError {
  try {
    canonicalize(value);
  } catch (error) {
    expect(error).toBeInstanceOf(TetherError);
    return error as TetherError;
  }
  throw new Error('expected canonicalize to refuse');
}

describe('canonicalize (RFC 8785)', () => {
  it('§3.2.2: the sample object (numbers, strings with escapes, literals)', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    ) as unknown;
    expect(canonicalize(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('§3.2.3: members sorted by UTF-16 code units (an emoji before U+FB33, whatever its code point)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  // Appendix B: IEEE 754 bit patterns and their canonical text.
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('Appendix B: %s → %s', (hex, text) => {
    expect(canonicalize(fromHex(hex))).toBe(text);
    expect(canonicalize([fromHex(hex)])).toBe(`[${text}]`);
  });

  it.each([
    ['7fffffffffffffff', 'NaN'],
    ['7ff0000000000000', 'Infinity'],
    ['fff0000000000000', '-Infinity'],
  ])('Appendix B: %s (%s) is refused', (hex, name) => {
    const error = refusal({ n: fromHex(hex) });
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(name);
    expect(error.message).toContain('$.n');
  });

  it('writes no whitespace, keeps array order, and escapes only what JSON must', () => {
    expect(canonicalize({ b: [3, 1, 2], a: { d: 'x', c: '\u2028/<>\u007f' } })).toBe('{"a":{"c":"\u2028/<>\u007f","d":"x"},"b":[3,1,2]}');
    expect(canonicalize('\u0000\b\t\n\f\r\u001f"\\')).toBe('"\\u0000\\b\\t\\n\\f\\r\\u001f\\"\\\\"');
    expect(canonicalize('名前 – Ünïcödé 🌦')).toBe('"名前 – Ünïcödé 🌦"');
  });

  it('leaves out members that are undefined, like JSON.stringify', () => {
    expect(canonicalize({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('keeps a member named __proto__ as data', () => {
    const parsed = JSON.parse('{"__proto__":{"x":1},"a":2}') as unknown;
    expect(canonicalize(parsed)).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it.each([
    ['a lone high surrogate', { s: 'a\ud800b' }, 'lone surrogate'],
    ['a lone low surrogate in a key', { ['\udc00']: 1 }, 'lone surrogate'],
    ['undefined in an array', [undefined], 'undefined'],
    ['a bigint', { n: 1n }, 'bigint'],
    ['a function', { f: () => 1 }, 'function'],
    ['a Date', { d: new Date(0) }, 'not a plain object'],
    ['a Map', new Map(), 'not a plain object'],
  ])('refuses %s (not I-JSON) with INVALID_ARGUMENT', (_name, value, words) => {
    const error = refusal(value);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(words);
  });

  it('refuses nesting deeper than 512 levels with a typed error, not a stack overflow', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(refusal(deep).message).toContain('deeper than 512');
    let fine: unknown = 1;
    for (let i = 0; i < 500; i++) fine = { a: fine };
    expect(canonicalize(fine)).toMatch(/^(\{"a":){500}1\}+$/);
  });
});
