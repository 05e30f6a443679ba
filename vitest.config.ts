import { defineConfig } from 'vitest/config';

// One run covers every package. Workspace packages resolve to their TypeScript
// sources through the "@a2a-tether/source" export condition, so tests need no build.
// Vitest passes ssr.resolve.conditions to its workers as `--conditions` flags, which also steer
// CommonJS `require`: listing `import` there makes express load ESM builds of its dependencies.
const conditions = ['@a2a-tether/source', 'node'];

export default defineConfig({
  resolve: { conditions: ['@a2a-tether/source', 'module', 'browser', 'development|production'] },
  ssr: { resolve: { conditions, externalConditions: ['@a2a-tether/source'] } },
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'core', include: ['packages/core/{src,test}/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'node', include: ['packages/node/{src,test}/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'otel', include: ['packages/otel/{src,test}/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'testkit', include: ['packages/testkit/{src,test}/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'interop',
          include: ['packages/interop/test/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'cli',
          include: ['packages/cli/{src,test}/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: { name: 'runtimes', include: ['packages/runtimes/test/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'ai-sdk', include: ['packages/ai-sdk/{src,test}/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'react',
          include: ['packages/react/test/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['packages/browser/test/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
