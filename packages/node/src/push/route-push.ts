import { refusal, type Refusal, type Verdict } from './push-answer.js';
import type { PushRegistry, Registration } from './push-registry.js';
import type { PushRelay, RelayedPush, TokenEntry } from './push-relay.js';

/** Where the presented token's registration is: on this replica, or on another one (through the relay). */
export type TokenFound = { readonly here: Registration } | { readonly there: { readonly inbox: string; readonly taskId: string | undefined } };

/** What routing needs of the receiver. */
export interface Router {
  readonly registry: PushRegistry;
  readonly relay: PushRelay | undefined;
  readonly retryAfterSec: number;
  /** Decides and admits a push for a registration of this replica (what another replica's hand-over gets too). */
  admitHere(push: RelayedPush): Verdict;
  /** Another replica answered a push handed to it. */
  handedOver(): void;
}

const why = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Finds the registration of a token (its SHA-256) before the body is read: here, on another replica, or
 * forgotten lately (`gone`). A relay out of reach: 503, since the token may be another replica's.
 */
export async function findToken(router: Router, tokenSha256: string, nowMs: number): Promise<TokenFound | { readonly gone: TokenEntry } | Refusal | undefined> {
  const here = router.registry.byToken(tokenSha256, undefined);
  if (here !== undefined) return { here };
  const goneHere = router.registry.gone(tokenSha256, nowMs);
  if (goneHere !== undefined) return { gone: { gone: true, taskId: goneHere.taskId } };
  if (router.relay === undefined) return undefined;
  let entry: TokenEntry | undefined;
  try {
    entry = await router.relay.findToken(tokenSha256);
  } catch (error) {
    return refusal(503, `the replicas' registry could not be read: ${why(error)}`, { retryAfterSec: router.retryAfterSec });
  }
  if (entry === undefined) return undefined;
  if ('gone' in entry) return { gone: entry };
  // An entry naming this replica that it does not hold is one it forgot (its removal is on its way).
  return entry.inbox === router.relay.inbox ? { gone: { gone: true, taskId: entry.taskId } } : { there: entry };
}

/**
 * Hands an authenticated push to whoever holds what its credential opens, and answers what they decided:
 * the token's registration (here, or the replica holding it); or every registration without a token of the
 * task the body names — here, and on the replicas the relay names — accepted when any of them accepted it.
 * 404 when nothing is registered; 503 when the replica holding it did not answer (dead, or out of reach).
 */
export async function routePush(router: Router, push: RelayedPush, token?: TokenFound): Promise<Verdict> {
  if (push.tokenSha256 !== undefined && token !== undefined) {
    return 'here' in token ? router.admitHere(push) : handOver(router, token.there.inbox, push);
  }
  const local = router.registry.tokenless(push.taskId);
  let inboxes: string[] = [];
  if (router.relay !== undefined) {
    try {
      inboxes = (await router.relay.findTask(push.taskId)).filter((inbox) => inbox !== router.relay?.inbox);
    } catch (error) {
      if (local === undefined) return refusal(503, `the replicas' registry could not be read: ${why(error)}`, { taskId: push.taskId, retryAfterSec: router.retryAfterSec });
    }
  }
  const verdicts = await Promise.all([...(local === undefined ? [] : [router.admitHere(push)]), ...inboxes.map((inbox) => handOver(router, inbox, push))]);
  return verdicts.find((verdict) => verdict.status === 202) ?? verdicts.find((verdict) => verdict.kind === 'accepted') ?? verdicts[0] ?? refusal(404, `task ${push.taskId} is not expected`, { taskId: push.taskId });
}

async function handOver(router: Router, inbox: string, push: RelayedPush): Promise<Verdict> {
  const { relay, retryAfterSec } = router;
  const taskId = push.taskId;
  let verdict: Verdict | undefined;
  try {
    verdict = relay === undefined ? undefined : await relay.handOver(inbox, push);
  } catch (error) {
    return refusal(503, `the push could not be handed to the replica following task ${taskId}: ${why(error)}`, { taskId, retryAfterSec });
  }
  if (verdict === undefined) return refusal(503, `no live replica answered for task ${taskId}`, { taskId, retryAfterSec });
  router.handedOver();
  return verdict;
}
