import { array, boolean, enumValue, number, object, opt, record, string, unknown, type Infer } from './check.js';

// One tolerant shape per object, covering all three dialects on the wire:
// v1.0 ProtoJSON, v0.3 JSON-RPC (`kind` discriminators) and v0.3 HTTP+JSON (v0.3 proto JSON).
// Strict on the fields we use, lenient on unknown ones; ProtoJSON omits defaults, so
// almost everything is optional here and defaulted when converting.
// `wire-schemas.zod.ts` holds the same shapes in zod/mini, the oracle of `wire-oracle.test.ts`.
// (`generation`, v1.1 draft, is not checked: `withGeneration` reads it and keeps only a valid one.)

const optString = opt(string);
const optBoolean = opt(boolean);
const optStrings = opt(array(string));
const metadata = opt(record(unknown));

const wireFile = object({
  uri: optString,
  bytes: optString,
  fileWithUri: optString,
  fileWithBytes: optString,
  mimeType: optString,
  mediaType: optString,
  name: optString,
});

export const wirePart = object({
  kind: optString,
  text: optString,
  raw: optString,
  url: optString,
  data: unknown,
  file: opt(wireFile),
  metadata,
  filename: optString,
  mediaType: optString,
});
export type WirePart = Infer<typeof wirePart>;

const parts = opt(array(wirePart));

export const wireMessage = object({
  kind: optString,
  messageId: string,
  role: enumValue,
  parts,
  content: parts,
  contextId: optString,
  taskId: optString,
  metadata,
  extensions: optStrings,
  referenceTaskIds: optStrings,
});
export type WireMessage = Infer<typeof wireMessage>;

const wireStatus = object({
  state: enumValue,
  message: opt(wireMessage),
  update: opt(wireMessage),
  timestamp: optString,
});
export type WireStatus = Infer<typeof wireStatus>;

const wireArtifact = object({
  artifactId: string,
  name: optString,
  description: optString,
  parts: array(wirePart),
  metadata,
  extensions: optStrings,
});
export type WireArtifact = Infer<typeof wireArtifact>;

export const wireTask = object({
  kind: optString,
  id: string,
  contextId: optString,
  status: wireStatus,
  artifacts: opt(array(wireArtifact)),
  history: opt(array(wireMessage)),
  metadata,
});
export type WireTask = Infer<typeof wireTask>;

export const wireStatusUpdate = object({
  kind: optString,
  taskId: string,
  contextId: optString,
  status: wireStatus,
  final: optBoolean,
  metadata,
});
export type WireStatusUpdate = Infer<typeof wireStatusUpdate>;

export const wireArtifactUpdate = object({
  kind: optString,
  taskId: string,
  contextId: optString,
  artifact: wireArtifact,
  append: optBoolean,
  lastChunk: optBoolean,
  metadata,
});
export type WireArtifactUpdate = Infer<typeof wireArtifactUpdate>;

const wirePushAuth = object({
  scheme: optString,
  schemes: optStrings,
  credentials: optString,
});

/** v1.0 flat config, and the inner `pushNotificationConfig` of v0.3. */
export const wirePushConfigFlat = object({
  id: optString,
  taskId: optString,
  url: string,
  token: optString,
  authentication: opt(wirePushAuth),
});
export type WirePushConfigFlat = Infer<typeof wirePushConfigFlat>;

/** v0.3 JSON-RPC `{taskId, pushNotificationConfig}` and v0.3 proto `{name, pushNotificationConfig}`. */
export const wirePushConfigNested = object({
  taskId: optString,
  name: optString,
  pushNotificationConfig: wirePushConfigFlat,
});
export type WirePushConfigNested = Infer<typeof wirePushConfigNested>;

export const wireTaskPage = object({
  tasks: array(wireTask),
  nextPageToken: optString,
  pageSize: opt(number),
  totalSize: opt(number),
});
export type WireTaskPage = Infer<typeof wireTaskPage>;
