// @a2a-tether/core/zod — zod (zod/mini) schemas of the A2A wire objects, for apps that validate cards or
// write agents. They are the schemas Tether's own decoders are tested against (wire-oracle.test.ts), and
// accept what agents send in every dialect: v1.0 ProtoJSON and v0.3 (JSON-RPC `kind`s, HTTP+JSON).
// zod is an optional peer dependency: only this subpath imports it.

export {
  wireCard as agentCardSchema,
  type WireCard as AgentCardWire,
} from './card/card-schema.zod.js';
export {
  wirePart as partSchema,
  wireMessage as messageSchema,
  wireStatus as taskStatusSchema,
  wireArtifact as artifactSchema,
  wireTask as taskSchema,
  wireStatusUpdate as statusUpdateSchema,
  wireArtifactUpdate as artifactUpdateSchema,
  wirePushConfigFlat as pushConfigSchema,
  wireTaskPage as taskPageSchema,
  type WirePart as PartWire,
  type WireMessage as MessageWire,
  type WireStatus as TaskStatusWire,
  type WireArtifact as ArtifactWire,
  type WireTask as TaskWire,
  type WireStatusUpdate as StatusUpdateWire,
  type WireArtifactUpdate as ArtifactUpdateWire,
  type WirePushConfigFlat as PushConfigWire,
} from './protocol/wire-schemas.zod.js';
