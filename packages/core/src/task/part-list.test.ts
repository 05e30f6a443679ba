import { describe, expect, it } from 'vitest';
import type { Part } from '../model/types.js';
import { partKey } from './part-key.js';
import { PartList } from './part-list.js';

/** A mix the packer must keep exact: plain runs, media types that change, metadata, files, data, NUL-led text. */
function parts(n: number): Part[] {
  const out: Part[] = [];
  for (let i = 0; i < n; i++) {
    const r = i % 17;
    if (r === 3) out.push({ kind: 'text', text: `meta ${i}`, metadata: { i } });
    else if (r === 5) out.push({ kind: 'file', uri: `https://f/${i}`, mediaType: 'image/png' });
    else if (r === 7) out.push({ kind: 'data', data: { i, nested: [i] } });
    else if (r === 11) out.push({ kind: 'text', text: `md ${i}`, mediaType: 'text/markdown' });
    else if (r === 13) out.push({ kind: 'text', text: `\u0000nul ${i}` });
    else if (r === 15) out.push({ kind: 'text', text: '' });
    else if (r === 16) out.push({ kind: 'text', text: `lone \uD800 surrogate ${i} \uDC00` });
    else out.push({ kind: 'text', text: `chunk ${i} é✓😀`, ...(i % 2 ? { mediaType: 'text/plain' } : {}) });
  }
  return out;
}

describe('PartList', () => {
  it('gives back every part equal (key order included) and keyed like partKey, across packed blocks and the tail', () => {
    const original = parts(1_000);
    const list = PartList.from(original);
    expect(list.length).toBe(1_000);
    for (let i = 0; i < original.length; i++) {
      expect(JSON.stringify(list.at(i)), `part ${i}`).toBe(JSON.stringify(original[i]));
      expect(list.key(i), `key ${i}`).toBe(partKey(original[i] as Part));
      expect(list.hasKey(i, partKey(original[i] as Part)), `hasKey ${i}`).toBe(true);
      expect(list.hasKey(i, `${partKey(original[i] as Part)}x`), `not hasKey ${i}`).toBe(false);
    }
    expect(JSON.stringify(list.slice())).toBe(JSON.stringify(original));
    expect(JSON.stringify(list.slice(250, 520))).toBe(JSON.stringify(original.slice(250, 520)));
  });

  it('gives back parts exact on both sides of the joins, and in the tail not joined yet', () => {
    // Past 1,024 plain parts or 128 Ki characters the decoder's strings are joined into one block.
    const original = parts(5_000);
    original.push({ kind: 'text', text: 'y'.repeat(140_000) }, { kind: 'text', text: '\u0000after a long one' }, { kind: 'text', text: 'last' });
    const list = new PartList();
    for (let i = 0; i < original.length; i++) {
      list.push(original[i] as Part);
      // The newest part, read while it may still be in the tail.
      expect(list.hasKey(i, partKey(original[i] as Part)), `hasKey new ${i}`).toBe(true);
      expect(JSON.stringify(list.at(i)), `new part ${i}`).toBe(JSON.stringify(original[i]));
    }
    for (let i = 0; i < original.length; i++) {
      const key = partKey(original[i] as Part);
      expect(JSON.stringify(list.at(i)), `part ${i}`).toBe(JSON.stringify(original[i]));
      expect(list.key(i), `key ${i}`).toBe(key);
      expect(list.hasKey(i, key), `hasKey ${i}`).toBe(true);
      expect(list.hasKey(i, `${key}x`), `not hasKey ${i}`).toBe(false);
      expect(list.hasKey(i, key.slice(0, -1)), `not hasKey (shorter) ${i}`).toBe(key.length === 0);
    }
    expect(JSON.stringify(list.slice())).toBe(JSON.stringify(original));
    expect(list.startsWith(original.map(partKey))).toBe(true);
  });

  it('keeps long runs of plain text exact (one block per run)', () => {
    const original: Part[] = Array.from({ length: 600 }, (_, i) => ({ kind: 'text', text: `run ${i} ${'x'.repeat(i % 5)}`, mediaType: 'text/plain' }));
    const list = PartList.from(original);
    for (let i = 0; i < original.length; i++) {
      expect(list.at(i)).toEqual(original[i]);
      expect(list.key(i)).toBe(partKey(original[i] as Part));
    }
  });

  it('a whole-list read is extended as parts arrive, and returns a new array each time', () => {
    const list = PartList.from(parts(300));
    const first = list.slice();
    first.length = 0; // the caller's copy
    expect(list.slice()).toHaveLength(300);
    list.push({ kind: 'text', text: 'one more' });
    const again = list.slice();
    expect(again).toHaveLength(301);
    expect(again[300]).toEqual({ kind: 'text', text: 'one more' });
  });

  it('answers prefix questions by key', () => {
    const original = parts(700);
    const keys = original.map(partKey);
    const list = PartList.from(original);
    expect(list.startsWith(keys.slice(0, 600))).toBe(true);
    expect(list.startsWith(keys)).toBe(true);
    expect(list.startsWith([...keys, 'more'])).toBe(false);
    expect(list.startsWith([...keys.slice(0, 299), 'different'])).toBe(false);
    expect(list.isPrefixOf([...keys, 'more'])).toBe(true);
    expect(list.isPrefixOf(keys.slice(0, 699))).toBe(false);
    expect(PartList.from(original.slice(0, 300)).isPrefixOf(keys)).toBe(true);
  });
});
