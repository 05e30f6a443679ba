import type { AuthOptions } from '../auth/auth-options.js';
import { planCredentials } from '../auth/auth-plan.js';
import { CredentialStore } from '../auth/credential-store.js';
import { MemoryCardCache, type CardCache } from '../card/card-cache.js';
import type { AgentCard } from '../card/card-types.js';
import { verifiedCard, type CardVerifier } from '../card/card-verifier.js';
import { negotiate, type NegotiationPreferences } from '../card/negotiate.js';
import { cardReader } from '../card/load-card-reader.js';
import { resolveCard } from '../card/resolve-card.js';
import { DEFAULTS, type ResilienceOptions } from '../defaults.js';
import { MemoryTaskStore } from '../store/memory-task-store.js';
import { canLease, type TaskStore } from '../store/task-store.js';
import { ALL_PARTS } from '../task/all-parts.js';
import { taskEngine } from '../task/load-engine.js';
import type { EngineParts } from '../task/follow-context.js';
import type { PushDelivery } from '../task/follow-context.js';
import type { NetworkSignals, TaskCoordinator } from '../task/coordinator.js';
import { realScheduler, type Scheduler } from '../util/scheduler.js';
import { redact } from '../errors/redact.js';
import { TetherError } from '../errors/tether-error.js';
import type { FetchLike } from '../http/fetch-like.js';
import { HttpClient } from '../http/http-client.js';
import type { CustomBinding } from '../transport/custom-binding.js';
import { openClient, type A2AClient } from './a2a-client.js';
import { randomId } from '../model/message-input.js';
import { checkMaxRetries, retryUnary } from './retry-unary.js';
import { Watch } from '../observe/watch.js';
import { debugLogger } from '../observe/debug-logger.js';
import type { Logger } from '../observe/log-plugin.js';
import type { TetherPlugin } from '../observe/plugin.js';

/**
 * Features of draft versions of A2A, each off unless turned on: their wire shapes may still change, so
 * an app opts in knowingly. With all of them off, nothing of a draft is sent or used.
 */
export interface ExperimentalOptions {
  /**
   * A2A v1.1 draft, the task generation counter (spec §3.2.7). On a v1.0 interface whose agent stamps
   * generations (≥ 1) on tasks and events, the task engine: drops an event whose generation it applied
   * already (no guessing from content); on a gap (generation 5 after 3), fetches the task and fills it
   * from the snapshot; while polling, long-polls (`currentGeneration`: the agent holds GetTask until
   * the task moves); and `reply(…, { ifGenerationMatch: 'last' })` sends the generation last seen. An
   * agent that sends none (or 0, or the same generation on two events in a row) is followed as before,
   * for the rest of that task. Default `false`.
   */
  generations?: boolean | undefined;
}

/** Options of {@link connect}. */
export interface ConnectOptions extends NegotiationPreferences {
  /** Draft-protocol features to turn on (see {@link ExperimentalOptions}); all off by default. */
  experimental?: ExperimentalOptions | undefined;
  /** The fetch to use. `@a2a-tether/node` passes undici's; the browser package the global one. */
  fetch?: FetchLike | undefined;
  /**
   * The fetch for event streams, when it differs from `fetch` (`@a2a-tether/node` passes one that
   * reads bodies without WHATWG streams). It may answer with just the members of a `Response` that
   * Tether reads: `status`, `statusText`, `ok`, `type`, `headers`, and `body.getReader()`/`cancel()`.
   */
  streamFetch?: FetchLike | undefined;
  /**
   * Credentials; the scheme is chosen from the card. Sent only to the origin of `url` (plus
   * `auth.origins`): not to where a redirect of the card request leads, nor to interfaces there.
   */
  auth?: AuthOptions | undefined;
  /** Headers added to every request (not treated as credentials: use `auth.headers` for secrets). */
  headers?: Record<string, string> | undefined;
  /**
   * Interceptors and observers of every request, stream and task of the client, run in this order
   * (`@a2a-tether/otel`'s `otel()` is one; docs/observability.md). A plugin that throws never breaks a call.
   */
  plugins?: readonly TetherPlugin[] | undefined;
  /**
   * Where W3C trace context headers (`traceparent`, `tracestate`) are sent: `true` (default in core and
   * Node) on every request; `'same-origin'` (the browser package's default) only to the page's own origin,
   * since a cross-origin agent whose CORS does not allow these headers would fail the request — set `true`
   * once it does; `false` never (a plugin may still set them).
   */
  traceHeaders?: boolean | 'same-origin' | undefined;
  /**
   * Tether's debug log (docs/observability.md#debug-log): which interface was chosen and why, every
   * request and answer, each stream event (kind, ids, state; never content), reconnects and their waits —
   * each line one string, credentials redacted. `console` and pino loggers work as they are. Default:
   * off, unless `TETHER_DEBUG=1` (or `localStorage.tetherDebug` in a page) turns on `console`.
   */
  log?: Logger | undefined;
  /**
   * Extension URIs to activate on every call (sent in `A2A-Extensions`, v0.3 `X-A2A-Extensions`). Every
   * extension the card marks `required` must be here: otherwise `connect()` rejects with `EXTENSION_REQUIRED`
   * naming them, before any A2A request.
   */
  extensions?: string[] | undefined;
  /**
   * Protocol bindings of your own (WebSocket, …), used for the card's interfaces whose `protocolBinding`
   * is their `name`, negotiated with the built-in JSON-RPC and HTTP+JSON (docs/bindings.md).
   */
  bindings?: readonly CustomBinding[] | undefined;
  /** Default time limit of calls (see {@link DEFAULTS}.timeoutMs); for retried calls, of each attempt. */
  timeoutMs?: number | undefined;
  /**
   * Retries of the card fetch and of the idempotent unary calls after transient failures
   * (see {@link DEFAULTS}.maxRetries); `0` turns them off. Never applies to sends or to the task engine.
   */
  maxRetries?: number | undefined;
  /** Aborts `connect()` itself. */
  signal?: AbortSignal | undefined;
  /**
   * Use this card instead of fetching one: the card JSON as served (either version) or an
   * `AgentCard` that `normalizeCard()` returned. Relative URLs in it resolve against the `url`
   * argument. Anything else is checked: a normalized card that went through JSON is normalized again
   * from its `raw` card (the fields beside `raw` are not trusted), and without `raw` it is `CARD_INVALID`.
   */
  card?: unknown;
  /**
   * Check the card before anything uses it — its signatures, with `cardVerifier({ trustedKeys })` from
   * `@a2a-tether/core/signing`. An unsigned or badly signed card then fails `connect()` (and
   * `getExtendedCard()`) with `SIGNATURE_INVALID`, and the client uses the card the verifier returns,
   * never the one received. Applies to a cached card and to `card` as well.
   */
  verifyCard?: CardVerifier | undefined;
  /** Where cards are cached between connects; `false` disables caching. Default: a shared in-memory cache. */
  cardCache?: CardCache | false | undefined;
  /** Largest single SSE event in characters (see {@link DEFAULTS}.maxEventSize). */
  maxEventSize?: number | undefined;
  /** Largest unary response body in bytes. */
  maxResponseBytes?: number | undefined;
  /** Message id generator (default: random UUIDs). */
  newId?: (() => string) | undefined;
  /** Clock, for cache freshness and Retry-After dates (default: the scheduler's clock). */
  now?: (() => number) | undefined;
  /** Where followed tasks are recorded (default: in memory). */
  store?: TaskStore | undefined;
  /**
   * Who this client acts for: an id the app supplies (a user or tenant id — never a token). Records of
   * tasks this client starts carry it; `resume()`, `resumeAll()` and `tasks()` only touch records with
   * the same principal (a record of another principal gives `PRINCIPAL_MISMATCH`).
   */
  principal?: string | undefined;
  /** How long a finished task's record is kept (see {@link DEFAULTS}.retentionMs). */
  retentionMs?: number | undefined;
  /**
   * With a store that leases tasks (several processes sharing one store): this client's owner name
   * (default: random, unique per client). The lease's time to live is the store's own option (e.g.
   * `createRedisTaskStore({ leaseMs })`): one knob, read by the engine from each lease.
   */
  leaseOwner?: string | undefined;
  /**
   * Task streams this client holds open at once (default: no limit in core; `@a2a-tether/node` sets
   * 1,000 for its pool of 1,024 sockets per origin). Past it, tasks are followed by polling (or push)
   * and return to a stream when one closes — a follow never waits on a socket without end.
   */
  maxStreams?: number | undefined;
  /**
   * Push delivery: the receiver that gets the agent's webhook calls and the URL that reaches it. With
   * it, `start(…, { delivery: 'auto' })` follows by push when the card says the agent can push.
   */
  push?: PushDelivery | undefined;
  /**
   * Several clients sharing one store (browser tabs): who drives each task and how the others mirror it.
   * `@a2a-tether/browser` builds one for `tabs: true`; see {@link TaskCoordinator}.
   */
  coordinator?: TaskCoordinator | undefined;
  /** The platform's network and page signals (`@a2a-tether/browser` wires them); see {@link NetworkSignals}. */
  networkSignals?: NetworkSignals | undefined;
  /** Task engine settings; anything left out comes from {@link DEFAULTS}.resilience. */
  resilience?: Partial<ResilienceOptions> | undefined;
  /** Clock and timers of the task engine (inject a fake one in tests). */
  scheduler?: Scheduler | undefined;
  /** Random numbers in [0, 1) for jitter (inject a seeded one in tests). */
  random?: (() => number) | undefined;
}

const sharedCardCache = new MemoryCardCache();

/** A store missing its methods (e.g. the promise of an async store factory) fails here, not at the first write. */
function checkStore(store: unknown): void {
  if (store === undefined) return;
  const methods = ['get', 'put', 'update', 'list', 'delete'] as const;
  const missing = methods.filter((m) => typeof (store as Record<string, unknown> | null)?.[m] !== 'function');
  if (missing.length === 0) return;
  const hint = typeof (store as { then?: unknown } | null)?.then === 'function' ? ' (it is a promise: await the store factory, e.g. `await createRedisTaskStore(…)`)' : '';
  throw new TetherError('INVALID_ARGUMENT', `connect: store is not a TaskStore, it lacks ${missing.join(', ')}${hint}`, { maybeDelivered: false });
}

/** Push delivery and a store that leases need their engine parts (a browser's `connect()` has neither). */
function checkParts(parts: EngineParts, options: ConnectOptions): void {
  if (options.push && !parts.push) {
    throw new TetherError('INVALID_ARGUMENT', 'connect: push delivery needs the engine\'s push part, which this connect leaves out (the browser package, or connectWithParts without parts.push): use connect() from @a2a-tether/node or @a2a-tether/core, on a server with a webhook receiver', {
      maybeDelivered: false,
    });
  }
  if (options.auth?.oauth2 && !options.auth.bearer && !parts.oauth2) {
    throw new TetherError('INVALID_ARGUMENT', 'connect: auth.oauth2 is for servers (no client secret in a web page): pass auth.bearer', {
      maybeDelivered: false,
    });
  }
  if (options.store && canLease(options.store) && !parts.lease) {
    throw new TetherError('INVALID_ARGUMENT', 'connect: a store that leases tasks (shared by several processes) needs the engine\'s lease part, which this connect leaves out (the browser package, or connectWithParts without parts.lease): use connect() from @a2a-tether/node or @a2a-tether/core', {
      maybeDelivered: false,
    });
  }
}

function defaultFetch(): FetchLike {
  const f = (globalThis as { fetch?: FetchLike }).fetch;
  if (!f) throw new TetherError('INVALID_ARGUMENT', 'no global fetch in this runtime: pass options.fetch');
  return f.bind(globalThis);
}

/**
 * Connects to an A2A agent: fetches its card (or takes `options.card`), picks the interface
 * (binding × protocol version) to talk through, and returns a client for it.
 *
 * `url` may be the agent's base URL (the card is looked up under `/.well-known/`), or the card's
 * own URL. Plain `connect(url)` works with v1.0 and v0.3 agents alike. The code of the chosen binding
 * and version is imported only then, so a bundled web app loads no other (docs/browser.md).
 *
 * @throws TetherError `CARD_NOT_FOUND`, `CARD_INVALID`, `NO_COMPATIBLE_INTERFACE`, `SIGNATURE_INVALID`
 *   (with `verifyCard`), the network/HTTP error of the card request, or `NETWORK` when the page
 *   cannot load that code.
 */
export function connect(url: string | URL, options: ConnectOptions = {}): Promise<A2AClient> {
  return connectWithParts(ALL_PARTS, url, options);
}

/**
 * {@link connect} with the engine parts you choose. Core exports the parts' types, not the runners, so
 * `parts` is `{}`: neither push delivery nor leases, for a build that needs neither (a Worker, an edge
 * function; `@a2a-tether/browser`'s `connect` is this) — its bundle then holds neither's code. With both,
 * it is `connect` (docs/runtimes.md).
 *
 * @throws TetherError `INVALID_ARGUMENT` for `push`, or a store that leases, without the part it needs
 *   (before the card is fetched), and whatever {@link connect} throws.
 */
export async function connectWithParts(parts: EngineParts, url: string | URL, options: ConnectOptions = {}): Promise<A2AClient> {
  let base: URL;
  try {
    base = new URL(url);
  } catch (error) {
    throw new TetherError('INVALID_ARGUMENT', `not an absolute URL: ${redact(String(url))}`, { cause: error });
  }
  if (base.username !== '' || base.password !== '') {
    // Fetch refuses such URLs with an error that quotes them, password included.
    throw new TetherError('INVALID_ARGUMENT', `the URL carries credentials (${redact(base.href)}): pass them as auth.basic instead`, {
      maybeDelivered: false,
    });
  }
  const fetch = options.fetch ?? defaultFetch();
  const log = options.log ?? debugLogger();
  const scheduler = options.scheduler ?? realScheduler;
  const now = options.now ?? (() => scheduler.now());
  let auth: AuthOptions = options.auth ?? {};
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
  const maxRetries = options.maxRetries ?? DEFAULTS.maxRetries;
  checkMaxRetries(maxRetries, 'connect');
  checkStore(options.store);
  checkParts(parts, options);
  if ((options as { leaseMs?: unknown }).leaseMs !== undefined) {
    throw new TetherError('INVALID_ARGUMENT', 'connect: leaseMs is an option of the store now (e.g. createRedisTaskStore({ leaseMs })), not of connect()', {
      maybeDelivered: false,
    });
  }

  // Reading the card and following tasks come after the card's round trip: their code loads during it.
  cardReader.preload();
  taskEngine.preload();
  // Plugins see every request, the card's first: their hooks (and the log's) come with the engine's code (D29).
  const plugins = options.plugins ?? [];
  const engine = plugins.length > 0 || log ? await taskEngine.get() : undefined;
  const watch = new Watch(log && engine ? [...plugins, engine.logPlugin(log)] : plugins);
  if (engine) watch.hooks = new engine.Observers(watch);
  let card: AgentCard;
  let cardUrl: string;
  if (options.card !== undefined) {
    card = (await cardReader.get()).givenCard(options.card, base.href);
    cardUrl = base.href;
  } else {
    // The card request carries the caller's credentials as given (the scheme list is in the card itself).
    const bootstrap = new HttpClient({
      fetch,
      credentials: new CredentialStore(planCredentials(auth, {}, []), auth, base.origin),
      headers: options.headers,
      timeoutMs,
      maxResponseBytes,
      now,
      watch,
      traceHeaders: options.traceHeaders,
    });
    const wantsV1 = !options.protocolVersions || options.protocolVersions.includes('1.0');
    const fetchCard = (): ReturnType<typeof resolveCard> =>
      resolveCard(base, {
        http: bootstrap,
        cache: options.cardCache ?? sharedCardCache,
        versionHeader: wantsV1 ? '1.0' : undefined,
        signal: options.signal,
        timeoutMs,
        defaultTtlMs: DEFAULTS.cardTtlMs,
        maxBytes: DEFAULTS.maxCardBytes,
        now,
      });
    const resolved = await retryUnary(fetchCard, { operation: 'GetAgentCard', maxRetries, scheduler, signal: options.signal });
    card = resolved.card;
    cardUrl = resolved.url;
    if (resolved.missedAt !== undefined && log) engine?.warnRootCard(log, resolved.missedAt, cardUrl);
  }

  if (options.verifyCard) card = await verifiedCard(options.verifyCard, card, { url: cardUrl, signal: options.signal });

  const candidates = negotiate(card, options, options.bindings);
  (await cardReader.get()).checkExtensions(card, options.extensions ?? []);
  log?.info?.(
    `[tether] ${redact(`agent "${card.name}" (${cardUrl}): ${candidates.map((c) => `${c.binding} v${c.protocolVersion} ${c.url}`).join(', then ')} — the card's interfaces this client speaks, in the order of your preferences`)}`,
  );
  // The caller vouched for the origin it named, not for wherever a redirect of the card request led (G7).
  const origin = base.origin;
  if (auth.oauth2 && auth.bearer === undefined && parts.oauth2) {
    auth = { ...auth, bearer: parts.oauth2({ options: auth.oauth2, card, allowedOrigins: [origin, ...(auth.origins ?? []).map((o) => new URL(o).origin)], fetch, now }) };
  }
  const credentials = new CredentialStore(planCredentials(auth, card.securitySchemes, card.securityRequirements), auth, origin);
  const http = new HttpClient({
    fetch,
    streamFetch: options.streamFetch,
    credentials,
    headers: options.headers,
    timeoutMs,
    maxResponseBytes,
    now,
    watch,
    traceHeaders: options.traceHeaders,
  });
  return openClient({
    watch,
    card,
    cardUrl,
    verifyCard: options.verifyCard,
    candidates,
    http,
    credentialsInQuery: credentials.queryNames,
    extensions: options.extensions ?? [],
    custom: options.bindings,
    maxEventSize: options.maxEventSize ?? DEFAULTS.maxEventSize,
    newId: options.newId ?? randomId,
    maxRetries,
    store: options.store ?? new MemoryTaskStore(),
    principal: options.principal,
    retentionMs: options.retentionMs ?? DEFAULTS.retentionMs,
    push: options.push,
    parts,
    leaseOwner: options.leaseOwner ?? `tether-${randomId()}`,
    maxStreams: options.maxStreams ?? Number.POSITIVE_INFINITY,
    coordinator: options.coordinator,
    network: options.networkSignals,
    resilience: { ...DEFAULTS.resilience, ...options.resilience },
    scheduler,
    random: options.random ?? Math.random,
    generations: options.experimental?.generations === true,
  });
}
