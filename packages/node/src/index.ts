// @a2a-tether/node — Tether for Node.js: core plus the Node platform.
//
// Everything @a2a-tether/core exports, as is, except `connect`: the explicit export below (undici's
// fetch by default) takes precedence over the star. Core's index lists each name once; this star is
// a deliberate exception to "no export *", so the two lists cannot drift (docs/design/decisions.md D11).
export * from '@a2a-tether/core';
export { connect, NODE_MAX_STREAMS } from './connect.js';
export type { NodeConnectOptions } from './connect.js';
export { classifyAddress } from './address-kind.js';
export type { AddressKind } from './address-kind.js';
export type { NetworkOptions } from './ssrf-guard.js';
export { createNodeFetch, defaultNodeFetch } from './node-fetch.js';
export type { NodeFetch, NodeFetchOptions } from './node-fetch.js';
export { createPushReceiver } from './push/push-receiver.js';
export type { ExpectOptions, PushReceiver, PushReceiverOptions, PushReceiverStats, PushRegistration, RegisterOptions } from './push/push-receiver.js';
export { PUSH_RECEIVER_DEFAULTS } from './push/defaults.js';
export type { PushNotice, PushListener } from './push/push-notice.js';
export type { PushJwtOptions } from './push/jwt-check.js';
export type { PushHmacOptions } from './push/hmac-check.js';
export type { PushRelay, RelayedPush, RelayRegistration, TokenEntry } from './push/push-relay.js';
export { createFileTaskStore } from './file-task-store.js';
export type { FileTaskStoreOptions } from './file-task-store.js';
