import { readFileSync } from 'node:fs';
import * as core from '@a2a-tether/core';
import { describe, expect, it } from 'vitest';
import * as browser from '../../browser/src/index.js';
import * as node from '../src/index.js';

describe('public surface', () => {
  it('node and browser re-export every value core exports (regenerate with scripts/sync-reexports.mjs)', () => {
    const names = Object.keys(core).sort();
    for (const name of names) {
      expect(Object.keys(node), `@a2a-tether/node misses ${name}`).toContain(name);
      expect(Object.keys(browser), `@a2a-tether/browser misses ${name}`).toContain(name);
    }
    // Their own connect wraps core's with the platform's fetch.
    expect(node.connect).not.toBe(core.connect);
    expect(browser.connect).not.toBe(core.connect);
  });

  it('no package index uses export *', () => {
    for (const pkg of ['core', 'node', 'browser', 'testkit']) {
      const source = readFileSync(new URL(`../../${pkg}/src/index.ts`, import.meta.url), 'utf8');
      expect(source, pkg).not.toMatch(/export \*/);
    }
  });
});
