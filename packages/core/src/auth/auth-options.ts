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
  /** HTTP Basic credentials. */
  basic?: { username: string; password: string } | undefined;
  /** Extra headers per request (custom schemes, signatures). Called again with `forceRefresh` after a 401. */
  headers?: ((request: HeaderRequest) => Record<string, string> | Promise<Record<string, string>>) | undefined;
  /** Other origins allowed to receive these credentials, e.g. `https://api.example.com`. */
  origins?: string[] | undefined;
}
