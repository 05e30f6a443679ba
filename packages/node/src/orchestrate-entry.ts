// @a2a-tether/node/orchestrate — @a2a-tether/core/orchestrate plus Node's durable workflow store, so a
// Node app that depends only on this package can orchestrate too.
//
// The star is deliberate, as in the root entry (./index.ts): core's orchestrate entry is the one list
// of its names, so the two lists cannot drift (docs/design/decisions.md D11).
export * from '@a2a-tether/core/orchestrate';
export { createFileWorkflowStore } from './file-workflow-store.js';
export type { FileWorkflowStoreOptions } from './file-workflow-store.js';
