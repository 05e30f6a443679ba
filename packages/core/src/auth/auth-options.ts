/** What a token provider is told when it is asked for a token. */
export interface TokenRequest {
  /** `true` after the agent answered 401: return a fresh token, not a cached one. */
  forceRefresh: boolean;
  signal?: AbortSignal | undefined;
}

/** A fixed secret, or a function that returns one (called per request; cache inside it). */
export type TokenProvider = string | ((request: TokenRequest) => string | Promise<string>);

/** What the custom-header hook is told. */
export interface HeaderRequest extends TokenRequest {
  url: string;
  method: string;
}

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): Tether asks the token endpoint for an access token, keeps it
 * in memory only, sends it as a bearer token, fetches a new one shortly before it expires and after a 401.
 */
export interface OAuth2ClientCredentials {
  clientId: string;
  /** The client secret (or a function that returns it, e.g. from a secret manager). Sent only to the token endpoint. */
  clientSecret: TokenProvider;
  /** Scopes to ask for (`scope`, space-separated). */
  scopes?: string[] | undefined;
  /** `audience`, for the token endpoints that want one (Auth0, Okta). */
  audience?: string | undefined;
  /**
   * The token endpoint. Default: the card's OAuth 2.0 scheme's client-credentials `tokenUrl` — used only when
   * it is https (http on loopback) and on the agent's origin or one of `origins`; otherwise the first request
   * fails with `INVALID_ARGUMENT` and the secret goes nowhere.
   */
  tokenUrl?: string | undefined;
}

/**
 * Credentials for the agent. Tether picks the scheme from the card's `securitySchemes` and
 * `securityRequirements`; you only say what you have. Credentials are sent only to the origin
 * of the URL given to `connect()` (plus `origins`), never across redirects to other origins — a
 * card found through such a redirect, and its interfaces there, get none unless `origins` lists it.
 */
export interface AuthOptions {
  /** A bearer token (HTTP Bearer, OAuth 2.0 and OpenID Connect schemes). A function is re-asked once after a 401. */
  bearer?: TokenProvider | undefined;
  /**
   * An API key; placed as the card's apiKey scheme says. A header is preferred: the query string only when
   * the card accepts the key nowhere else, and then `client.credentialsInQuery` names the parameter.
   */
  apiKey?: TokenProvider | undefined;
  /**
   * OAuth 2.0 client credentials: the token comes from the token endpoint (the card's, or `tokenUrl`), is kept
   * in memory only, and is sent as the bearer token. Ignored when `bearer` is given.
   */
  oauth2?: OAuth2ClientCredentials | undefined;
  /** HTTP Basic credentials. */
  basic?: { username: string; password: string } | undefined;
  /** Extra headers per request (custom schemes, signatures). Called again with `forceRefresh` after a 401. */
  headers?: ((request: HeaderRequest) => Record<string, string> | Promise<Record<string, string>>) | undefined;
  /** Other origins allowed to receive these credentials, e.g. `https://api.example.com`. */
  origins?: string[] | undefined;
}
