/** The protocol bindings Tether speaks over HTTP, built in. (Others: `connect(url, { bindings })`.) */
export type Binding = 'JSONRPC' | 'HTTP+JSON';

/** Protocol versions Tether speaks, as `Major.Minor`. */
export type ProtocolVersion = '1.0' | '0.3';

/** One way to reach the agent, as the card lists it. */
export interface AgentInterface {
  url: string;
  /** `JSONRPC`, `HTTP+JSON`, `GRPC`, or a custom binding URI. */
  binding: string;
  /** `Major.Minor` (patch numbers are dropped: `0.3.0` becomes `0.3`). */
  protocolVersion: string;
  /** v1.0 multi-tenancy: echoed exactly on every request when set. */
  tenant?: string | undefined;
}

/** The interface a client talks to, after negotiation. */
export interface SelectedInterface {
  /** `JSONRPC`, `HTTP+JSON`, or the `name` of a binding of your own (`connect(url, { bindings })`), upper-cased. */
  binding: Binding | (string & {});
  protocolVersion: ProtocolVersion;
  url: string;
  tenant?: string | undefined;
}

/** A protocol extension the agent supports. */
export interface AgentExtension {
  uri: string;
  description?: string | undefined;
  /** The client must activate it (else the agent answers ExtensionSupportRequiredError). */
  required: boolean;
  params?: Record<string, unknown> | undefined;
}

/** What the agent can do. */
export interface AgentCapabilities {
  streaming: boolean;
  pushNotifications: boolean;
  /** The agent serves an extended card to authenticated clients. */
  extendedAgentCard: boolean;
  extensions: AgentExtension[];
}

/** OAuth 2.0 flow as the card describes it (v0.3 and v1.0 merged). */
export interface OAuthFlow {
  authorizationUrl?: string | undefined;
  deviceAuthorizationUrl?: string | undefined;
  tokenUrl?: string | undefined;
  refreshUrl?: string | undefined;
  scopes: Record<string, string>;
}

/** An authentication scheme the agent accepts (v1.0 oneof wrappers and v0.3 OpenAPI shapes, merged). */
export type SecurityScheme =
  | { type: 'apiKey'; location: 'header' | 'query' | 'cookie'; name: string; description?: string | undefined }
  | { type: 'http'; scheme: string; bearerFormat?: string | undefined; description?: string | undefined }
  | {
      type: 'oauth2';
      flows: Partial<Record<'authorizationCode' | 'clientCredentials' | 'deviceCode' | 'implicit' | 'password', OAuthFlow>>;
      oauth2MetadataUrl?: string | undefined;
      description?: string | undefined;
    }
  | { type: 'openIdConnect'; openIdConnectUrl: string; description?: string | undefined }
  | { type: 'mutualTLS'; description?: string | undefined };

/**
 * One acceptable combination of schemes: every scheme named here must be satisfied (AND),
 * mapped to the scopes it needs. A card's list of requirements is an OR.
 *
 * The agent chooses the names, so this is an object without a prototype: a scheme named
 * `__proto__` or `constructor` is an own key like any other (read it with `Object.keys` or
 * `Object.hasOwn`, not `in`).
 */
export type SecurityRequirement = Record<string, string[]>;

/** A skill the agent advertises. */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[] | undefined;
  inputModes?: string[] | undefined;
  outputModes?: string[] | undefined;
  securityRequirements?: SecurityRequirement[] | undefined;
}

/** A JWS signature over the card (verification is a separate subpath, not in core). */
export interface AgentCardSignature {
  protected: string;
  signature: string;
  header?: Record<string, unknown> | undefined;
}

/** The agent card, normalized from either the v1.0 or the v0.3 shape. */
export interface AgentCard {
  name: string;
  description: string;
  version: string;
  /** Every interface the card lists, in the card's order (first is the agent's preference). */
  interfaces: AgentInterface[];
  capabilities: AgentCapabilities;
  /** By name; an object without a prototype, like each {@link SecurityRequirement}. */
  securitySchemes: Record<string, SecurityScheme>;
  securityRequirements: SecurityRequirement[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  provider?: { organization: string; url: string } | undefined;
  documentationUrl?: string | undefined;
  iconUrl?: string | undefined;
  signatures: AgentCardSignature[];
  /** Which shape the card came in. */
  cardFormat: ProtocolVersion;
  /** The card exactly as received (needed to verify signatures). */
  raw: Record<string, unknown>;
}
