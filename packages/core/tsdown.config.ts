import { defineConfig } from 'tsdown';

// jose ships only as ESM. The CommonJS build cannot require() it — rolldown's CJS interop would take
// the module namespace for the default export — so the CJS build carries its own copy (only what
// ./signing uses); the ESM build imports the package.
const ESM_ONLY = ['jose'];

export default defineConfig({
  // The root entry (the user API), the `./protocol`, `./orchestrate`, `./signing`, `./workers` and `./zod` subpaths; code they share lands in a
  // shared chunk, so an error class is one class whichever entry it came from.
  entry: { index: 'src/index.ts', protocol: 'src/protocol-entry.ts', orchestrate: 'src/orchestrate-entry.ts', signing: 'src/signing-entry.ts', workers: 'src/workers-entry.ts', zod: 'src/zod-entry.ts' },
  format: {
    esm: {},
    // onlyBundle: anything else ending up in the CJS bundle fails the build.
    cjs: { deps: { alwaysBundle: (id) => ESM_ONLY.includes(id), onlyBundle: ESM_ONLY, skipNodeModulesBundle: false } },
  },
  platform: 'neutral',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  fixedExtension: false,
  publint: true,
  attw: { profile: 'node16', level: 'error' },
});
