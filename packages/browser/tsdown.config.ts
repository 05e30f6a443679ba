import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: { index: 'src/index.ts', protocol: 'src/protocol-entry.ts', signing: 'src/signing-entry.ts', chats: 'src/chats-entry.ts' },
  format: ['esm'],
  platform: 'browser',
  target: 'es2022',
  dts: true,
  sourcemap: true,
  fixedExtension: false,
  publint: true,
  attw: { profile: 'esm-only', level: 'error' },
});
