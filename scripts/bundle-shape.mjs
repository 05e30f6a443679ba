#!/usr/bin/env node
// What a web app loads before its first request: a small app (connect, start a task, await done())
// bundled by esbuild as a web app would be — code splitting, ESM, minified, browser platform — against
// the BUILT packages (packages/*/dist; run `pnpm build` first). The initial load is the entry chunk
// plus every chunk it imports statically; chunks reached only through `import()` load later: the task
// engine and the card reader while the card request is out, the binding and version once the card names them.
// Each chunk is gzipped on its own (-9), as it is served. Prints JSON; `--check` fails over budget.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * The initial load's budget in bytes, min+gzip: a ratchet at what it measures (lower it when it drops).
 * Measured 19,408 B once the task engine and the card reader load during the card request (D26); 19,957 B
 * with the v1.1 draft's task generation (the connect flag, `ifGenerationMatch` on a send, its ErrorInfo reason);
 * 19,887 B after issues 33 and 34, a raw stream's iteration moved to the engine's chunk (D47).
 */
export const INITIAL_BUDGET_BYTES = 19_960;
/** Issue 17's target for the initial load, shown beside the budget. */
export const INITIAL_TARGET_BYTES = 20_000;

const APP = `
import { connect } from '@a2a-tether/browser';
export async function ask(text) {
  const client = await connect(location.origin);
  const task = await client.start(text);
  return task.done();
}
`;

/** `app`: the app's source (default the small app above); it imports `@a2a-tether/browser` as a web app does. */
export async function measureInitialLoad(app = APP) {
  // A file of its own inside the browser package, so that `@a2a-tether/browser` resolves through
  // the package's exports (to dist) as it would from an app's node_modules.
  const dir = mkdtempSync(join(tmpdir(), 'tether-bundle-shape-'));
  try {
    const entry = join(root, 'packages/browser', `.bundle-shape-app-${process.pid}.js`);
    writeFileSync(entry, app);
    try {
      const result = await build({
        entryPoints: { app: entry },
        bundle: true,
        splitting: true,
        minify: true,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        outdir: dir,
        absWorkingDir: root,
        write: false,
        metafile: true,
        logLevel: 'silent',
      });
      const files = new Map(result.outputFiles.map((f) => [f.path, f.contents]));
      const outputs = result.metafile.outputs;
      const chunks = Object.entries(outputs)
        .filter(([path]) => path.endsWith('.js'))
        .map(([path, info]) => {
          const code = files.get(resolve(root, path));
          if (!code) throw new Error(`bundle-shape: no output for ${path}`);
          return {
            path,
            // Chunks reached by `import()` are entry points too, but not the app's.
            entry: info.entryPoint === relative(root, entry),
            minifiedBytes: code.byteLength,
            gzipBytes: gzipSync(code, { level: 9 }).byteLength,
            code: Buffer.from(code).toString('utf8'),
            inputs: Object.keys(info.inputs),
            staticImports: info.imports.filter((i) => i.kind === 'import-statement').map((i) => i.path),
            dynamicImports: info.imports.filter((i) => i.kind === 'dynamic-import').map((i) => i.path),
          };
        });
      const byPath = new Map(chunks.map((c) => [c.path, c]));
      /** The chunks `roots` load: themselves and what they import statically. */
      const closure = (roots) => {
        const seen = new Set();
        const visit = (path) => {
          if (seen.has(path)) return;
          seen.add(path);
          for (const next of byPath.get(path)?.staticImports ?? []) visit(next);
        };
        for (const chunk of roots) visit(chunk.path);
        return chunks.filter((c) => seen.has(c.path));
      };
      const total = (list) => ({
        gzipBytes: list.reduce((sum, c) => sum + c.gzipBytes, 0),
        minifiedBytes: list.reduce((sum, c) => sum + c.minifiedBytes, 0),
        chunks: list,
      });
      const initial = closure(chunks.filter((c) => c.entry));
      const holding = (pattern) => chunks.filter((c) => c.inputs.some((i) => pattern.test(i)));
      // What connect() imports while the card request is out: the task engine and the card reader.
      const during = closure(holding(/core\/dist\/(?:engine|normalize-card)-[^/]+\.js$/)).filter((c) => !initial.includes(c));
      // What a v1.0 JSON-RPC card adds: the chunks holding core's JSON-RPC binding and v1.0 writers.
      const named = holding(/core\/dist\/(?:jsonrpc-transport|encode-v1)-[^/]+\.js$/);
      const afterCard = closure(named).filter((c) => !initial.includes(c) && !during.includes(c));
      return { initial: total(initial), duringCardRequest: total(during), v1JsonRpcAfterCard: total(afterCard), all: total(chunks) };
    } finally {
      rmSync(entry, { force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { initial, duringCardRequest, v1JsonRpcAfterCard, all } = await measureInitialLoad();
  const sizes = (t) => ({ gzipBytes: t.gzipBytes, minifiedBytes: t.minifiedBytes, chunks: t.chunks.length });
  if (process.argv.includes('--check')) {
    const line = `a web app loads ${initial.gzipBytes} B (min+gzip) before its first request; budget ${INITIAL_BUDGET_BYTES} B, issue 17's target ${INITIAL_TARGET_BYTES} B`;
    if (initial.gzipBytes > INITIAL_BUDGET_BYTES) {
      console.error(`✖ ${line}: over budget`);
      process.exit(1);
    }
    console.log(`✔ ${line}`);
  } else {
    const report = {
      initial: sizes(initial),
      duringCardRequest: sizes(duringCardRequest),
      v1JsonRpcAfterCard: sizes(v1JsonRpcAfterCard),
      allChunks: sizes(all),
      budgetBytes: INITIAL_BUDGET_BYTES,
      targetBytes: INITIAL_TARGET_BYTES,
      chunks: all.chunks.map((c) => ({ path: c.path, gzipBytes: c.gzipBytes, initial: initial.chunks.includes(c) })),
    };
    console.log(JSON.stringify(report, null, 2));
  }
}
