import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  fixedExtension: false,
  publint: true,
  attw: { profile: 'esm-only', level: 'error' },
});
