#!/usr/bin/env node
// Measures what a browser app pays for Tether: every export of @a2a-tether/browser bundled with
// its dependencies by esbuild (minified, browser platform), then gzip -9. Prints JSON.
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function measureBrowserBundle() {
  const result = await build({
    stdin: { contents: "export * from '@a2a-tether/browser';", resolveDir: `${root}/packages/browser`, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0].contents;
  const inputs = Object.entries(result.metafile.inputs).map(([path, info]) => ({ path, bytes: info.bytes }));
  return {
    minifiedBytes: code.byteLength,
    gzipBytes: gzipSync(code, { level: 9 }).byteLength,
    code: Buffer.from(code).toString('utf8'),
    inputs,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { minifiedBytes, gzipBytes, inputs } = await measureBrowserBundle();
  const byPackage = {};
  for (const { path, bytes } of inputs) {
    const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? 'tether';
    byPackage[pkg] = (byPackage[pkg] ?? 0) + bytes;
  }
  console.log(JSON.stringify({ minifiedBytes, gzipBytes, inputBytesByPackage: byPackage }, null, 2));
}
