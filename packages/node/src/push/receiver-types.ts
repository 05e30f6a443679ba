import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TetherError } from '@a2a-tether/core';
import type { PushHmacOptions } from './hmac-check.js';
import type { PushJwtOptions } from './jwt-check.js';
import type { PushListener } from './push-notice.js';
import type { PushRelay } from './push-relay.js';

/** Options of {@link createPushReceiver}. At least one of `token`, `jwt`, `hmac` is required. */
export interface PushReceiverOptions {
  /**
   * A shared secret the sender presents as `Authorization: Bearer <token>` or in the legacy
   * `X-A2A-Notification-Token` header (what the official SDKs send for a config's `token`).
   */
  token?: string | undefined;
  /** Accept pushes carrying a JWT (`Authorization: Bearer <jwt>`) signed by a key of this JWKS. */
  jwt?: PushJwtOptions | undefined;
  /** Accept pushes signed Standard-Webhooks style (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
  hmac?: PushHmacOptions | undefined;
  /** Largest body (bytes); larger → 413. Default {@link PUSH_RECEIVER_DEFAULTS}.maxBodyBytes (256 KiB). */
  maxBodyBytes?: number | undefined;
  /** How long (ms) a body may take to arrive; slower → 408 and the connection closed. Default 10 000. */
  bodyTimeoutMs?: number | undefined;
  /**
   * Bytes that bodies not verifiable before they are read (HMAC-signed, with no token that opens an
   * expected task) may hold together; a body that does not fit → 503 at once, unread. Default 4 MiB.
   */
  maxUnverifiedBytes?: number | undefined;
  /**
   * Allowed clock skew (seconds) of a JWT `iat` or `webhook-timestamp`, either way; also how long a
   * task remembers the bodies it accepted, to answer a byte-identical one 200. Default 300.
   */
  windowSec?: number | undefined;
  /**
   * Accepted pushes for one task from one sender (see docs/node.md, "Floods") not yet taken by the
   * task's listener before that sender's pushes for that task are answered 429. Default 100.
   */
  maxPendingPerTask?: number | undefined;
  /**
   * Pushes held for one registration whose task the agent has not named yet (see {@link PushReceiver.register}):
   * beyond this, 429. Default 16.
   */
  maxEarlyPushes?: number | undefined;
  /** Bytes of the pushes held for registrations whose task is not named yet, all together: beyond this, 503. Default 4 MiB. */
  maxEarlyBytes?: number | undefined;
  /** Bodies remembered per task within `windowSec` (the oldest forgotten first). Default 256. */
  maxRememberedBodies?: number | undefined;
  /** JWT / webhook ids remembered against replays, per sender. Default 10 000; a sender's share full of live ids → 429. */
  replayCacheSize?: number | undefined;
  /** `Retry-After` (seconds) of a 429. Default 1. */
  retryAfterSec?: number | undefined;
  /** The clock (ms since the epoch), for tests. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** Called with every refusal (a {@link TetherError} with code `PUSH_REFUSED` and the HTTP `status`). */
  onRefused?: ((error: TetherError) => void) | undefined;
  /** Called when a listener throws or rejects. Default: a process warning. */
  onListenerError?: ((error: unknown) => void) | undefined;
  /**
   * Shares this receiver with the other replicas of a service (see `PushRelay`): a push for a registration
   * another replica holds is authenticated here, handed to that replica, and answered with what it decided.
   * `connect()` of `@a2a-tether/node` sets it from a Redis task store by itself (`useRelay`).
   */
  relay?: PushRelay | undefined;
}

/** Options of {@link PushReceiver.expect}. */
export interface ExpectOptions {
  /**
   * This task's own token (the `token` of the push config registered for it). When set, pushes for
   * the task must present it — as the token itself, or in `X-A2A-Notification-Token` beside a JWT
   * or an HMAC signature — and the receiver-wide `token` no longer authenticates them.
   */
  token?: string | undefined;
}

/** Options of {@link PushReceiver.register}. */
export interface RegisterOptions {
  /** The token of the push config (what the agent will present): the registration is found by it. */
  token: string;
  /** The task, when its id is known already (as with `expect(taskId, { token })`). */
  taskId?: string | undefined;
}

/**
 * One registration of a push config's token ({@link PushReceiver.register}). Pushes that present the token
 * before the task is named are accepted and held (at most `maxEarlyPushes`, `maxEarlyBytes` in all, for
 * `windowSec`); `bind(taskId)` delivers those that name the task and drops the others.
 */
export interface PushRegistration {
  /** The task the registration is bound to (`undefined` until `bind`). */
  readonly taskId: string | undefined;
  /**
   * Settles once a push can find the registration wherever it lands: at once in one process; with a relay,
   * once the relay stored it. Send the config to the agent after it settles. Never rejects (a relay error
   * goes to `onListenerError`).
   */
  readonly ready: Promise<void>;
  /** The agent named the task: held pushes that name it are delivered, the others dropped. Once. */
  bind(taskId: string): void;
  /** As {@link PushReceiver.subscribe}, for this registration: notices come once it is bound. */
  subscribe(listener: PushListener): () => void;
  /** Stops accepting pushes for the registration and drops what it holds; its late pushes are answered 410 for `windowSec`. */
  forget(): void;
}

/** What the receiver holds right now, for monitoring and for tests that bound memory. */
export interface PushReceiverStats {
  /** Registrations (expected tasks, and tokens registered before their task is named). */
  readonly tasks: number;
  /** Pending notices (at most one per task: merged). */
  readonly heldNotices: number;
  /** Accepted pushes those notices stand for (at most `maxPendingPerTask` per task and sender). */
  readonly pendingPushes: number;
  /** Ids in the replay cache (at most `replayCacheSize` per sender). */
  readonly replayIds: number;
  /** Body digests remembered against repeats (at most `maxRememberedBodies` per task). */
  readonly rememberedBodies: number;
  /** Bytes reserved by bodies being read that are not verifiable yet (at most `maxUnverifiedBytes`, or one body). */
  readonly unverifiedBytes: number;
  /** Pushes authenticated here and handed to the replica holding their registration, which answered (with a relay). */
  readonly handedOver: number;
  /** Pushes another replica handed to this one (with a relay) and this one decided on, accepted or not. */
  readonly relayedIn: number;
  /** Pushes held for registrations whose task is not named yet (at most `maxEarlyPushes` each). */
  readonly earlyPushes: number;
  /** Their bytes (at most `maxEarlyBytes`). */
  readonly earlyBytes: number;
}

/** A webhook endpoint for A2A push notifications; see {@link createPushReceiver}. */
export interface PushReceiver {
  /** The receiver as a Node `http.createServer` handler. */
  readonly nodeHandler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The receiver as a WHATWG handler (for frameworks that speak `Request`/`Response`). */
  handle(request: Request): Promise<Response>;
  /**
   * Accepts pushes for this task from now on (only registered tasks are accepted; others → 404). Calling it
   * again for the task replaces its token. The same as `register({ token, taskId })` (or, without a token,
   * a registration found by the task id), kept by the receiver under the task id for `forget(taskId)`.
   */
  expect(taskId: string, options?: ExpectOptions): void;
  /**
   * Registers a push config's token before the task exists: call it before the send that carries the config
   * (agents push as they create a task, before the answer names it), wait for `ready` when you share the
   * receiver between replicas, and `bind(taskId)` once the agent named the task. Registrations are told
   * apart by their tokens, so two agents that give their tasks one id each get their own pushes.
   *
   * @throws TetherError `INVALID_ARGUMENT` for an empty token or task id.
   */
  register(options: RegisterOptions): PushRegistration;
  /** Stops accepting pushes for the task registered by `expect(taskId)` and drops its pending notice and listeners. */
  forget(taskId: string): void;
  /**
   * Calls `listener` with the notices of the registrations bound to this task now (by `expect` or
   * `register`), one at a time: while it is busy (its promise pending), new pushes merge into the next
   * notice. A notice that arrived before anyone subscribed is delivered on subscribing. Returns the
   * function that unsubscribes. Subscribing to a task that is not registered does nothing.
   */
  subscribe(taskId: string, listener: PushListener): () => void;
  /** What the receiver holds (see {@link PushReceiverStats}). */
  stats(): PushReceiverStats;
  /**
   * Shares the receiver with other replicas through `relay` (what the `relay` option does): its
   * registrations are registered there (those made before, too), and pushes handed to this replica are
   * decided on and answered. Once.
   */
  useRelay(relay: PushRelay): void;
  /** Refuses every push from now on (503) and drops everything held. */
  close(): void;
}

