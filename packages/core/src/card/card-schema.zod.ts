import * as z from 'zod/mini';

// The ORACLE, not the runtime path: `normalizeCard` checks cards with `card-shape.ts` (decisions.md
// D15); `protocol/wire-oracle.test.ts` holds that against this schema. Published as `@a2a-tether/core/zod`.
//
// Both card shapes at once (a v1 server's compat layer even serves hybrids). Required: a name
// and a way to reach the agent; everything else is defaulted so a sloppy card still works.

const optString = z.optional(z.nullable(z.string()));
const optBoolean = z.optional(z.nullable(z.boolean()));
const optStrings = z.optional(z.nullable(z.array(z.string())));
const record = z.record(z.string(), z.unknown());

const v1Interface = z.object({
  url: z.string(),
  protocolBinding: optString,
  transport: optString,
  protocolVersion: optString,
  tenant: optString,
});

const extension = z.object({
  uri: z.string(),
  description: optString,
  required: optBoolean,
  params: z.optional(z.nullable(record)),
});

export const wireCard = z.object({
  name: z.string(),
  description: optString,
  version: optString,
  protocolVersion: optString,
  url: optString,
  preferredTransport: optString,
  additionalInterfaces: z.optional(z.nullable(z.array(v1Interface))),
  supportedInterfaces: z.optional(z.nullable(z.array(v1Interface))),
  provider: z.optional(z.nullable(z.object({ organization: optString, url: optString }))),
  documentationUrl: optString,
  iconUrl: optString,
  capabilities: z.optional(
    z.nullable(
      z.object({
        streaming: optBoolean,
        pushNotifications: optBoolean,
        extendedAgentCard: optBoolean,
        extensions: z.optional(z.nullable(z.array(extension))),
      }),
    ),
  ),
  supportsAuthenticatedExtendedCard: optBoolean,
  supportsExtendedAgentCard: optBoolean,
  securitySchemes: z.optional(z.nullable(z.record(z.string(), record))),
  securityRequirements: z.optional(z.nullable(z.array(record))),
  security: z.optional(z.nullable(z.array(record))),
  defaultInputModes: optStrings,
  defaultOutputModes: optStrings,
  skills: z.optional(
    z.nullable(
      z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          description: optString,
          tags: optStrings,
          examples: optStrings,
          inputModes: optStrings,
          outputModes: optStrings,
          securityRequirements: z.optional(z.nullable(z.array(record))),
          security: z.optional(z.nullable(z.array(record))),
        }),
      ),
    ),
  ),
  signatures: z.optional(
    z.nullable(z.array(z.object({ protected: z.string(), signature: z.string(), header: z.optional(z.nullable(record)) }))),
  ),
});
export type WireCard = z.infer<typeof wireCard>;
