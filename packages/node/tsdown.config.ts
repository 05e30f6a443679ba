import { defineConfig } from 'tsdown';

// jose ships only as ESM. As in core, the CommonJS build carries its own copy (only what the push
// receiver uses, tree-shaken); the ESM build imports the package.
const ESM_ONLY = ['jose'];

export default defineConfig({
  entry: { index: 'src/index.ts', protocol: 'src/protocol-entry.ts', signing: 'src/signing-entry.ts', redis: 'src/redis-entry.ts', orchestrate: 'src/orchestrate-entry.ts', grpc: 'src/grpc-entry.ts', relay: 'src/relay-entry.ts' },
  format: {
    esm: {},
    // onlyBundle: anything else ending up in the CJS bundle fails the build.
    cjs: { deps: { alwaysBundle: (id) => ESM_ONLY.includes(id), onlyBundle: ESM_ONLY, skipNodeModulesBundle: false } },
  },
  platform: 'node',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  fixedExtension: false,
  publint: true,
  attw: { profile: 'node16', level: 'error' },
});
