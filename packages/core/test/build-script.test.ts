import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// scripts/build.mjs (issue 20): builds only stale packages, in dependency order, and keeps the build
// tools' output back unless a build fails. Run here on a fake workspace whose `tsdown` is a shell script
// that logs its calls and prints a lot.

const script = fileURLToPath(new URL('../../../scripts/build.mjs', import.meta.url));
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const FAKE_TSDOWN = `#!/bin/sh
echo "$(basename "$PWD")" >> "$CALLS"
i=0; while [ $i -lt 60 ]; do echo "ℹ [ESM] dist/chunk-$i.js 1.00 kB"; i=$((i+1)); done
echo "[tsdown] Node.js v20 is deprecated." >&2
if [ -f FAIL ]; then echo "src/index.ts:1:1 planted failure"; exit 1; fi
mkdir -p dist && echo "export {}" > dist/index.js
`;

/** packages/a (no deps), b (depends on a), c (only a dev dependency on a). */
function workspace(): { root: string; calls: () => string[]; build: (...args: string[]) => { status: number | null; stdout: string; stderr: string } } {
  const root = mkdtempSync(join(tmpdir(), 'tether-build-'));
  roots.push(root);
  const pkg = (name: string, manifest: Record<string, unknown>): void => {
    const dir = join(root, 'packages', name);
    mkdirSync(join(dir, 'src'), { recursive: true });
    mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `@x/${name}`, scripts: { build: 'tsdown' }, ...manifest }));
    writeFileSync(join(dir, 'src/index.ts'), 'export {};\n');
    writeFileSync(join(dir, 'node_modules/.bin/tsdown'), FAKE_TSDOWN);
    chmodSync(join(dir, 'node_modules/.bin/tsdown'), 0o755);
  };
  pkg('a', {});
  pkg('b', { dependencies: { '@x/a': 'workspace:*' } });
  pkg('c', { devDependencies: { '@x/a': 'workspace:*' } });
  writeFileSync(join(root, 'tsconfig.base.json'), '{}');
  const callsFile = join(root, 'calls.log');
  writeFileSync(callsFile, '');
  return {
    root,
    calls: () => readFileSync(callsFile, 'utf8').split('\n').filter(Boolean),
    build: (...args) => {
      const run = spawnSync(process.execPath, [script, '--root', root, ...args], { env: { ...process.env, CALLS: callsFile }, encoding: 'utf8', timeout: 30_000 });
      return { status: run.status, stdout: run.stdout, stderr: run.stderr };
    },
  };
}

describe('scripts/build.mjs', () => {
  it('builds everything once, in order, printing one line instead of the tools’ output', () => {
    const ws = workspace();
    const run = ws.build();
    expect(run.status).toBe(0);
    expect(ws.calls().sort()).toEqual(['a', 'b', 'c']);
    expect(ws.calls().indexOf('a')).toBeLessThan(ws.calls().indexOf('b'));
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expect(run.stdout).toMatch(/^build: .*\(\d+\.\ds; the other 0 up to date\)\n$/);
    expect(run.stderr).toBe('');
  });

  it('a second run builds nothing; a changed source rebuilds its package and what ships with it', () => {
    const ws = workspace();
    writeFileSync(join(ws.root, 'packages/c/src/index.test.ts'), '');
    ws.build();
    const again = ws.build();
    expect(again.stdout).toBe('build: all 3 packages up to date\n');
    expect(ws.calls()).toHaveLength(3);

    // a's source changes: a, and b (a dependency) — not c (a dev dependency only).
    writeFileSync(join(ws.root, 'packages/a/src/index.ts'), 'export const x = 1;\n');
    const after = ws.build();
    expect(after.status).toBe(0);
    expect(ws.calls().slice(3).sort()).toEqual(['a', 'b']);

    // A test file is not a source of dist (a changed one; a new file changes its directory); the config is.
    writeFileSync(join(ws.root, 'packages/c/src/index.test.ts'), 'it();\n');
    expect(ws.build().stdout).toBe('build: all 3 packages up to date\n');
    writeFileSync(join(ws.root, 'packages/c/tsdown.config.ts'), 'export default {};\n');
    ws.build();
    expect(ws.calls().slice(5)).toEqual(['c']);
  });

  it('--force builds every package', () => {
    const ws = workspace();
    ws.build();
    ws.build('--force');
    expect(ws.calls()).toHaveLength(6);
  });

  it('a removed dist, or a source file removed, is a stale build', () => {
    const ws = workspace();
    writeFileSync(join(ws.root, 'packages/a/src/extra.ts'), '');
    ws.build();
    rmSync(join(ws.root, 'packages/b/dist'), { recursive: true });
    ws.build();
    expect(ws.calls().slice(3)).toEqual(['b']);
    rmSync(join(ws.root, 'packages/c/src/index.ts'));
    ws.build();
    expect(ws.calls().slice(4)).toEqual(['c']);
  });

  it('a failed build prints all of its output and exits non-zero', () => {
    const ws = workspace();
    writeFileSync(join(ws.root, 'packages/a/FAIL'), '');
    const run = ws.build();
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('src/index.ts:1:1 planted failure');
    expect(run.stderr).toContain('dist/chunk-59.js');
    expect(run.stderr).toContain('[tsdown] Node.js v20 is deprecated.');
    expect(run.stderr).toMatch(/✖ build of @x\/a failed \(exit 1\); its output is above\.\n$/);
    // b waits for a, so it was never started.
    expect(ws.calls()).not.toContain('b');
  });
});
