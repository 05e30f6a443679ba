import type { FetchLike } from '@a2a-tether/core';
import type { RelayInterface } from './relay-answer.js';

type Json = Record<string, unknown>;

/** An interface a card lists, as the relay reads it. */
interface ListedInterface extends RelayInterface {
  readonly url: string;
}

/** The relay's path segment for an interface, e.g. `jsonrpc-1.0`. */
export function slugOf(iface: RelayInterface): string {
  return `${iface.binding === 'JSONRPC' ? 'jsonrpc' : 'rest'}-${iface.version}`;
}

/** The interface a slug names, if it is one the relay serves. */
export function interfaceOfSlug(slug: string): RelayInterface | undefined {
  const match = /^(jsonrpc|rest)-(1\.0|0\.3)$/.exec(slug);
  if (match === null) return undefined;
  return { binding: match[1] === 'jsonrpc' ? 'JSONRPC' : 'HTTP+JSON', version: match[2] as '1.0' | '0.3' };
}

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function majorMinor(version: unknown, fallback: string): string {
  return (typeof version === 'string' && version !== '' ? version : fallback).split('.').slice(0, 2).join('.');
}

function listed(binding: unknown, version: unknown, url: unknown): ListedInterface | undefined {
  const b = binding === 'JSONRPC' || binding === 'HTTP+JSON' ? binding : undefined;
  const v = majorMinor(version, '0.3');
  if (b === undefined || (v !== '1.0' && v !== '0.3') || typeof url !== 'string') return undefined;
  return { binding: b, version: v, url };
}

/** Every JSONRPC / HTTP+JSON interface at 1.0 or 0.3 a card lists (v1 `supportedInterfaces`, v0.3 `url` and `additionalInterfaces`). */
function interfacesOf(card: Json): ListedInterface[] {
  const out: ListedInterface[] = [];
  for (const entry of Array.isArray(card['supportedInterfaces']) ? card['supportedInterfaces'] : []) {
    const e = record(entry);
    const iface = e && listed(e['protocolBinding'], e['protocolVersion'], e['url']);
    if (iface) out.push(iface);
  }
  const main = listed(card['preferredTransport'] ?? 'JSONRPC', card['protocolVersion'], card['url']);
  if (main) out.push(main);
  for (const entry of Array.isArray(card['additionalInterfaces']) ? card['additionalInterfaces'] : []) {
    const e = record(entry);
    const iface = e && listed(e['transport'], card['protocolVersion'], e['url']);
    if (iface) out.push(iface);
  }
  return out;
}

/** Where an agent's card is: a URL ending in `.json` as given, else its well-known path. */
export function cardUrlOf(agentUrl: string): string {
  return /\.json$/.test(new URL(agentUrl).pathname) ? agentUrl : `${agentUrl.replace(/\/+$/, '')}/.well-known/agent-card.json`;
}

/** What the relay asks an agent's card for, and may send its credentials to. */
export interface CardSource {
  readonly cardUrl: string;
  /** Origins the card's interfaces may point at (the agent URL's, plus any the app listed). */
  readonly origins: ReadonlySet<string>;
}

/**
 * An agent's card, fetched with its credentials and kept `ttlMs` per `A2A-Version` asked (a v1 server
 * with v0.3 compatibility answers a v0.3-shaped card to a request without it).
 */
export class CardDesk {
  private readonly cache = new Map<string, { card: Json; at: number }>();

  constructor(
    private readonly source: CardSource,
    private readonly fetch: FetchLike,
    private readonly ttlMs: number,
  ) {}

  /** The card as the agent serves it for `version` (`''`: no `A2A-Version`). Throws when it has none that is JSON. */
  async card(version: string, headers: Record<string, string>, signal: AbortSignal): Promise<Json> {
    const kept = this.cache.get(version);
    if (kept !== undefined && performance.now() - kept.at < this.ttlMs) return kept.card;
    const response = await this.fetch(this.source.cardUrl, {
      headers: { accept: 'application/json', ...(version === '' ? {} : { 'a2a-version': version }), ...headers },
      redirect: 'error',
      signal,
    });
    if (!response.ok) throw new Error(`the agent's card answered HTTP ${response.status}`);
    const card = record(await response.json());
    if (card === undefined) throw new Error("the agent's card is not a JSON object");
    this.cache.set(version, { card, at: performance.now() });
    return card;
  }

  /** The agent's URL of `iface`, from its card (asked as v1.0, then without a version), on an allowed origin. */
  async upstreamUrl(iface: RelayInterface, headers: Record<string, string>, signal: AbortSignal): Promise<string | undefined> {
    for (const version of ['1.0', '']) {
      const found = interfacesOf(await this.card(version, headers, signal)).find(
        (i) => i.binding === iface.binding && i.version === iface.version && this.allowed(i.url),
      );
      if (found) return found.url;
    }
    return undefined;
  }

  private allowed(url: string): boolean {
    try {
      return this.source.origins.has(new URL(url).origin);
    } catch {
      return false;
    }
  }

  /**
   * The card as the browser gets it: every interface the relay serves points at `base/<slug>`, the others
   * are left out; no security schemes or requirements (the relay adds the credentials), no signatures
   * (they signed the agent's URLs), no extended card, and no push unless `allowPush`.
   */
  rewrite(card: Json, base: string, allowPush: boolean): Json {
    const out = structuredClone(card);
    const relayed = (binding: unknown, version: unknown, url: unknown): string | undefined => {
      const iface = listed(binding, version, url);
      return iface && this.allowed(iface.url) ? `${base}/${slugOf(iface)}` : undefined;
    };
    if (Array.isArray(out['supportedInterfaces'])) {
      out['supportedInterfaces'] = out['supportedInterfaces'].flatMap((entry: unknown) => {
        const e = record(entry);
        const url = e && relayed(e['protocolBinding'], e['protocolVersion'], e['url']);
        return e && url ? [{ ...e, url }] : [];
      });
    }
    if (typeof out['url'] === 'string') out['url'] = relayed(out['preferredTransport'] ?? 'JSONRPC', out['protocolVersion'], out['url']) ?? `${base}/none`;
    if (Array.isArray(out['additionalInterfaces'])) {
      out['additionalInterfaces'] = out['additionalInterfaces'].flatMap((entry: unknown) => {
        const e = record(entry);
        const url = e && relayed(e['transport'], out['protocolVersion'], e['url']);
        return e && url ? [{ ...e, url }] : [];
      });
    }
    delete out['signatures'];
    for (const key of ['securitySchemes', 'securityRequirements', 'security'] as const) {
      if (key in out) out[key] = key === 'securitySchemes' ? {} : [];
    }
    for (const skill of Array.isArray(out['skills']) ? out['skills'] : []) {
      const s = record(skill);
      if (s) for (const key of ['securityRequirements', 'security']) if (key in s) s[key] = [];
    }
    for (const key of ['supportsAuthenticatedExtendedCard', 'supportsExtendedAgentCard']) if (key in out) out[key] = false;
    const capabilities = record(out['capabilities']);
    if (capabilities) {
      if ('extendedAgentCard' in capabilities) capabilities['extendedAgentCard'] = false;
      if (!allowPush) capabilities['pushNotifications'] = false;
    }
    return out;
  }
}
