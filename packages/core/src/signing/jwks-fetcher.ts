import { TetherError } from '../errors/tether-error.js';
import type { FetchLike } from '../http/fetch-like.js';
import { LinkedSignal } from '../http/linked-signal.js';
import { describeCause, readText } from '../http/read-body.js';
import { isObject } from '../util/is-object.js';

/** Settings of a {@link JwksFetcher}. */
export interface JwksFetcherOptions {
  fetch: FetchLike;
  timeoutMs: number;
  maxBytes: number;
  /** How long a fetched set is reused; `0` fetches on every call. */
  cacheMs: number;
  now: () => number;
}

interface CachedSet {
  keys: Record<string, unknown>[];
  fetchedAt: number;
}

/**
 * Fetches JWK Sets from URLs the caller allowlisted (checking that is the caller's job), bounded in
 * time and size, without credentials and without following redirects; keeps each set for `cacheMs`.
 */
export class JwksFetcher {
  private readonly cache = new Map<string, CachedSet>();

  constructor(private readonly options: JwksFetcherOptions) {}

  /**
   * The key set at `url`, from the cache when it is fresh and holds `kid`. A cached set that lacks
   * `kid` is fetched again, so a key the agent just rotated in is found (callers bound how many
   * lookups one card makes).
   *
   * @throws TetherError `ABORTED` when `signal` fires; `TIMEOUT`, `NETWORK`, `HTTP_STATUS` or
   *   `INVALID_RESPONSE` when the set cannot be had.
   */
  async keySet(url: string, kid: string, signal: AbortSignal | undefined): Promise<Record<string, unknown>[]> {
    const cached = this.cache.get(url);
    if (cached && this.options.now() - cached.fetchedAt < this.options.cacheMs && cached.keys.some((key) => key['kid'] === kid)) {
      return cached.keys;
    }
    const keys = await this.fetchSet(url, signal);
    if (this.options.cacheMs > 0) this.cache.set(url, { keys, fetchedAt: this.options.now() });
    return keys;
  }

  private async fetchSet(url: string, signal: AbortSignal | undefined): Promise<Record<string, unknown>[]> {
    const context = { operation: 'GetJwks', method: 'GET', url };
    const link = new LinkedSignal(signal, this.options.timeoutMs);
    try {
      let response: Response;
      try {
        response = await this.options.fetch(url, {
          method: 'GET',
          headers: { Accept: 'application/jwk-set+json, application/json' },
          redirect: 'error',
          credentials: 'omit',
          signal: link.signal,
        });
      } catch (error) {
        throw link.errorFor(context, this.options.timeoutMs, error) ??
          new TetherError('NETWORK', `the key set could not be fetched: ${describeCause(error)}`, { ...context, cause: error });
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new TetherError('HTTP_STATUS', 'the key set request failed', { ...context, status: response.status });
      }
      const declared = Number(response.headers.get('content-length'));
      if (declared > this.options.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw new TetherError('INVALID_RESPONSE', `the key set is ${declared} bytes, more than ${this.options.maxBytes}`, context);
      }
      let text: string;
      try {
        text = await readText(response, this.options.maxBytes, context);
      } catch (error) {
        throw link.errorFor(context, this.options.timeoutMs, error) ?? error;
      }
      return parseKeySet(text, context);
    } finally {
      link.dispose();
    }
  }
}

function parseKeySet(text: string, context: { operation: string; method: string; url: string }): Record<string, unknown>[] {
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch (error) {
    throw new TetherError('INVALID_RESPONSE', 'the key set is not JSON', { ...context, cause: error });
  }
  const keys = isObject(body) ? body['keys'] : undefined;
  if (!Array.isArray(keys)) throw new TetherError('INVALID_RESPONSE', 'the key set has no "keys" list', context);
  return keys.filter(isObject);
}
