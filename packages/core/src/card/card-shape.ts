import { array, boolean, object, opt, record, string, unknown, type Infer } from '../protocol/check.js';

// Both card shapes at once (a v1 server's compat layer even serves hybrids). Required: a name
// and a way to reach the agent; everything else is defaulted so a sloppy card still works.
// `card-schema.zod.ts` holds the same shape in zod/mini, the oracle of `wire-oracle.test.ts`.

const optString = opt(string);
const optBoolean = opt(boolean);
const optStrings = opt(array(string));
const json = record(unknown);
const optJsonList = opt(array(json));

const v1Interface = object({
  url: string,
  protocolBinding: optString,
  transport: optString,
  protocolVersion: optString,
  tenant: optString,
});

const extension = object({
  uri: string,
  description: optString,
  required: optBoolean,
  params: opt(json),
});

export const wireCard = object({
  name: string,
  description: optString,
  version: optString,
  protocolVersion: optString,
  url: optString,
  preferredTransport: optString,
  additionalInterfaces: opt(array(v1Interface)),
  supportedInterfaces: opt(array(v1Interface)),
  provider: opt(object({ organization: optString, url: optString })),
  documentationUrl: optString,
  iconUrl: optString,
  capabilities: opt(
    object({
      streaming: optBoolean,
      pushNotifications: optBoolean,
      extendedAgentCard: optBoolean,
      extensions: opt(array(extension)),
    }),
  ),
  supportsAuthenticatedExtendedCard: optBoolean,
  supportsExtendedAgentCard: optBoolean,
  securitySchemes: opt(record(json)),
  securityRequirements: optJsonList,
  security: optJsonList,
  defaultInputModes: optStrings,
  defaultOutputModes: optStrings,
  skills: opt(
    array(
      object({
        id: string,
        name: string,
        description: optString,
        tags: optStrings,
        examples: optStrings,
        inputModes: optStrings,
        outputModes: optStrings,
        securityRequirements: optJsonList,
        security: optJsonList,
      }),
    ),
  ),
  signatures: opt(array(object({ protected: string, signature: string, header: opt(json) }))),
});
export type WireCard = Infer<typeof wireCard>;
