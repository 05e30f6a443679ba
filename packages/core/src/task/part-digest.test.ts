import { describe, expect, it } from 'vitest';
import type { Part } from '../model/types.js';
import { PartDigest } from './part-digest.js';
import { partKey } from './part-key.js';
import { PartList } from './part-list.js';

const text = (t: string): Part => ({ kind: 'text', text: t });

describe('PartDigest: what compares an artifact’s parts when they are not kept', () => {
  const parts: Part[] = [text('alpha'), text('beta'), { kind: 'data', data: { b: 1, a: [2] } }, text('café ✓ 東京'), text('')];
  const keys = parts.map(partKey);

  it('answers hasKey, startsWith and isPrefixOf as a part list holding the same parts does', () => {
    const digest = PartDigest.from(parts);
    const list = PartList.from(parts);
    const probes = [...keys, partKey(text('alphb')), partKey(text('alpha ')), partKey({ kind: 'data', data: { a: [2], b: 1 } }), partKey(text('gamma'))];
    for (let i = -1; i <= parts.length; i++) for (const key of probes) expect(digest.hasKey(i, key)).toBe(i >= 0 && i < parts.length && list.hasKey(i, key));
    for (let n = 0; n <= keys.length; n++) {
      expect(digest.startsWith(keys.slice(0, n))).toBe(true);
      expect(PartDigest.from(parts.slice(0, n)).isPrefixOf(keys)).toBe(true);
    }
    expect(digest.startsWith([...keys, 'more'])).toBe(false);
    expect(digest.isPrefixOf(keys.slice(0, 2))).toBe(false);
    expect(digest.startsWith([keys[0] as string, partKey(text('other'))])).toBe(false);
    expect(digest.length).toBe(parts.length);
    expect(digest.kept).toBe(false);
    expect(digest.slice()).toEqual([]);
  });

  it('tells apart texts of equal length that differ in one character, anywhere, over 20,000 pairs', () => {
    const base = 'x'.repeat(160);
    const digest = PartDigest.from([text(base)]);
    let equal = 0;
    for (let i = 0; i < 160; i++) {
      for (let c = 0; c < 125; c++) {
        const other = base.slice(0, i) + String.fromCharCode(0x21 + c + (c >= 0x57 ? 1 : 0)) + base.slice(i + 1);
        if (other !== base && digest.hasKey(0, other)) equal++;
      }
    }
    expect(equal).toBe(0);
  });

  it('grows past its first buffer and truncates to a prefix', () => {
    const many = Array.from({ length: 1_000 }, (_, i) => text(`part ${i}`));
    const digest = PartDigest.from(many);
    expect(digest.startsWith(many.map(partKey))).toBe(true);
    digest.truncate(10);
    expect(digest.length).toBe(10);
    expect(digest.isPrefixOf(many.map(partKey))).toBe(true);
    digest.push(text('new'));
    expect(digest.hasKey(10, 'new')).toBe(true);
    expect(digest.hasKey(10, 'part 10')).toBe(false);
  });
});
