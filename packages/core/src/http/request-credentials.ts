/** What credentials add to one request. */
export interface AppliedCredentials {
  headers: Record<string, string>;
  /** The URL, with query-placed API keys added. */
  url: URL;
  /** Whether any credential was attached (decides redirect handling and 401 refresh). */
  credentialed: boolean;
  /** The secret values attached, so that what an agent echoes of them is redacted from errors. */
  secrets: string[];
}

/**
 * The credentials `HttpClient` attaches, as far as it needs to know them. Declared here so
 * the HTTP layer depends on no auth policy; `auth/` implements it (which origins, which scheme).
 */
export interface RequestCredentials {
  /** The origins credentials may go to (named when an agent answers 401 to a request without them). */
  readonly origins: string[];
  /** `true` when a 401 can be answered by asking for the credentials again with `forceRefresh`. */
  readonly canRefresh: boolean;
  /** Whether credentials may be sent to this URL's origin. */
  allows(url: URL): boolean;
  /**
   * What to add to a request to `url`: nothing (`credentialed: false`) for an origin not allowed.
   * Rejects with `INVALID_ARGUMENT` for a value no HTTP header can carry (the value is not repeated).
   */
  apply(url: URL, method: string, forceRefresh: boolean, signal?: AbortSignal): Promise<AppliedCredentials>;
}
