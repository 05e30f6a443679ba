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
   * Shares this receiver with the other replicas of a service (see `PushRelay`): a push for a task another
   * replica follows is verified here and handed to that replica before it is acknowledged. `connect()` of
   * `@a2a-tether/node` sets it from a Redis task store by itself (`useRelay`).
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

/** What the receiver holds right now, for monitoring and for tests that bound memory. */
export interface PushReceiverStats {
  /** Expected tasks. */
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
  /** Pushes for another replica's task verified here and handed to it (with a relay). */
  readonly handedOver: number;
  /** Pushes another replica handed to this one (with a relay), delivered or not (a task finished meanwhile is not). */
  readonly relayedIn: number;
}

/** A webhook endpoint for A2A push notifications; see {@link createPushReceiver}. */
export interface PushReceiver {
  /** The receiver as a Node `http.createServer` handler. */
  readonly nodeHandler: (req: IncomingMessage, res: ServerResponse) => void;
  /** The receiver as a WHATWG handler (for frameworks that speak `Request`/`Response`). */
  handle(request: Request): Promise<Response>;
  /** Accepts pushes for this task from now on (only expected tasks are accepted; others → 404). */
  expect(taskId: string, options?: ExpectOptions): void;
  /** Stops accepting pushes for this task and drops its pending notice and listeners. */
  forget(taskId: string): void;
  /**
   * Calls `listener` with the task's notices, one at a time: while it is busy (its promise pending),
   * new pushes merge into the next notice. A notice that arrived before anyone subscribed is
   * delivered on subscribing. Returns the function that unsubscribes. Subscribing to a task that is
   * not expected does nothing.
   */
  subscribe(taskId: string, listener: PushListener): () => void;
  /** What the receiver holds (see {@link PushReceiverStats}). */
  stats(): PushReceiverStats;
  /**
   * Shares the receiver with other replicas through `relay` (what the `relay` option does): the tasks
   * expected from now on are registered there, and pushes handed to this replica are delivered. Once.
   */
  useRelay(relay: PushRelay): void;
  /** Refuses every push from now on (503) and drops everything held. */
  close(): void;
}

