import type { FetchLike } from '@a2a-tether/core';
import type { RelayOwnership } from './owner-book.js';

/** Headers the relay adds to every request to an agent: its credentials. Never shown to the browser. */
export type RelayHeaders = Record<string, string> | ((request: Request) => Record<string, string> | Promise<Record<string, string>>);

/** One agent the relay serves. */
export interface RelayAgent {
  /** The agent's URL: its base (the card at `/.well-known/agent-card.json`) or its card's URL. */
  url: string;
  /**
   * Credentials (and any other headers) for the agent, added by the relay to every request it sends on,
   * the card's included. Their values are cut out of everything the browser receives (`[redacted]`).
   */
  headers?: RelayHeaders | undefined;
  /**
   * Origins besides the agent URL's own that the card's interfaces may point at. Interfaces elsewhere
   * are left out of the card the browser gets: credentials go only where they were given for (G7).
   */
  origins?: readonly string[] | undefined;
  /**
   * Let the browser call the push-config operations (and name a push config in a send). Default `false`:
   * they are refused (PushNotificationNotSupported), and the card says `pushNotifications: false`. When
   * allowed, the token and credentials of a push config are cut out of the answers.
   */
  allowPush?: boolean | undefined;
}

/** What each owner (the app's user) may use at once. Defaults in {@link RELAY_DEFAULTS}. */
export interface RelayLimits {
  /** The largest request body, in bytes (larger: 413). */
  maxBodyBytes: number;
  /** Requests per owner per minute (more: 429 with `Retry-After`). */
  requestsPerMinute: number;
  /** Streams an owner may hold open at once (more: 429). */
  streamsPerOwner: number;
  /** The largest answer, or one stream event, from an agent, in bytes (larger: 502, or the stream is cut). */
  maxAnswerBytes: number;
  /** How long an agent's card is kept before it is fetched again, in ms. */
  cardTtlMs: number;
  /** How long one request to an agent may take until its answer's headers, in ms (then 504). */
  headersTimeoutMs: number;
}

/** The relay's defaults, in one place. */
export const RELAY_DEFAULTS: Readonly<RelayLimits> = Object.freeze({
  maxBodyBytes: 1024 * 1024,
  requestsPerMinute: 600,
  streamsPerOwner: 8,
  maxAnswerBytes: 8 * 1024 * 1024,
  cardTtlMs: 60_000,
  headersTimeoutMs: 60_000,
});

/** Options of {@link createRelay}. */
export interface RelayOptions {
  /** The agents, by the name that is their path under `basePath` (letters, digits, `.`, `_`, `-`). */
  agents: Record<string, string | RelayAgent>;
  /** The path the relay is mounted at, e.g. `/api/a2a` (agent `helper` at `/api/a2a/helper`). Default `''`. */
  basePath?: string | undefined;
  /**
   * Who is asking: the app's session user (a stable id). `undefined` refuses the request (401). A task or
   * context created through the relay is visible to its owner only.
   */
  owner: (request: Request) => string | undefined | Promise<string | undefined>;
  /** Where the owner of each task and context is kept. Default: in memory, this process only ({@link createMemoryOwnership}). */
  ownership?: RelayOwnership | undefined;
  /** Bounds per owner. */
  limits?: Partial<RelayLimits> | undefined;
  /** The origin browsers reach the relay at (behind a proxy that rewrites it). Default: the request's. */
  publicOrigin?: string | undefined;
  /** The fetch the relay calls agents with. Default `globalThis.fetch`. */
  fetch?: FetchLike | undefined;
}
