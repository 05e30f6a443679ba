import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { measureBrowserBundle } from '../../../scripts/bundle-size.mjs';

// These read the BUILT files: they check what users get, not the sources.
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const coreDist = fileURLToPath(new URL('../../core/dist/', import.meta.url));
// Every JS file: both entries (the root and `/protocol`) and the chunks they share.
const jsFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => dir + f);
// Module specifiers that would pull in Node, and Node-only globals (comments may mention them).
const FORBIDDEN = [
  /(?:\bfrom|\bimport|\brequire)\s*\(?\s*["'](?:node:[^"']+|undici(?:\/[^"']*)?|fs|net|http|https|stream|buffer|crypto)["']/,
  /\bprocess\.(?:env|versions|nextTick)\b/,
  /\bBuffer\.(?:from|alloc)\b/,
  /\bsetImmediate\(/,
];

function offenders(code: string): string[] {
  return FORBIDDEN.flatMap((pattern) => {
    const match = pattern.exec(code);
    return match ? [`${pattern} at …${code.slice(Math.max(0, match.index - 40), match.index + 40)}…`] : [];
  });
}

describe('the browser bundle', () => {
  it('has been built (run `pnpm build` first)', () => {
    for (const file of [`${dist}index.js`, `${dist}protocol.js`, `${coreDist}index.js`, `${coreDist}protocol.js`]) {
      expect(existsSync(file), `${file} is missing`).toBe(true);
    }
  });

  it('imports nothing from Node or undici, in its own file or in core', () => {
    const files = [...jsFiles(dist), ...jsFiles(coreDist)];
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) expect(offenders(readFileSync(file, 'utf8')), file).toEqual([]);
  });

  it('bundles for the browser platform with every dependency and stays free of Node', async () => {
    const bundle = await measureBrowserBundle();
    expect(offenders(bundle.code)).toEqual([]);
    const packages = bundle.inputs.map((i) => i.path).filter((p) => p.includes('node_modules'));
    expect(packages.some((p) => p.includes('undici'))).toBe(false);
    expect(bundle.gzipBytes).toBeGreaterThan(1_000);
  });

  it('leaves out jose and the card signing code (only `@a2a-tether/core/signing` imports them)', async () => {
    const bundle = await measureBrowserBundle();
    const inputs = bundle.inputs.map((i) => i.path);
    expect(inputs.filter((p) => /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?jose\//.test(p))).toEqual([]);
    expect(inputs.filter((p) => p.includes('/signing'))).toEqual([]);
  });

  it('leaves out the push and lease runners (the browser connect hands the engine neither)', async () => {
    const bundle = await measureBrowserBundle();
    // Only lease-keeper.ts says this; only push-waiter.ts registers a task with a push receiver.
    expect(bundle.code).not.toContain('no renewal of its lease was confirmed');
    expect(bundle.code).not.toMatch(/\.expect\(\w+,\s*\{\s*token:/);
    // …while core's own build, which hands both, has them (so the check can fail): in the chunks its entry
    // loads (the lease keeper is a chunk of its own since orchestration keeps workflow leases with it too).
    const core = jsFiles(coreDist)
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    expect(core).toContain('no renewal of its lease was confirmed');
    expect(core).toMatch(/\.expect\(\w+(?:\.\w+)?,\s*\{\s*token:/);
  });

  it('the check itself catches a Node import', () => {
    expect(offenders('import { readFile } from "node:fs";')).toHaveLength(1);
    expect(offenders('import { fetch } from "undici";')).toHaveLength(1);
    expect(offenders('const x = require("undici/lib/fetch");')).toHaveLength(1);
    expect(offenders('const e = import("node:events")')).toHaveLength(1);
    expect(offenders('// undici puts the errno in cause')).toHaveLength(0);
  });
});
