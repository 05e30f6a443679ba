import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', '**/fixtures/**', '.docs-snippets/**', 'docs/api/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Name every export: no `export *` (style.md habit 2).' },
      ],
    },
  },
  {
    // The one exception to "no export *": node and browser re-export core's entries whole, so core's
    // index is the only list of names and the platform packages cannot drift from it
    // (docs/design/decisions.md D11). Any other export * in these packages is still an error.
    files: [
      'packages/node/src/index.ts',
      'packages/node/src/protocol-entry.ts',
      'packages/node/src/signing-entry.ts',
      'packages/node/src/orchestrate-entry.ts',
      'packages/browser/src/index.ts',
      'packages/browser/src/protocol-entry.ts',
      'packages/browser/src/signing-entry.ts',
      // The API reference's modules: each is one public entry point under its package name (typedoc.json).
      'scripts/api-reference/*.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    // Core is runtime-neutral: nothing from Node, nothing DOM-only.
    files: ['packages/core/src/**/*.ts'],
    ignores: ['packages/core/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['node:*', 'undici', 'undici/*', 'idb-keyval'], message: 'core must stay runtime-neutral' }] },
      ],
      'no-restricted-globals': [
        'error',
        ...['window', 'document', 'localStorage', 'sessionStorage', 'indexedDB', 'navigator', 'process', 'Buffer', 'require', '__dirname'].map(
          (name) => ({ name, message: 'core must stay runtime-neutral' }),
        ),
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'packages/cli/bin/*.js', 'packages/runtimes/*.mjs', 'packages/runtimes/src/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly' } },
  },
);
