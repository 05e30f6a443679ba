import { TetherError } from '../errors/tether-error.js';
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

  /** The names of the query parameters that carry credentials (an API key the card places `in: query`). */
  get queryNames(): string[] {
    return this.plan.filter((c) => c.placement === 'query').map((c) => c.name);
  }

  async apply(url: URL, method: string, forceRefresh: boolean, signal?: AbortSignal): Promise<AppliedCredentials> {
    const out: AppliedCredentials = { headers: {}, url, credentialed: false, secrets: [] };
    if (!this.allows(url) || (this.plan.length === 0 && !this.auth.headers)) return out;
    const target = new URL(url);
    const cookies: string[] = [];
    for (const cred of this.plan) {
      const secret = await resolveSecret(cred.secret, forceRefresh, signal);
      const value = `${cred.prefix}${secret}`;
      out.secrets.push(secret);
      if (cred.placement === 'header') out.headers[cred.name] = checkedValue(cred.name, value);
      else if (cred.placement === 'query') target.searchParams.set(cred.name, value);
      else cookies.push(`${cred.name}=${encodeURIComponent(value)}`);
    }
    if (cookies.length > 0) out.headers['Cookie'] = cookies.join('; ');
    if (this.auth.basic) out.secrets.push(this.auth.basic.password);
    if (this.auth.headers) {
      const extra = await this.auth.headers({ url: url.href, method, forceRefresh, signal });
      for (const [name, value] of Object.entries(extra)) {
        out.headers[name] = checkedValue(name, value);
        out.secrets.push(value);
      }
    }
    out.url = target;
    out.credentialed = true;
    return out;
  }
}

/**
 * A credential as a header value, refused when fetch would refuse it: its error would quote the whole
 * value (undici: `Headers.append: "Bearer …" is an invalid header value`), and a line break in a
 * token read from a file is a common mistake.
 */
function checkedValue(name: string, value: string): string {
  // Fetch trims leading and trailing HTTP whitespace, then refuses NUL, CR, LF and non-Latin-1 characters.
  if (/[\0\r\n\u0100-\uffff]/.test(value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, ''))) {
    throw new TetherError(
      'INVALID_ARGUMENT',
      `auth: the value for the ${name} header has a character HTTP headers cannot carry (a line break, NUL, or beyond U+00FF); nothing was sent`,
      { maybeDelivered: false },
    );
  }
  return value;
}
