import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');
const PACKAGES = join(import.meta.dirname, '..', '..');

/** No source file is longer than this (issue 17). */
const LINE_CEILING = 600;
/** The follow's loop (issue 17): the phase's step, the reducer, the effects — the rest lives in its runners. */
const LOOP_CEILING = 400;

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

/** Every source file (no tests) of every package's `src`. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts') && !path.endsWith('.test.ts')) files.push(path);
    }
  };
  for (const pkg of readdirSync(PACKAGES)) {
    const src = join(PACKAGES, pkg, 'src');
    if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) walk(src);
  }
  return files;
}

/** The files each file imports by a relative path: `import`, `import type`, `export … from` and `import()`. */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const [, spec] of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      targets.push(resolve(dirname(file), (spec as string).replace(/\.js$/, '.ts')));
    }
    graph.set(file, targets);
  }
  return graph;
}

/** The import cycles of `graph`: its strongly connected components of more than one file (or a file importing itself). */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('layering of core', () => {
  // http/ is the mechanism (fetch, redirects, timeouts, typed errors); auth/ is policy on top of it.
  // observe/ (plugins, trace context) is what http/ tells of each request.
  it('http/ imports nothing but itself, errors/ and observe/', () => {
    const folders = importedFolders('http');
    expect(Object.fromEntries([...folders].filter(([folder]) => !['.', 'errors', 'observe'].includes(folder)))).toEqual({});
  });

  it('observe/ imports nothing but itself, errors/, and the types of model/ and task events', () => {
    const folders = importedFolders('observe');
    expect(Object.fromEntries([...folders].filter(([folder]) => !['.', 'errors', 'model', 'task'].includes(folder)))).toEqual({});
    const fromTask = readdirSync(join(SRC, 'observe'))
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(join(SRC, 'observe', f), 'utf8').matchAll(/from '\.\.\/task\/([^']+)'/g)].map((m) => m[1]));
    expect(new Set(fromTask)).toEqual(new Set(['task-event.js']));
  });

  it('in task/, only the handle and start-task import the follow loop', () => {
    const importers = readdirSync(join(SRC, 'task'))
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .filter((f) => /from\s+'\.\/follower\.js'/.test(readFileSync(join(SRC, 'task', f), 'utf8')));
    expect(importers.sort()).toEqual(['start-task.ts', 'task-handle.ts']);
  });

  it(`the follow's loop is at most ${LOOP_CEILING} lines, and only its dispatch replaces the state value`, () => {
    const text = readFileSync(join(SRC, 'task', 'follower.ts'), 'utf8');
    expect(text.split('\n').length - 1).toBeLessThanOrEqual(LOOP_CEILING);
    // One write besides the first value, in the constructor: the reducer's next state, in dispatch().
    const writes = [...text.matchAll(/this\.current = ([^;]+);/g)].map((m) => m[1]);
    expect(writes).toHaveLength(2);
    // The first value's time is the reducer's own reading (monotonic: G14).
    expect(writes[0]).toMatch(/^initialState\(\(this\.env \?\?= reducerEnv\(this\)\)\.tick\(\)\.now, resilience, /);
    expect(writes[1]).toBe('state');
    expect(text).toMatch(/ dispatch\(input: FollowInput\): void \{\n(?:.*\n){0,4}\s*this\.current = state;\n/);
  });
});

describe('layering of every package', () => {
  const files = sourceFiles();

  it('finds the sources it checks', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.endsWith(join('task', 'follower.ts')))).toBe(true);
  });

  it('has no import cycles in packages/*/src (type-only imports and import() included)', () => {
    const cycles = importCycles(importGraph(files)).map((c) => c.map((f) => relative(PACKAGES, f)));
    expect(cycles).toEqual([]);
  });

  it('the cycle finder finds a cycle, also through a type-only import or an import()', () => {
    const dir = mkdtempSync(join(tmpdir(), 'layering-'));
    const file = (name: string, text: string): string => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    const a = file('a.ts', "import type { B } from './b.js';\nexport interface A { b: B }\n");
    const b = file('b.ts', "export { c } from './c.js';\nexport interface B { n: number }\n");
    const c = file('c.ts', "export const c = () => import('./a.js');\n");
    const d = file('d.ts', "import { c } from './c.js';\nvoid c;\n");
    try {
      expect(importCycles(importGraph([a, b, c, d]))).toEqual([[a, b, c].sort()]);
      expect(importCycles(importGraph([b, d]))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it(`no source file is over ${LINE_CEILING} lines`, () => {
    const over = files
      .map((f) => ({ file: relative(PACKAGES, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > LINE_CEILING);
    expect(over).toEqual([]);
  });
});
