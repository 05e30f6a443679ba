// @a2a-tether/browser — Tether for browsers: core plus the browser platform. Nothing from Node here.
//
// Everything @a2a-tether/core exports, as is, except `connect`: the explicit export below (the page's
// fetch) takes precedence over the star. Core's index lists each name once; this star is a deliberate
// exception to "no export *", so the two lists cannot drift (docs/design/decisions.md D11).
export * from '@a2a-tether/core';
export { connect } from './connect.js';
export type { BrowserConnectOptions } from './connect.js';
export { canCoordinateTabs, createTabCoordinator } from './tabs.js';
export { pageNetworkSignals } from './lifecycle.js';
export { createIndexedDbTaskStore } from './indexeddb-task-store.js';
export type { IndexedDbTaskStore, IndexedDbTaskStoreOptions } from './indexeddb-task-store.js';
