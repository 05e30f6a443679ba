// @a2a-tether/node/relay — a same-origin relay route for web apps: agents served under the app's origin,
// their credentials kept on the server, each task visible to its owner only. See docs/relay.md.
export { createRelay } from './relay/relay.js';
export type { RelayHandler } from './relay/relay.js';
export { RELAY_DEFAULTS } from './relay/relay-options.js';
export type { RelayAgent, RelayHeaders, RelayLimits, RelayOptions } from './relay/relay-options.js';
export { createMemoryOwnership } from './relay/owner-book.js';
export type { RelayOwnership } from './relay/owner-book.js';
export { toNodeHandler } from './relay/node-handler.js';
export type { NodeHandlerOptions } from './relay/node-handler.js';
