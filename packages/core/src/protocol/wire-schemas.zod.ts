import * as z from 'zod/mini';

// The ORACLE, not the runtime path: the decoders check wire objects with the hand-written shapes of
// `wire-shapes.ts` (decisions.md D15); `wire-oracle.test.ts` holds those against these schemas.
// Published as `@a2a-tether/core/zod` (src/zod-entry.ts; zod is an optional peer dependency).
//
// One tolerant schema per object, covering all three dialects on the wire:
// v1.0 ProtoJSON, v0.3 JSON-RPC (`kind` discriminators) and v0.3 HTTP+JSON (v0.3 proto JSON).
// Strict on the fields we use, lenient on unknown ones; ProtoJSON omits defaults, so
// almost everything is optional here and defaulted when converting.

const optString = z.optional(z.nullable(z.string()));
const optBoolean = z.optional(z.nullable(z.boolean()));
const optStrings = z.optional(z.nullable(z.array(z.string())));
const metadata = z.optional(z.nullable(z.record(z.string(), z.unknown())));
/** Proto enums arrive by name (`TASK_STATE_WORKING`), as v0.3 kebab names, or as numbers. */
const enumValue = z.union([z.string(), z.number()]);

export const wireFile = z.object({
  uri: optString,
  bytes: optString,
  fileWithUri: optString,
  fileWithBytes: optString,
  mimeType: optString,
  mediaType: optString,
  name: optString,
});

export const wirePart = z.object({
  kind: optString,
  text: optString,
  raw: optString,
  url: optString,
  data: z.optional(z.unknown()),
  file: z.optional(z.nullable(wireFile)),
  metadata,
  filename: optString,
  mediaType: optString,
});
export type WirePart = z.infer<typeof wirePart>;

const parts = z.optional(z.nullable(z.array(wirePart)));

export const wireMessage = z.object({
  kind: optString,
  messageId: z.string(),
  role: enumValue,
  parts,
  content: parts,
  contextId: optString,
  taskId: optString,
  metadata,
  extensions: optStrings,
  referenceTaskIds: optStrings,
});
export type WireMessage = z.infer<typeof wireMessage>;

export const wireStatus = z.object({
  state: enumValue,
  message: z.optional(z.nullable(wireMessage)),
  update: z.optional(z.nullable(wireMessage)),
  timestamp: optString,
});
export type WireStatus = z.infer<typeof wireStatus>;

export const wireArtifact = z.object({
  artifactId: z.string(),
  name: optString,
  description: optString,
  parts: z.array(wirePart),
  metadata,
  extensions: optStrings,
});
export type WireArtifact = z.infer<typeof wireArtifact>;

export const wireTask = z.object({
  kind: optString,
  id: z.string(),
  contextId: optString,
  status: wireStatus,
  artifacts: z.optional(z.nullable(z.array(wireArtifact))),
  history: z.optional(z.nullable(z.array(wireMessage))),
  metadata,
  // v1.1 draft (int64: a number, or a string in ProtoJSON); the decoders keep a valid one.
  generation: z.optional(z.unknown()),
});
export type WireTask = z.infer<typeof wireTask>;

export const wireStatusUpdate = z.object({
  kind: optString,
  taskId: z.string(),
  contextId: optString,
  status: wireStatus,
  final: optBoolean,
  metadata,
  // v1.1 draft (int64: a number, or a string in ProtoJSON); the decoders keep a valid one.
  generation: z.optional(z.unknown()),
});
export type WireStatusUpdate = z.infer<typeof wireStatusUpdate>;

export const wireArtifactUpdate = z.object({
  kind: optString,
  taskId: z.string(),
  contextId: optString,
  artifact: wireArtifact,
  append: optBoolean,
  lastChunk: optBoolean,
  metadata,
  // v1.1 draft (int64: a number, or a string in ProtoJSON); the decoders keep a valid one.
  generation: z.optional(z.unknown()),
});
export type WireArtifactUpdate = z.infer<typeof wireArtifactUpdate>;

const wirePushAuth = z.object({
  scheme: optString,
  schemes: optStrings,
  credentials: optString,
});

/** v1.0 flat config, and the inner `pushNotificationConfig` of v0.3. */
export const wirePushConfigFlat = z.object({
  id: optString,
  taskId: optString,
  url: z.string(),
  token: optString,
  authentication: z.optional(z.nullable(wirePushAuth)),
});
export type WirePushConfigFlat = z.infer<typeof wirePushConfigFlat>;

/** v0.3 JSON-RPC `{taskId, pushNotificationConfig}` and v0.3 proto `{name, pushNotificationConfig}`. */
export const wirePushConfigNested = z.object({
  taskId: optString,
  name: optString,
  pushNotificationConfig: wirePushConfigFlat,
});

export const wireTaskPage = z.object({
  tasks: z.array(wireTask),
  nextPageToken: optString,
  pageSize: z.optional(z.nullable(z.number())),
  totalSize: z.optional(z.nullable(z.number())),
});
