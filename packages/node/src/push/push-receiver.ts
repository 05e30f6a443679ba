import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TetherError } from '@a2a-tether/core';
import type { StreamEvent } from '@a2a-tether/core';
import { decodeStreamEvent } from '@a2a-tether/core/protocol';
import { admitPush, type AdmitState } from './admit-push.js';
import { checkBeforeRead } from './check-before-read.js';
import { SecretMatcher } from './constant-time.js';
import { decodePush, foreignMessage } from './decode-push.js';
import { HmacCheck } from './hmac-check.js';
import { bodyHashMatches, JwtCheck } from './jwt-check.js';
import { ACCEPTED, answerOf, isRefusal, refusal, type PushAnswer, type Verdict } from './push-answer.js';
import { decideCredential } from './push-credential.js';
import { senderOf } from './push-sender.js';
import { readNodeBody, readWebBody } from './read-body.js';
import { readWithinBudget, type BodyReader } from './read-within-budget.js';
import type { PushReceiver, PushReceiverOptions } from './receiver-types.js';
import { receiverSettings } from './receiver-settings.js';
import { ReplayCache } from './replay-cache.js';
import { tokenMatches, tokenSha256, type PushRelay } from './push-relay.js';
import { screenHeaders, type PushHead } from './screen-headers.js';
import { TaskMailboxes } from './task-mailboxes.js';
import { UnverifiedBudget } from './unverified-budget.js';

export type { ExpectOptions, PushReceiver, PushReceiverOptions, PushReceiverStats } from './receiver-types.js';

/** A request as the receiver sees it, whatever the server. */
interface IncomingPush extends PushHead {
  readBody: BodyReader;
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
 * The stages, each in its own file: screen-headers → check-before-read → read-within-budget →
 * decode-push → push-credential (which credential opens the push) → admit-push.
 *
 * @throws TetherError `INVALID_ARGUMENT` when no authentication is configured or an option is invalid.
 */
export function createPushReceiver(options: PushReceiverOptions): PushReceiver {
  const settings = receiverSettings(options);
  const { windowSec, retryAfterSec } = settings;
  const now = options.now ?? Date.now;
  const onListenerError =
    options.onListenerError ??
    ((error: unknown) => process.emitWarning(`push listener failed: ${error instanceof Error ? error.message : String(error)}`));
  const secrets = new SecretMatcher();
  const receiverToken = options.token === undefined ? undefined : secrets.digest(options.token);
  const jwtCheck = options.jwt === undefined ? undefined : new JwtCheck(options.jwt, settings.algorithms, windowSec);
  const hmacCheck = options.hmac === undefined ? undefined : new HmacCheck(options.hmac, windowSec);
  const mailboxes = new TaskMailboxes(settings.maxRememberedBodies, windowSec * 1000, onListenerError);
  const admission: AdmitState = { ...settings, mailboxes, replays: new ReplayCache(settings.replayCacheSize) };
  const unverified = new UnverifiedBudget(settings.maxUnverifiedBytes, settings.maxBodyBytes);
  let closed = false;
  let relay: PushRelay | undefined;
  let handedOver = 0;
  let relayedIn = 0;

  const reply = (verdict: Verdict, consumed: boolean): PushAnswer => {
    if (verdict.kind === 'refused') {
      const { status, reason, taskId, retryAfterSec: after } = verdict;
      const retry = { isRetryable: status === 429 || status === 503, retryAfterMs: after === undefined ? undefined : after * 1000 };
      options.onRefused?.(new TetherError('PUSH_REFUSED', `push refused: ${reason}`, { operation: 'PushNotification', status, taskId, ...retry }));
    }
    return answerOf(verdict, consumed);
  };
  const isReceiverToken = (token: string | undefined): boolean => token !== undefined && receiverToken !== undefined && secrets.matches(token, receiverToken);

  async function receive(push: IncomingPush): Promise<PushAnswer> {
    if (closed) return reply(refusal(503, 'the receiver is closed'), false);
    const presented = screenHeaders(push, { maxBodyBytes: settings.maxBodyBytes, jwt: jwtCheck !== undefined, hmac: hmacCheck !== undefined });
    if (isRefusal(presented)) return reply(presented, false);
    const tokenOpens = (token: string): boolean => isReceiverToken(token) || mailboxes.holdsToken(secrets.digest(token));
    const checked = await checkBeforeRead(presented, { tokenOpens, relay: relay !== undefined, jwt: jwtCheck, hmac: hmacCheck, retryAfterSec, nowMs: now() });
    if (isRefusal(checked)) return reply(checked, false);
    const raw = await readWithinBudget(push.readBody, checked.verifiable, presented.declared, unverified, settings);
    if (isRefusal(raw)) return reply(raw, false);
    // A signature is over the raw bytes: checked before the parse, like the JWT and the token.
    const hmac = presented.hmac !== undefined && hmacCheck !== undefined ? hmacCheck.verify(presented.hmac, raw, now()) : undefined;
    if (!checked.verifiable && !checked.relayable && (hmac === undefined || typeof hmac === 'string')) {
      return reply(refusal(401, typeof hmac === 'string' ? hmac : 'credentials do not match'), true);
    }
    const decoded = decodePush(raw);
    if (isRefusal(decoded)) return reply(decoded, true);
    const { taskId } = decoded;
    const jwt = checked.jwt === undefined ? undefined : { claims: checked.jwt, bodyMatches: checked.jwt.bodySha256 === undefined || bodyHashMatches(checked.jwt.bodySha256, raw, decoded.parsed) };
    const facts = { taskId, receiverToken: isReceiverToken(presented.token), jwt, hmac, windowSec };

    if (relay !== undefined && !mailboxes.has(taskId)) {
      let target;
      try {
        target = await relay.lookup(taskId);
      } catch (error) {
        return reply(refusal(503, `the replicas' registry could not be read: ${error instanceof Error ? error.message : String(error)}`, { taskId, retryAfterSec }), true);
      }
      if (target === undefined) return reply(refusal(404, `task ${taskId} is not expected`, { taskId }), true);
      const taskToken = target.tokenSha256 === undefined ? 'none' : tokenMatches(presented.token, target.tokenSha256) ? 'matches' : 'differs';
      const decision = decideCredential({ ...facts, taskToken });
      if (!decision.opens) return reply(refusal(401, decision.reason, { taskId }), true);
      const foreign = foreignMessage(decoded);
      if (foreign !== undefined) return reply(foreign, true);
      try {
        await relay.handOver(target.inbox, taskId, new TextDecoder().decode(raw));
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        return reply(refusal(503, `the push could not be handed to the replica following task ${taskId}: ${why}`, { taskId, retryAfterSec }), true);
      }
      handedOver++;
      return reply(ACCEPTED, true);
    }

    // Everything from here on is synchronous, so two copies of one push racing each other are told apart.
    const nowMs = now();
    const own = mailboxes.tokenDigestOf(taskId);
    const presentedDigest = presented.token === undefined ? undefined : secrets.digest(presented.token);
    const taskToken = own === undefined ? 'none' : presentedDigest !== undefined && secrets.same(presentedDigest, own) ? 'matches' : 'differs';
    const decision = decideCredential({ ...facts, taskToken });
    if (!decision.opens) return reply(refusal(401, decision.reason, { taskId }), true);
    if (!mailboxes.has(taskId)) return reply(refusal(404, `task ${taskId} is not expected`, { taskId }), true);
    const foreign = foreignMessage(decoded);
    if (foreign !== undefined) return reply(foreign, true);
    const sender = senderOf(taskId, decision.credential, checked.jwt?.issuer);
    const bodyDigest = createHash('sha256').update(raw).digest('hex');
    return reply(admitPush(admission, { taskId, event: decoded.event, bodyDigest, sender, replay: decision.replay }, nowMs), true);
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
    const header = (name: string): string | undefined => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    void receive({ method: req.method ?? '', header, readBody: (limit, timeoutMs) => readNodeBody(req, limit, timeoutMs) }).then(
      // A body left unread would have to be drained before the connection could be reused.
      (result) => res.writeHead(result.status, result.consumed ? result.headers : { ...result.headers, connection: 'close' }).end(result.body),
      (error: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json', connection: 'close' }).end('{"error":"internal error"}');
        onListenerError(error);
      },
    );
  };

  return {
    nodeHandler,
    async handle(request) {
      const header = (name: string): string | undefined => request.headers.get(name) ?? undefined;
      const result = await receive({ method: request.method, header, readBody: (limit, timeoutMs) => readWebBody(request, limit, timeoutMs) });
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
    subscribe: (taskId, listener) => mailboxes.subscribe(taskId, listener),
    stats() {
      const { size: tasks, heldNotices, pendingPushes, rememberedBodies } = mailboxes;
      return { tasks, heldNotices, pendingPushes, replayIds: admission.replays.size, rememberedBodies, unverifiedBytes: unverified.reserved, handedOver, relayedIn };
    },
    close() {
      closed = true;
      mailboxes.clear();
      admission.replays.clear();
      void relay?.close();
    },
  };
}
