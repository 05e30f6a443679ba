import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TetherError } from '@a2a-tether/core';
import type { StreamEvent } from '@a2a-tether/core';
import { decodeStreamEvent, DecodeError } from '@a2a-tether/core/protocol';
import { SecretMatcher } from './constant-time.js';
import { PUSH_RECEIVER_DEFAULTS } from './defaults.js';
import { HmacCheck } from './hmac-check.js';
import type { PushHmacOptions } from './hmac-check.js';
import { bodyHashMatches, JwtCheck, JwtRefusal, looksLikeJwt } from './jwt-check.js';
import type { PushJwtOptions, VerifiedJwt } from './jwt-check.js';
import type { PushListener } from './push-notice.js';
import { senderOf } from './push-sender.js';
import type { PushCredential } from './push-sender.js';
import { readNodeBody, readWebBody } from './read-body.js';
import type { BodyRead } from './read-body.js';
import { ReplayCache } from './replay-cache.js';
import { tokenMatches, tokenSha256, type PushRelay } from './push-relay.js';
import { TaskMailboxes } from './task-mailboxes.js';
import { UnverifiedBudget } from './unverified-budget.js';

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

/** A request as the receiver sees it, whatever the server. */
interface IncomingPush {
  readonly method: string;
  header(name: string): string | undefined;
  readBody(limit: number, timeoutMs: number): Promise<BodyRead>;
}

/** The answer, whatever the server. `consumed`: the body was read to its end. */
interface PushAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly consumed: boolean;
}

const CONTENT_TYPES = new Set(['application/json', 'application/a2a+json']);
const FORBIDDEN_ALGORITHMS = /^(none|HS\d+)$/i;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) {
    throw new TetherError('INVALID_ARGUMENT', `createPushReceiver: ${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}

/** Where the event says it belongs. */
function taskIdOf(event: StreamEvent): string | undefined {
  const id = event.kind === 'task' ? event.id : event.taskId;
  return id === undefined || id === '' ? undefined : id;
}

/** A task id named inside the event that differs from the event's own (a status or history message of another task). */
function innerMismatch(event: StreamEvent, taskId: string): string | undefined {
  const messages = event.kind === 'task' ? [event.status.message, ...event.history] : event.kind === 'status-update' ? [event.status.message] : [];
  for (const message of messages) {
    const inner = message?.taskId;
    if (inner !== undefined && inner !== '' && inner !== taskId) return inner;
  }
  return undefined;
}

/**
 * Creates a receiver for A2A push notifications (webhooks). It authenticates every call (a token
 * compared in constant time, a JWT verified against a JWKS, or a Standard Webhooks HMAC signature),
 * bounds what it reads and holds, accepts only tasks you `expect()`, decodes v1.0 (StreamResponse)
 * and v0.3 (whole Task) bodies with the core decoders, answers at once (202, before any listener
 * runs), and merges pushes per task for slow subscribers. Its bounds are per task and per sender,
 * so a flood of one task never gets another task's push refused. Answers: 202 accepted; 200 a
 * repeat (the same body for the task within `windowSec`, the same `jti` or `webhook-id`) or an
 * older state, accepted but not delivered; 400 not JSON or not an A2A event; 401 unauthenticated;
 * 404 task not expected; 405 not POST; 408 the body did not arrive within `bodyTimeoutMs`; 409 the
 * event names another task inside, or a `webhook-id` reused for another body; 413 body too large;
 * 415 not JSON; 429 this sender's pushes pending for this task, or its replay ids, at their bound
 * (with `Retry-After`); 503 closed, JWKS unreachable, or the budget of unverifiable bodies full.
 *
 * @throws TetherError `INVALID_ARGUMENT` when no authentication is configured or an option is invalid.
 */
export function createPushReceiver(options: PushReceiverOptions): PushReceiver {
  const { token, jwt, hmac } = options;
  if (token === undefined && jwt === undefined && hmac === undefined) {
    // `token: process.env.X` with X unset is the usual way here.
    const unset = 'token' in options ? ' (token is undefined: is the variable it was read from set?)' : '';
    throw new TetherError('INVALID_ARGUMENT', `createPushReceiver: configure at least one of token, jwt, hmac${unset}`);
  }
  if (token === '') throw new TetherError('INVALID_ARGUMENT', 'createPushReceiver: token must not be empty');
  if (jwt !== undefined && jwt.audience === '') {
    throw new TetherError('INVALID_ARGUMENT', 'createPushReceiver: jwt.audience must not be empty');
  }
  const algorithms = jwt?.algorithms ?? PUSH_RECEIVER_DEFAULTS.jwtAlgorithms;
  if (jwt !== undefined && (algorithms.length === 0 || algorithms.some((alg) => FORBIDDEN_ALGORITHMS.test(alg)))) {
    throw new TetherError(
      'INVALID_ARGUMENT',
      `createPushReceiver: jwt.algorithms must list asymmetric algorithms only (not none or HS*), got ${JSON.stringify(algorithms)}`,
    );
  }
  if (hmac !== undefined && (hmac.secret.length === 0 || hmac.secret === 'whsec_')) {
    throw new TetherError('INVALID_ARGUMENT', 'createPushReceiver: hmac.secret must not be empty');
  }
  const maxBodyBytes = positive('maxBodyBytes', options.maxBodyBytes, PUSH_RECEIVER_DEFAULTS.maxBodyBytes);
  const bodyTimeoutMs = positive('bodyTimeoutMs', options.bodyTimeoutMs, PUSH_RECEIVER_DEFAULTS.bodyTimeoutMs);
  const maxUnverifiedBytes = positive('maxUnverifiedBytes', options.maxUnverifiedBytes, PUSH_RECEIVER_DEFAULTS.maxUnverifiedBytes);
  const windowSec = positive('windowSec', options.windowSec, PUSH_RECEIVER_DEFAULTS.windowSec);
  const maxPendingPerTask = positive('maxPendingPerTask', options.maxPendingPerTask, PUSH_RECEIVER_DEFAULTS.maxPendingPerTask);
  const maxRememberedBodies = positive('maxRememberedBodies', options.maxRememberedBodies, PUSH_RECEIVER_DEFAULTS.maxRememberedBodies);
  const replayCacheSize = positive('replayCacheSize', options.replayCacheSize, PUSH_RECEIVER_DEFAULTS.replayCacheSize);
  const retryAfterSec = positive('retryAfterSec', options.retryAfterSec, PUSH_RECEIVER_DEFAULTS.retryAfterSec);
  const now = options.now ?? Date.now;
  const onListenerError =
    options.onListenerError ??
    ((error: unknown) => process.emitWarning(`push listener failed: ${error instanceof Error ? error.message : String(error)}`));

  const secrets = new SecretMatcher();
  const tokenDigest = token === undefined ? undefined : secrets.digest(token);
  const jwtCheck = jwt === undefined ? undefined : new JwtCheck(jwt, algorithms, windowSec);
  const hmacCheck = hmac === undefined ? undefined : new HmacCheck(hmac, windowSec);
  const replays = new ReplayCache(replayCacheSize);
  const mailboxes = new TaskMailboxes(maxRememberedBodies, windowSec * 1000, onListenerError);
  const unverified = new UnverifiedBudget(maxUnverifiedBytes, maxBodyBytes);
  let closed = false;
  let relay: PushRelay | undefined;
  let handedOver = 0;
  let relayedIn = 0;

  const answer = (status: number, body: object, consumed: boolean, headers: Record<string, string> = {}): PushAnswer => ({
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    consumed,
  });
  const refuse = (status: number, reason: string, consumed: boolean, extra: { taskId?: string; headers?: Record<string, string> } = {}): PushAnswer => {
    options.onRefused?.(
      new TetherError('PUSH_REFUSED', `push refused: ${reason}`, {
        operation: 'PushNotification',
        status,
        taskId: extra.taskId,
        isRetryable: status === 429 || status === 503,
        retryAfterMs: extra.headers?.['retry-after'] === undefined ? undefined : Number(extra.headers['retry-after']) * 1000,
      }),
    );
    return answer(status, { error: reason }, consumed, extra.headers);
  };
  const busy = (reason: string, taskId: string, afterSec = retryAfterSec): PushAnswer =>
    refuse(429, reason, true, { taskId, headers: { 'retry-after': String(afterSec) } });

  async function receive(push: IncomingPush): Promise<PushAnswer> {
    if (closed) return refuse(503, 'the receiver is closed', false);
    if (push.method !== 'POST') return refuse(405, `method ${push.method} not allowed`, false, { headers: { allow: 'POST' } });
    const contentType = (push.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!CONTENT_TYPES.has(contentType)) return refuse(415, `content type ${JSON.stringify(contentType)} is not JSON`, false);
    const declared = Number(push.header('content-length') ?? Number.NaN);
    if (declared > maxBodyBytes) return refuse(413, `body of ${declared} bytes exceeds ${maxBodyBytes}`, false);

    // Which credentials were presented: decided from headers alone, so a bare request costs no read.
    const bearer = BEARER.exec(push.header('authorization') ?? '')?.[1];
    const bearerJwt = bearer !== undefined && jwtCheck !== undefined && looksLikeJwt(bearer) ? bearer : undefined;
    const presentedToken = push.header('x-a2a-notification-token') ?? (bearerJwt === undefined ? bearer : undefined);
    const signature = push.header('webhook-signature');
    const hmacHeaders =
      hmacCheck !== undefined && signature !== undefined
        ? { id: push.header('webhook-id') ?? '', timestamp: push.header('webhook-timestamp') ?? '', signature }
        : undefined;
    if (bearerJwt === undefined && hmacHeaders === undefined && presentedToken === undefined) {
      return refuse(401, 'no credentials', false);
    }
    // A token that is neither the receiver's nor any expected task's opens nothing: with no other
    // credentials it is refused before the body is read, so a forged push costs no read and no parse.
    const presentedDigest = presentedToken === undefined ? undefined : secrets.digest(presentedToken);
    const tokenMayOpen =
      presentedDigest !== undefined &&
      ((tokenDigest !== undefined && secrets.same(presentedDigest, tokenDigest)) || mailboxes.holdsToken(presentedDigest));
    // With a relay, a token may be another replica's task's: that is known only once the body names the task.
    const relayable = relay !== undefined && presentedToken !== undefined && !tokenMayOpen;
    if (bearerJwt === undefined && hmacHeaders === undefined && !tokenMayOpen && !relayable) return refuse(401, "the token is neither the receiver's nor an expected task's", false);
    // A signature's id and timestamp need no body: when nothing else could open, they are checked first.
    if (bearerJwt === undefined && !tokenMayOpen && hmacHeaders !== undefined && hmacCheck !== undefined) {
      const refused = hmacCheck.checkHeaders(hmacHeaders, now());
      if (refused !== undefined) return refuse(401, refused, false);
    }
    // A JWT is checked before the body is read: a forged one costs no read.
    let verifiedJwt: VerifiedJwt | undefined;
    if (bearerJwt !== undefined && jwtCheck !== undefined) {
      try {
        verifiedJwt = await jwtCheck.verify(bearerJwt, now());
      } catch (error) {
        if (error instanceof JwtRefusal && error.kind === 'auth') return refuse(401, error.reason, false);
        const reason = error instanceof JwtRefusal ? error.reason : String(error);
        return refuse(503, reason, false, { headers: { 'retry-after': String(retryAfterSec) } });
      }
    }

    // Only a signature can vouch for this body, and only once it is read: anyone can send such
    // bodies, so together they get a fixed budget (the others are held by verified senders only).
    const verifiable = verifiedJwt !== undefined || tokenMayOpen;
    const reserved = verifiable ? 0 : unverified.reserve(declared);
    if (!verifiable && reserved === 0) {
      return refuse(503, `unverified bodies already hold ${unverified.reserved} bytes`, false, { headers: { 'retry-after': String(retryAfterSec) } });
    }
    const limit = verifiable ? maxBodyBytes : reserved;
    let raw: Uint8Array;
    let hmacVerdict: ReturnType<HmacCheck['verify']> | undefined;
    try {
      const read = await push.readBody(limit, bodyTimeoutMs);
      if (read.kind === 'timeout') return refuse(408, `body not received within ${bodyTimeoutMs} ms`, false);
      if (read.kind === 'too-large') return refuse(413, `body exceeds ${limit} bytes`, false);
      raw = read.bytes;
      // A signature is over the raw bytes: checked before the parse, like the JWT and the token.
      hmacVerdict = hmacHeaders !== undefined && hmacCheck !== undefined ? hmacCheck.verify(hmacHeaders, raw, now()) : undefined;
    } catch (error) {
      return refuse(400, `body could not be read: ${error instanceof Error ? error.message : String(error)}`, false);
    } finally {
      unverified.release(reserved);
    }
    if (!verifiable && !relayable && (hmacVerdict === undefined || typeof hmacVerdict === 'string')) {
      return refuse(401, typeof hmacVerdict === 'string' ? hmacVerdict : 'credentials do not match', true);
    }

    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
    } catch {
      return refuse(400, 'body is not valid UTF-8 JSON', true);
    }
    let event: StreamEvent;
    try {
      const v03 = typeof parsed === 'object' && parsed !== null && 'kind' in parsed;
      event = decodeStreamEvent(parsed, v03 ? 'v03' : 'v1');
    } catch (error) {
      const reason = error instanceof DecodeError ? error.message : String(error);
      return refuse(400, `body is not an A2A push (task, status, artifact or message): ${reason}`, true);
    }
    const taskId = taskIdOf(event);
    if (taskId === undefined) return refuse(400, `the ${event.kind} names no task`, true);

    if (relay !== undefined && !mailboxes.has(taskId)) {
      return handOver(relay, taskId, event, raw, parsed, { presentedToken, presentedDigest, verifiedJwt, hmacVerdict });
    }

    // Authentication, now that the body and its task are known. Everything from here on is
    // synchronous, so two copies of one push racing each other are told apart by the replay cache.
    const nowMs = now();
    const taskToken = mailboxes.tokenDigestOf(taskId);
    let replayKey: { key: string; expiresAtMs: number; reuse: number } | undefined;
    let credential: PushCredential | undefined;
    let failure = 'credentials do not match';
    if (hmacVerdict !== undefined) {
      if (typeof hmacVerdict === 'string') failure = hmacVerdict;
      else {
        credential = 'hmac';
        replayKey = { key: `hmac:${hmacVerdict.id}`, expiresAtMs: (hmacVerdict.timestampSec + windowSec) * 1000, reuse: 409 };
      }
    }
    if (credential === undefined && verifiedJwt !== undefined) {
      if (verifiedJwt.taskId !== undefined && verifiedJwt.taskId !== taskId) {
        failure = `the JWT is for task ${verifiedJwt.taskId}`;
      } else if (verifiedJwt.bodySha256 !== undefined && !bodyHashMatches(verifiedJwt.bodySha256, raw, parsed)) {
        failure = 'the JWT request_body_sha256 does not match the body';
      } else {
        credential = 'jwt';
        const key = `jwt:${verifiedJwt.issuer ?? ''}:${verifiedJwt.jti}`;
        replayKey = { key, expiresAtMs: (verifiedJwt.iatSec + windowSec) * 1000, reuse: 401 };
      }
    }
    if (taskToken !== undefined) {
      // A JWT or a signature says who sent it; the task's own token says it is for this task's config.
      if (presentedDigest !== undefined && secrets.same(presentedDigest, taskToken)) credential = 'task-token';
      else if (credential !== undefined) {
        credential = undefined;
        failure = "the task's token is missing or does not match";
      }
    } else if (credential === undefined && presentedDigest !== undefined && tokenDigest !== undefined && secrets.same(presentedDigest, tokenDigest)) {
      credential = 'token';
    }
    if (credential === undefined) return refuse(401, failure, true, { taskId });
    if (!mailboxes.has(taskId)) return refuse(404, `task ${taskId} is not expected`, true, { taskId });
    const other = innerMismatch(event, taskId);
    if (other !== undefined) return refuse(409, `the ${event.kind} for task ${taskId} carries a message of task ${other}`, true, { taskId });

    // Bounds per task and sender: a flood fills only its own task's room, and only its sender's.
    const sender = senderOf(taskId, credential, verifiedJwt?.issuer);
    const digest = createHash('sha256').update(raw).digest('hex');
    if (mailboxes.isRepeat(taskId, digest, nowMs)) return answer(200, { status: 'duplicate' }, true);
    if (mailboxes.pendingFrom(taskId, sender) >= maxPendingPerTask) {
      return busy(`${maxPendingPerTask} pushes of this sender already pending for task ${taskId}`, taskId);
    }
    if (replayKey !== undefined) {
      const verdict = replays.check(replayKey.key, digest, sender, nowMs);
      if (verdict === 'same') return answer(200, { status: 'duplicate' }, true);
      if (verdict === 'different') {
        return refuse(replayKey.reuse, `${replayKey.key.split(':')[0]} id already used for another body`, true, { taskId });
      }
      if (verdict === 'full') {
        const wait = Math.max(1, Math.ceil((replays.nextExpiryMs - nowMs) / 1000));
        return busy(`this sender's replay ids are full (${replayCacheSize} live ids)`, taskId, wait);
      }
      replays.remember(replayKey.key, digest, sender, replayKey.expiresAtMs);
    }
    const result = mailboxes.offer(taskId, event, digest, sender, nowMs);
    return answer(result === 'queued' ? 202 : 200, { status: result === 'queued' ? 'accepted' : result }, true);
  }

  /**
   * A push for a task this replica does not follow: the replica that does is looked up in the relay, the
   * push is authenticated against that task (its token's SHA-256, or the receiver-wide JWT, HMAC or token
   * every replica shares), and handed over; 202 only once the relay stored it, 503 when it could not.
   */
  async function handOver(
    via: PushRelay,
    taskId: string,
    event: StreamEvent,
    raw: Uint8Array,
    parsed: unknown,
    presented: { presentedToken: string | undefined; presentedDigest: Buffer | undefined; verifiedJwt: VerifiedJwt | undefined; hmacVerdict: ReturnType<HmacCheck['verify']> | undefined },
  ): Promise<PushAnswer> {
    let target;
    try {
      target = await via.lookup(taskId);
    } catch (error) {
      return refuse(503, `the replicas' registry could not be read: ${error instanceof Error ? error.message : String(error)}`, true, { taskId, headers: { 'retry-after': String(retryAfterSec) } });
    }
    if (target === undefined) return refuse(404, `task ${taskId} is not expected`, true, { taskId });
    const { presentedToken, presentedDigest, verifiedJwt, hmacVerdict } = presented;
    const signed = (hmacVerdict !== undefined && typeof hmacVerdict !== 'string') || (verifiedJwt !== undefined && (verifiedJwt.taskId === undefined || verifiedJwt.taskId === taskId) && (verifiedJwt.bodySha256 === undefined || bodyHashMatches(verifiedJwt.bodySha256, raw, parsed)));
    const receiverToken = presentedDigest !== undefined && tokenDigest !== undefined && secrets.same(presentedDigest, tokenDigest);
    // As for a task of this replica: its own token, when it has one, is required (beside a signature or alone).
    const authentic = target.tokenSha256 !== undefined ? tokenMatches(presentedToken, target.tokenSha256) : signed || receiverToken;
    if (!authentic) return refuse(401, target.tokenSha256 !== undefined ? "the task's token is missing or does not match" : 'credentials do not match', true, { taskId });
    const other = innerMismatch(event, taskId);
    if (other !== undefined) return refuse(409, `the ${event.kind} for task ${taskId} carries a message of task ${other}`, true, { taskId });
    try {
      await via.handOver(target.inbox, taskId, new TextDecoder().decode(raw));
    } catch (error) {
      return refuse(503, `the push could not be handed to the replica following task ${taskId}: ${error instanceof Error ? error.message : String(error)}`, true, { taskId, headers: { 'retry-after': String(retryAfterSec) } });
    }
    handedOver++;
    return answer(202, { status: 'accepted' }, true);
  }

  /** A push another replica verified and handed to this one: delivered like one received here. */
  function deliverRelayed(taskId: string, body: string): void {
    relayedIn++;
    if (closed || !mailboxes.has(taskId)) return;
    let event: StreamEvent;
    try {
      const parsed: unknown = JSON.parse(body);
      event = decodeStreamEvent(parsed, typeof parsed === 'object' && parsed !== null && 'kind' in parsed ? 'v03' : 'v1');
    } catch {
      return; // verified and decoded by the replica that handed it over: only a corrupted entry lands here
    }
    mailboxes.offer(taskId, event, createHash('sha256').update(body).digest('hex'), 'relay', now());
  }

  const useRelay = (shared: PushRelay): void => {
    if (relay) return;
    relay = shared;
    shared.listen(deliverRelayed);
  };
  if (options.relay) useRelay(options.relay);

  const nodeHandler = (req: IncomingMessage, res: ServerResponse): void => {
    const push: IncomingPush = {
      method: req.method ?? '',
      header: (name) => {
        const value = req.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      },
      readBody: (limit, timeoutMs) => readNodeBody(req, limit, timeoutMs),
    };
    void receive(push).then(
      (result) => {
        // A body left unread would have to be drained before the connection could be reused.
        const headers = result.consumed ? result.headers : { ...result.headers, connection: 'close' };
        res.writeHead(result.status, headers).end(result.body);
      },
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json', connection: 'close' }).end('{"error":"internal error"}');
        onListenerError(error);
      },
    );
  };

  return {
    nodeHandler,
    async handle(request) {
      const result = await receive({
        method: request.method,
        header: (name) => request.headers.get(name) ?? undefined,
        readBody: (limit, timeoutMs) => readWebBody(request, limit, timeoutMs),
      });
      if (!result.consumed && request.body !== null && !request.bodyUsed) await request.body.cancel().catch(() => {});
      return new Response(result.body, { status: result.status, headers: result.headers });
    },
    expect(taskId, expectOptions = {}) {
      if (taskId === '') throw new TetherError('INVALID_ARGUMENT', 'PushReceiver.expect: taskId must not be empty');
      if (expectOptions.token === '') throw new TetherError('INVALID_ARGUMENT', 'PushReceiver.expect: token must not be empty');
      mailboxes.expect(taskId, expectOptions.token === undefined ? undefined : secrets.digest(expectOptions.token));
      relay?.register(taskId, expectOptions.token === undefined ? undefined : tokenSha256(expectOptions.token)).catch(onListenerError);
    },
    forget(taskId) {
      mailboxes.forget(taskId);
      relay?.unregister(taskId).catch(onListenerError);
    },
    useRelay,
    subscribe(taskId, listener) {
      return mailboxes.subscribe(taskId, listener);
    },
    stats() {
      return {
        tasks: mailboxes.size,
        heldNotices: mailboxes.heldNotices,
        pendingPushes: mailboxes.pendingPushes,
        replayIds: replays.size,
        rememberedBodies: mailboxes.rememberedBodies,
        unverifiedBytes: unverified.reserved,
        handedOver,
        relayedIn,
      };
    },
    close() {
      closed = true;
      mailboxes.clear();
      replays.clear();
      void relay?.close();
    },
  };
}
