// The v1.0 AgentCard messages of `specification/a2a.proto`, as far as signing needs them: each field's
// JSON name, its presence (REQUIRED, `optional`, or proto3's implicit presence) and its type. Which
// fields are dropped before a card is canonicalized depends on exactly these (spec §5.7, §8.4.1).

/** A field's presence: REQUIRED (always kept), `optional` (kept when set), or implicit (dropped at its default). */
export type Presence = 'required' | 'optional' | 'implicit';

/** A message type: its fields by JSON (camelCase) name. */
export interface MessageFields {
  readonly [name: string]: FieldSpec;
}

/** One field of a message. */
export interface FieldSpec {
  readonly presence: Presence;
  /** A scalar, a `google.protobuf.Struct` (free JSON), or a message. */
  readonly type: 'string' | 'bool' | 'struct' | MessageFields;
  /** `repeated` (a JSON array) or `map<string, …>` (a JSON object). */
  readonly container?: 'list' | 'map' | undefined;
  /** The proto field name, when it differs from the JSON name (ProtoJSON parsers accept both). */
  readonly protoName?: string | undefined;
}

function field(presence: Presence, type: FieldSpec['type'], container?: 'list' | 'map', protoName?: string): FieldSpec {
  return { presence, type, container, protoName };
}

const required = (type: FieldSpec['type'], container?: 'list' | 'map', protoName?: string): FieldSpec =>
  field('required', type, container, protoName);
const optional = (type: FieldSpec['type'], protoName?: string): FieldSpec => field('optional', type, undefined, protoName);
const implicit = (type: FieldSpec['type'], container?: 'list' | 'map', protoName?: string): FieldSpec =>
  field('implicit', type, container, protoName);
// A singular message field (and a Struct) always has presence in proto3: set means kept, whatever it holds.
const message = (type: MessageFields, protoName?: string): FieldSpec => field('implicit', type, undefined, protoName);

const agentInterface: MessageFields = {
  url: required('string'),
  protocolBinding: required('string', undefined, 'protocol_binding'),
  tenant: implicit('string'),
  protocolVersion: required('string', undefined, 'protocol_version'),
};

const agentProvider: MessageFields = { url: required('string'), organization: required('string') };

const agentExtension: MessageFields = {
  uri: implicit('string'),
  description: implicit('string'),
  required: implicit('bool'),
  params: implicit('struct'),
};

const agentCapabilities: MessageFields = {
  streaming: optional('bool'),
  pushNotifications: optional('bool', 'push_notifications'),
  extensions: implicit(agentExtension, 'list'),
  extendedAgentCard: optional('bool', 'extended_agent_card'),
};

const stringList: MessageFields = { list: implicit('string', 'list') };
const securityRequirement: MessageFields = { schemes: implicit(stringList, 'map') };

const agentSkill: MessageFields = {
  id: required('string'),
  name: required('string'),
  description: required('string'),
  tags: required('string', 'list'),
  examples: implicit('string', 'list'),
  inputModes: implicit('string', 'list', 'input_modes'),
  outputModes: implicit('string', 'list', 'output_modes'),
  securityRequirements: implicit(securityRequirement, 'list', 'security_requirements'),
};

const scopes = (presence: Presence): FieldSpec => field(presence, 'string', 'map');
const refreshUrl = implicit('string', undefined, 'refresh_url');

const oauthFlows: MessageFields = {
  authorizationCode: message(
    {
      authorizationUrl: required('string', undefined, 'authorization_url'),
      tokenUrl: required('string', undefined, 'token_url'),
      refreshUrl,
      scopes: scopes('required'),
      pkceRequired: implicit('bool', undefined, 'pkce_required'),
    },
    'authorization_code',
  ),
  clientCredentials: message(
    { tokenUrl: required('string', undefined, 'token_url'), refreshUrl, scopes: scopes('required') },
    'client_credentials',
  ),
  implicit: message({ authorizationUrl: implicit('string', undefined, 'authorization_url'), refreshUrl, scopes: scopes('implicit') }),
  password: message({ tokenUrl: implicit('string', undefined, 'token_url'), refreshUrl, scopes: scopes('implicit') }),
  deviceCode: message(
    {
      deviceAuthorizationUrl: required('string', undefined, 'device_authorization_url'),
      tokenUrl: required('string', undefined, 'token_url'),
      refreshUrl,
      scopes: scopes('required'),
    },
    'device_code',
  ),
};

const description = implicit('string');
const securityScheme: MessageFields = {
  apiKeySecurityScheme: message(
    { description, location: required('string'), name: required('string') },
    'api_key_security_scheme',
  ),
  httpAuthSecurityScheme: message(
    { description, scheme: required('string'), bearerFormat: implicit('string', undefined, 'bearer_format') },
    'http_auth_security_scheme',
  ),
  oauth2SecurityScheme: message(
    { description, flows: required(oauthFlows), oauth2MetadataUrl: implicit('string', undefined, 'oauth2_metadata_url') },
    'oauth2_security_scheme',
  ),
  openIdConnectSecurityScheme: message(
    { description, openIdConnectUrl: required('string', undefined, 'open_id_connect_url') },
    'open_id_connect_security_scheme',
  ),
  mtlsSecurityScheme: message({ description }, 'mtls_security_scheme'),
};

/** `AgentCard` without `signatures` (never part of what is signed). */
export const AGENT_CARD_FIELDS: MessageFields = {
  name: required('string'),
  description: required('string'),
  supportedInterfaces: required(agentInterface, 'list', 'supported_interfaces'),
  provider: message(agentProvider),
  version: required('string'),
  documentationUrl: optional('string', 'documentation_url'),
  capabilities: required(agentCapabilities),
  securitySchemes: implicit(securityScheme, 'map', 'security_schemes'),
  securityRequirements: implicit(securityRequirement, 'list', 'security_requirements'),
  defaultInputModes: required('string', 'list', 'default_input_modes'),
  defaultOutputModes: required('string', 'list', 'default_output_modes'),
  skills: required(agentSkill, 'list'),
  iconUrl: optional('string', 'icon_url'),
};
