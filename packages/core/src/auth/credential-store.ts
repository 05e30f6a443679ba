import type { AppliedCredentials, RequestCredentials } from '../http/request-credentials.js';
import type { AuthOptions, TokenProvider } from './auth-options.js';
import type { PlannedCredential } from './auth-plan.js';

async function resolveSecret(secret: TokenProvider, forceRefresh: boolean, signal?: AbortSignal): Promise<string> {
  return typeof secret === 'string' ? secret : await secret({ forceRefresh, signal });
}

/**
 * Attaches the planned credentials to requests, but only for allowed origins (G7): the origin
 * the caller named in `connect()` plus `auth.origins`. Any other origin, e.g. the target of a redirect or an
 * interface URL on another host, gets no credentials.
 */
export class CredentialStore implements RequestCredentials {
  private readonly allowed: Set<string>;

  constructor(
    private readonly plan: PlannedCredential[],
    private readonly auth: AuthOptions,
    agentOrigin: string,
  ) {
    this.allowed = new Set([agentOrigin, ...(auth.origins ?? []).map((o) => new URL(o).origin)]);
  }

  /** `true` when a 401 can be answered by asking the providers again. */
  get canRefresh(): boolean {
    return this.auth.headers !== undefined || this.plan.some((c) => typeof c.secret === 'function');
  }

  /** Whether credentials may be sent to this URL's origin. */
  allows(url: URL): boolean {
    return this.allowed.has(url.origin);
  }

  /** The origins credentials may go to. */
  get origins(): string[] {
    return [...this.allowed];
  }

  async apply(url: URL, method: string, forceRefresh: boolean, signal?: AbortSignal): Promise<AppliedCredentials> {
    const out: AppliedCredentials = { headers: {}, url, credentialed: false };
    if (!this.allows(url) || (this.plan.length === 0 && !this.auth.headers)) return out;
    const target = new URL(url);
    const cookies: string[] = [];
    for (const cred of this.plan) {
      const value = `${cred.prefix}${await resolveSecret(cred.secret, forceRefresh, signal)}`;
      if (cred.placement === 'header') out.headers[cred.name] = value;
      else if (cred.placement === 'query') target.searchParams.set(cred.name, value);
      else cookies.push(`${cred.name}=${encodeURIComponent(value)}`);
    }
    if (cookies.length > 0) out.headers['Cookie'] = cookies.join('; ');
    if (this.auth.headers) {
      Object.assign(out.headers, await this.auth.headers({ url: url.href, method, forceRefresh, signal }));
    }
    out.url = target;
    out.credentialed = true;
    return out;
  }
}
