import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

/** The folders of `src` each file of `folder` imports from (its own folder as '.'). */
function importedFolders(folder: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of readdirSync(join(SRC, folder)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    const text = readFileSync(join(SRC, folder, file), 'utf8');
    for (const [, from] of text.matchAll(/\bfrom\s+'([^']+)'/g)) {
      const target = from?.startsWith('./') ? '.' : /^\.\.\/([^/]+)\//.exec(from ?? '')?.[1] ?? (from as string);
      out.set(target, [...(out.get(target) ?? []), file]);
    }
  }
  return out;
}

describe('layering of core', () => {
  // http/ is the mechanism (fetch, redirects, timeouts, typed errors); auth/ is policy on top of it.
  it('http/ imports nothing but itself and errors/', () => {
    const folders = importedFolders('http');
    expect(Object.fromEntries([...folders].filter(([folder]) => folder !== '.' && folder !== 'errors'))).toEqual({});
  });
});
