// @a2a-tether/core/protocol — the protocol layer, for code that works with A2A wire objects and cards
// itself (a push receiver, a proxy, a test double) rather than through `connect()`. App code needs only
// the root entry. Every public name is listed here on purpose (decisions.md D11).

export { decodeStreamEvent, decodeTask, decodeMessage, decodeSendResult, decodeTaskPage, decodePushConfig, decodePushConfigList } from './protocol/decode.js';
export { encodeMessage, encodeSendParams, encodePushConfig } from './protocol/encode.js';
export type { SendParams } from './protocol/encoder.js';
export type { Dialect } from './protocol/dialect.js';
export { DecodeError } from './protocol/decode-error.js';
export { endsStream } from './model/task-state.js';

export { normalizeCard, majorMinor } from './card/normalize-card.js';
export { cardCandidates } from './card/resolve-card.js';
export { negotiate } from './card/negotiate.js';
export type { NegotiationPreferences, NegotiableBinding } from './card/negotiate.js';

// For bindings of your own (`connect(url, { bindings })`): a stream of normalized events as an EventFeed.
export { eventFeed } from './transport/iterable-feed.js';

export { parseRetryAfter } from './http/retry-after.js';

// Typed data parts (the root entry has `task.data(schema)`, `isSchemaMismatch` and the types).
export { dataOf, SchemaMismatchError } from './schema/data-of.js';

// A2A v1.1 draft: what an agent's TaskGenerationMismatchError (-32010) says (here, not in the main entry, for bundle size).
export { generationMismatch } from './errors/generation-mismatch.js';
export type { GenerationMismatch } from './errors/generation-mismatch.js';

// Every page of ListTasks (v1.0).
export { taskPages } from './client/task-pages.js';
export type { ListsTasks } from './client/task-pages.js';

// The A2A error code of a `google.rpc.ErrorInfo` reason (for bindings that carry errors as ErrorInfo, e.g. gRPC).
export { a2aCodeForReason } from './errors/a2a-errors.js';
