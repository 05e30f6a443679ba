import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TetherError } from '@a2a-tether/core';
import { admitPush, type AdmitState } from './admit-push.js';
import { checkBeforeRead } from './check-before-read.js';
import { SecretMatcher } from './constant-time.js';
import { decodePush, foreignMessage } from './decode-push.js';
import { HmacCheck } from './hmac-check.js';
import { bodyHashMatches, JwtCheck } from './jwt-check.js';
import { answerOf, isRefusal, refusal, type PushAnswer, type Verdict } from './push-answer.js';
import { decideCredential } from './push-credential.js';
import { PushRegistry } from './push-registry.js';
import { tokenSha256, type PushRelay, type RelayedPush } from './push-relay.js';
import { senderOf } from './push-sender.js';
import { readNodeBody, readWebBody } from './read-body.js';
import { readWithinBudget, type BodyReader } from './read-within-budget.js';
import type { PushReceiver, PushReceiverOptions } from './receiver-types.js';
import { receiverSettings } from './receiver-settings.js';
import { RegistrationBook } from './registration-book.js';
import { ReplayCache } from './replay-cache.js';
import { findToken, routePush, type Router } from './route-push.js';
import { screenHeaders, type PushHead } from './screen-headers.js';
import { UnverifiedBudget } from './unverified-budget.js';

export type { ExpectOptions, PushReceiver, PushReceiverOptions, PushReceiverStats, PushRegistration, RegisterOptions } from './receiver-types.js';

/** A request as the receiver sees it, whatever the server. */
interface IncomingPush extends PushHead {
  readBody: BodyReader;
}

// Bodies are carried between replicas as text: they decoded as UTF-8, so this gives back the very bytes (a BOM too).
const AS_READ = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Creates a receiver for A2A push notifications (webhooks). It authenticates every call (a token
 * compared in constant time, a JWT verified against a JWKS, or a Standard Webhooks HMAC signature),
 * bounds what it reads and holds, accepts only registered tasks (`expect()`, `register()`), decodes
 * v1.0 (StreamResponse) and v0.3 (whole Task) bodies with the core decoders, answers at once (202,
 * before any listener runs), and merges pushes per registration for slow subscribers. Its bounds are
 * per registration and per sender, so a flood of one task never gets another task's push refused.
 * Answers: 202 accepted (or held until the task is named); 200 a repeat (the same body within
 * `windowSec`, the same `jti` or `webhook-id`) or an older state, accepted but not delivered; 400 not
 * JSON or not an A2A event; 401 unauthenticated; 404 task not registered; 405 not POST; 408 the body
 * did not arrive within `bodyTimeoutMs`; 409 the event names another task inside, or a `webhook-id`
 * reused for another body; 410 the token's registration was forgotten (within `windowSec`); 413 body
 * too large; 415 not JSON; 429 this sender's pushes pending for this task, or its replay ids, at their
 * bound (with `Retry-After`); 503 closed, JWKS or relay unreachable, or a budget full.
 *
 * The stages, each in its own file: screen-headers → route-push (`findToken`) → check-before-read →
 * read-within-budget → decode-push → push-credential → route-push → admit-push (where the registration is).
 *
 * @throws TetherError `INVALID_ARGUMENT` when no authentication is configured or an option is invalid.
 */
export function createPushReceiver(options: PushReceiverOptions): PushReceiver {
  const settings = receiverSettings(options);
  const { windowSec, retryAfterSec } = settings;
  const now = options.now ?? Date.now;
  const onListenerError =
    options.onListenerError ?? ((error: unknown) => process.emitWarning(`push listener failed: ${error instanceof Error ? error.message : String(error)}`));
  const secrets = new SecretMatcher();
  const receiverToken = options.token === undefined ? undefined : secrets.digest(options.token);
  const jwtCheck = options.jwt === undefined ? undefined : new JwtCheck(options.jwt, settings.algorithms, windowSec);
  const hmacCheck = options.hmac === undefined ? undefined : new HmacCheck(options.hmac, windowSec);
  const registry = new PushRegistry({ ...settings, bodiesPerTask: settings.maxRememberedBodies, windowMs: windowSec * 1000, onListenerError });
  const admission: AdmitState = { ...settings, registry, replays: new ReplayCache(settings.replayCacheSize) };
  const unverified = new UnverifiedBudget(settings.maxUnverifiedBytes, settings.maxBodyBytes);
  const book = new RegistrationBook(registry, now, onListenerError);
  let closed = false;
  const counts = { handedOver: 0, relayedIn: 0 };

  /** Decides and admits a push for one of this replica's registrations, received here or handed over by another replica. */
  function admitHere(push: RelayedPush): Verdict {
    const nowMs = now();
    const { taskId, tokenSha256: token } = push;
    const registration = token === undefined ? registry.tokenless(taskId) : registry.byToken(token, taskId);
    if (registration === undefined) return token !== undefined && registry.gone(token, nowMs) ? refusal(410, 'the token’s task is no longer followed', { taskId }) : refusal(404, `task ${taskId} is not expected`, { taskId });
    const decision = decideCredential({ ...push, tokenRegistration: token === undefined ? undefined : { taskId: registration.taskId }, windowSec });
    if (decision.opens === undefined) return refusal(401, decision.reason, { taskId });
    const raw = Buffer.from(push.body, 'utf8');
    const decoded = decodePush(raw);
    if (isRefusal(decoded)) return decoded; // decoded where it landed: only a corrupted hand-over lands here
    const sender = senderOf(decision.credential, { tokenSha256: registration.tokenSha256, issuer: push.jwt?.claims.issuer });
    const bodyDigest = createHash('sha256').update(raw).digest('hex');
    return admitPush(admission, registration, { taskId, event: decoded.event, bodyDigest, bytes: raw.length, sender, replay: decision.replay }, nowMs);
  }
  const router: Router = {
    registry,
    get relay() {
      return book.relay;
    },
    retryAfterSec,
    admitHere,
    handedOver: () => void counts.handedOver++,
  };

  const reply = (verdict: Verdict, consumed: boolean): PushAnswer => {
    if (verdict.kind === 'refused') {
      const { status, reason, taskId, retryAfterSec: after } = verdict;
      const retry = { isRetryable: status === 429 || status === 503, retryAfterMs: after === undefined ? undefined : after * 1000 };
      options.onRefused?.(new TetherError('PUSH_REFUSED', `push refused: ${reason}`, { operation: 'PushNotification', status, taskId, ...retry }));
    }
    return answerOf(verdict, consumed);
  };

  async function receive(push: IncomingPush): Promise<PushAnswer> {
    if (closed) return reply(refusal(503, 'the receiver is closed'), false);
    const presented = screenHeaders(push, { maxBodyBytes: settings.maxBodyBytes, jwt: jwtCheck !== undefined, hmac: hmacCheck !== undefined });
    if (isRefusal(presented)) return reply(presented, false);
    const isReceiverToken = presented.token !== undefined && receiverToken !== undefined && secrets.matches(presented.token, receiverToken);
    // A registration's token is found by its SHA-256 before anything is read, here or on another replica.
    const tokenSha = presented.token === undefined || isReceiverToken ? undefined : tokenSha256(presented.token);
    const token = tokenSha === undefined ? undefined : await findToken(router, tokenSha, now());
    if (isRefusal(token)) return reply(token, false);
    if (token !== undefined && 'gone' in token) return reply(refusal(410, 'the token’s task is no longer followed', { taskId: token.gone.taskId }), false);
    const checked = await checkBeforeRead(presented, { tokenOpens: token !== undefined || isReceiverToken, jwt: jwtCheck, hmac: hmacCheck, retryAfterSec, nowMs: now() });
    if (isRefusal(checked)) return reply(checked, false);
    const raw = await readWithinBudget(push.readBody, checked.verifiable, presented.declared, unverified, settings);
    if (isRefusal(raw)) return reply(raw, false);
    // A signature is over the raw bytes: checked before the parse, like the JWT and the token.
    const hmac = presented.hmac !== undefined && hmacCheck !== undefined ? hmacCheck.verify(presented.hmac, raw, now()) : undefined;
    if (!checked.verifiable && (hmac === undefined || typeof hmac === 'string')) return reply(refusal(401, typeof hmac === 'string' ? hmac : 'credentials do not match'), true);
    const decoded = decodePush(raw);
    if (isRefusal(decoded)) return reply(decoded, true);
    const { taskId } = decoded;
    const jwt = checked.jwt && { claims: checked.jwt, bodyMatches: checked.jwt.bodySha256 === undefined || bodyHashMatches(checked.jwt.bodySha256, raw, decoded.parsed) };
    const relayed: RelayedPush = { tokenSha256: token === undefined ? undefined : tokenSha, taskId, receiverToken: isReceiverToken, jwt, hmac, body: AS_READ.decode(raw) };
    const own = token === undefined ? undefined : 'here' in token ? (registry.byToken(tokenSha as string, taskId) ?? token.here) : token.there;
    const decision = decideCredential({ ...relayed, tokenRegistration: own && { taskId: own.taskId }, windowSec });
    if (decision.opens === undefined) return reply(refusal(401, decision.reason, { taskId }), true);
    const foreign = foreignMessage(decoded);
    if (foreign !== undefined) return reply(foreign, true);
    return reply(await routePush(router, decision.opens === 'registration' ? relayed : { ...relayed, tokenSha256: undefined }, token), true);
  }

  const useRelay = (shared: PushRelay): void => {
    if (book.relay) return;
    book.share(shared);
    shared.serve((push) => {
      counts.relayedIn++;
      return closed ? refusal(503, 'the receiver is closed', { retryAfterSec }) : admitHere(push);
    });
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
    expect: (taskId, expectOptions = {}) => book.expect(taskId, expectOptions.token),
    register: (registerOptions) => book.register(registerOptions.token, registerOptions.taskId),
    forget: (taskId) => book.forget(taskId),
    subscribe: (taskId, listener) => book.subscribe(taskId, listener),
    useRelay,
    stats() {
      const { size: tasks, heldNotices, pendingPushes, rememberedBodies, earlyPushes, earlyBytes } = registry;
      return { tasks, heldNotices, pendingPushes, replayIds: admission.replays.size, rememberedBodies, unverifiedBytes: unverified.reserved, ...counts, earlyPushes, earlyBytes };
    },
    close() {
      closed = true;
      book.close();
      admission.replays.clear();
    },
  };
}
