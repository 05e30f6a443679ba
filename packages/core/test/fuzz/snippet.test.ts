import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snippet } from '../../src/http/read-body.js';
import { fastestMs, fuzzRuns, fuzzSeed } from './fuzz-config.js';

/** The regular expressions `snippet` used before it was made linear: the meaning to keep (short inputs only). */
function regexSnippet(text: string, max: number): string {
  const flat = text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Text made of the pieces markup is made of, so tags, blocks and their closings meet often. */
const markup = fc
  .array(
    fc.oneof(
      fc.constantFrom('<', '>', '/', '<a', '<a>', '</a>', '<script', '<script>', '</script>', '<STYLE>', '</Style>', '<style', '</style>'),
      fc.constantFrom(' ', '\n', '\t', '\r\n', '\u00a0', '\u2028', '\ufeff'),
      fc.string({ maxLength: 6 }),
      fc.string({ unit: 'grapheme', maxLength: 3 }),
    ),
    { maxLength: 40 },
  )
  .map((pieces) => pieces.join(''));

describe('snippet (fuzz)', () => {
  it('says what the regular expressions said, on any markup-like text', () => {
    fc.assert(
      fc.property(markup, fc.integer({ min: 0, max: 30 }), (text, max) => {
        expect(snippet(text, max)).toBe(regexSnippet(text, max));
      }),
      { numRuns: fuzzRuns(2_000), seed: fuzzSeed() },
    );
  });

  it('folds exactly the characters `\\s` matches (every UTF-16 code unit)', () => {
    for (let c = 0; c <= 0xffff; c++) {
      const text = `a${String.fromCharCode(c)}b`;
      if (snippet(text) !== regexSnippet(text, 200)) expect({ c, got: snippet(text) }).toEqual({ c, got: regexSnippet(text, 200) });
    }
  });

  it('is bounded and fast on long hostile text (a per-case time bound)', () => {
    const unit = fc.constantFrom('<a', '<script', '<style', '< ', '<script>x', ' \t', 'x', '</script>', '>');
    fc.assert(
      fc.property(fc.array(unit, { minLength: 1, maxLength: 4 }), fc.integer({ min: 16_000, max: 64_000 }), (units, repeat) => {
        const text = units.join('').repeat(Math.ceil(repeat / units.join('').length));
        expect(fastestMs(100, () => snippet(text, 512))).toBeLessThan(100);
        expect(snippet(text, 512).length).toBeLessThanOrEqual(513);
      }),
      { numRuns: fuzzRuns(50), seed: fuzzSeed() },
    );
  });
});
