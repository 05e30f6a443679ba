import { defineConfig } from 'tsdown';

export default defineConfig({
  // The root entry (the user API) and the `./protocol` subpath; code both use lands in a shared chunk,
  // so an error class is one class whichever entry it came from.
  entry: { index: 'src/index.ts', protocol: 'src/protocol-entry.ts' },
  format: ['esm', 'cjs'],
  platform: 'neutral',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  fixedExtension: false,
  publint: true,
  attw: { profile: 'node16', level: 'error' },
});
