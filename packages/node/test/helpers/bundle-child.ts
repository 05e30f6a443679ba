// A child-process script bundled once by esbuild from the package sources: it starts in a tenth of the
// time a TypeScript loader takes, and it is one process (a loader's CLI would put a parent between a
// SIGKILL and the child's work).
import { chmod, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Bundles `fixture` into a fresh temporary directory (readable by everyone, for a child that runs as
 * another user); returns the script and the directory, which the caller removes.
 */
export async function bundleChild(fixture: URL): Promise<{ script: string; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'tether-child-'));
  await chmod(dir, 0o755);
  const name = fileURLToPath(fixture).split(/[\\/]/).pop()?.replace(/\.ts$/, '.mjs') ?? 'child.mjs';
  const script = join(dir, name);
  await build({
    entryPoints: [fileURLToPath(fixture)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@a2a-tether/source'],
    outfile: script,
    logLevel: 'error',
    // CommonJS dependencies bundled into ESM (undici, redis) call require().
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  return { script, dir };
}
