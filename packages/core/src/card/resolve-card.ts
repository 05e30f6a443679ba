import { redact } from '../errors/redact.js';
import { TetherError } from '../errors/tether-error.js';
import type { HttpClient } from '../http/http-client.js';
import { readText, snippet } from '../http/read-body.js';
import type { CardCache } from './card-cache.js';
import { freshnessMs } from './card-cache.js';
import type { AgentCard } from './card-types.js';
import { cardReader } from './load-card-reader.js';

/** Options of {@link resolveCard}. */
export interface ResolveCardOptions {
  http: HttpClient;
  /** `false` disables caching. */
  cache: CardCache | false;
  /** Sent as `A2A-Version` (v1 servers with a v0.3 compatibility layer shape the card by it). */
  versionHeader?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  /** How long to keep a card whose answer had no caching headers. */
  defaultTtlMs: number;
  maxBytes: number;
  now: () => number;
  /** Revalidate even a fresh cached card. */
  forceRevalidate?: boolean | undefined;
}

/** A resolved card and where it was found. */
export interface ResolvedCard {
  card: AgentCard;
  url: string;
  /** `true` when served from the cache (fresh, or revalidated with a 304). */
  fromCache: boolean;
  /**
   * Where the card was looked for first, when the URL's own path had none and the host's root card was
   * used instead: it may describe another agent than the one the URL meant.
   */
  missedAt?: string | undefined;
}

/**
 * Where to look for a card: a URL ending in `.json` or inside `/.well-known/` is used as is;
 * otherwise `{base}/.well-known/agent-card.json`, then the pre-0.3 `{base}/.well-known/agent.json`,
 * keeping the base path (`https://host/agents/x` looks under `/agents/x/`), then the same two at
 * the origin root.
 */
export function cardCandidates(input: string | URL): string[] {
  let url: URL;
  try {
    url = new URL(typeof input === 'string' || input instanceof URL ? input : '');
  } catch (error) {
    throw new TetherError('INVALID_ARGUMENT', `not an absolute URL: ${typeof input === 'string' ? redact(input).slice(0, 200) : typeof input}`, { cause: error });
  }
  url.hash = '';
  if (/\.json$/i.test(url.pathname) || url.pathname.includes('/.well-known/')) return [url.href];
  url.search = '';
  const base = url.pathname.endsWith('/') ? url.href : `${url.href}/`;
  const list = [new URL('.well-known/agent-card.json', base).href, new URL('.well-known/agent.json', base).href];
  if (url.pathname !== '/' && url.pathname !== '') {
    list.push(new URL('/.well-known/agent-card.json', url).href, new URL('/.well-known/agent.json', url).href);
  }
  return list;
}

/**
 * Fetches, validates and normalizes an agent card, trying the well-known locations in turn
 * (only a 404/410 moves on to the next one) and honouring HTTP caching (max-age, ETag with
 * If-None-Match, Last-Modified with If-Modified-Since).
 *
 * @throws TetherError `CARD_NOT_FOUND` (every location answered 404), `CARD_INVALID` (not JSON,
 *   not a card), or the HTTP/network error of the first location that failed otherwise.
 */
export async function resolveCard(input: string | URL, options: ResolveCardOptions): Promise<ResolvedCard> {
  const candidates = cardCandidates(input);
  const tried: string[] = [];
  for (const [index, url] of candidates.entries()) {
    // Candidates 2 and 3 are the host's root, after the URL's own path answered 404 twice.
    const found = (card: AgentCard, at: string, fromCache: boolean): ResolvedCard =>
      index < 2 ? { card, url: at, fromCache } : { card, url: at, fromCache, missedAt: candidates[0] };
    const key = `${url}|A2A-Version=${options.versionHeader ?? ''}`;
    const cached = options.cache ? await options.cache.get(key) : undefined;
    const now = options.now();
    if (cached && !options.forceRevalidate && cached.freshUntil > now) {
      return found((await cardReader.get()).normalizeCard(cached.body, cached.url), cached.url, true);
    }
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (options.versionHeader) headers['A2A-Version'] = options.versionHeader;
    if (cached?.etag) headers['If-None-Match'] = cached.etag;
    if (cached?.lastModified) headers['If-Modified-Since'] = cached.lastModified;
    // Fetch turns a conditional request into `Cache-Control: no-cache`, which servers answer with
    // a full 200; saying max-age=0 ourselves keeps it a revalidation that can get a 304.
    if (cached) headers['Cache-Control'] = 'max-age=0';
    let open;
    try {
      open = await options.http.open({
        operation: 'GetAgentCard',
        method: 'GET',
        url,
        headers,
        expect: 'any',
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        passStatuses: [304],
      });
    } catch (error) {
      if (error instanceof TetherError && (error.status === 404 || error.status === 410)) {
        tried.push(url);
        continue;
      }
      throw error;
    }
    const { response, link, context, secrets, observed } = open;
    let failure: unknown;
    try {
      if (response.status === 304 && cached) {
        await response.body?.cancel().catch(() => undefined);
        const fresh = freshnessMs(response.headers, now, options.defaultTtlMs);
        if (options.cache) await options.cache.set(key, { ...cached, freshUntil: now + fresh.ttlMs });
        return found((await cardReader.get()).normalizeCard(cached.body, cached.url), cached.url, true);
      }
      const text = await readText(response, options.maxBytes, context);
      const type = response.headers.get('content-type') ?? '';
      let body: unknown;
      try {
        body = JSON.parse(text) as unknown;
      } catch (error) {
        const quoted = redact(text, { secrets });
        throw new TetherError(
          'CARD_INVALID',
          `the agent card is not JSON${type ? ` (content type ${type})` : ''}: ${snippet(quoted) || 'empty body'}`,
          { ...context, bodySnippet: snippet(quoted, 512), cause: error },
        );
      }
      const card = (await cardReader.get()).normalizeCard(body, response.url || url);
      const fresh = freshnessMs(response.headers, now, options.defaultTtlMs);
      if (options.cache && fresh.store) {
        await options.cache.set(key, {
          body,
          url: response.url || url,
          etag: response.headers.get('etag') ?? undefined,
          lastModified: response.headers.get('last-modified') ?? undefined,
          freshUntil: now + fresh.ttlMs,
        });
      }
      return found(card, response.url || url, false);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      link.dispose();
      observed?.end(failure);
    }
  }
  throw new TetherError('CARD_NOT_FOUND', `no agent card found; tried ${tried.map((u) => redact(u)).join(', ')} (all 404)`, {
    operation: 'GetAgentCard',
    method: 'GET',
    url: candidates[0] === undefined ? undefined : redact(candidates[0]),
    status: 404,
  });
}
