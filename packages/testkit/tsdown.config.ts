import { defineConfig } from 'tsdown';

export default defineConfig({
  // store-contract: the TaskStore contract alone (no Node APIs), for stores tested in a browser.
  entry: ['src/index.ts', 'src/store-contract.ts'],
  format: ['esm', 'cjs'],
  platform: 'node',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  fixedExtension: false,
  publint: true,
  attw: { profile: 'node16', level: 'error' },
});
