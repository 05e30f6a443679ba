import { invalidParams } from './agent-error.js';

/**
 * Ways the fake agent can misbehave, as real agents do. Select them per task in the scenario command
 * (`stream chunks=8 misbehave=replayClose,skewFuture mbSeed=7`) or for every task of the agent with
 * `behaviour: { misbehave: [...] }`. A task's selection covers every stream, subscription, GetTask and
 * CancelTask answer about that task, and nothing else, so tasks with different misbehaviours can share
 * one agent. Every random choice is drawn from `mbSeed` and the task's event index (never `Math.random`):
 * the same command misbehaves the same way on every run.
 *
 * The values are one-line descriptions, for reports.
 */
export const MISBEHAVIOURS = Object.freeze({
  /**
   * Every SSE `data:` payload of the task's streams starts with an RFC 7464 record separator (0x1E)
   * before the JSON, as `@voltagent/a2a-server` writes them.
   */
  rs: 'RS (0x1E) before every SSE data payload',
  /**
   * Every subscription (v1 SubscribeToTask, v0.3 tasks/resubscribe, both bindings) answers one Task
   * snapshot of the current state and ends the body at once, while the task keeps running. GetTask
   * still answers truthfully.
   */
  replayClose: 'subscriptions answer one snapshot and end at once',
  /**
   * Every status update goes out two or three times (seeded) on the task's streams; an artifact-less
   * Task snapshot frame goes out twice about half of the time (seeded).
   */
  repeat: 'status updates (and some artifact-less snapshots) sent more than once',
  /** Status timestamps are one year in the future, the terminal one included, on the wire and in GetTask. */
  skewFuture: 'status timestamps +1 year',
  /** Status timestamps are one year in the past, the terminal one included, on the wire and in GetTask. */
  skewPast: 'status timestamps -1 year',
  /** Each status timestamp jumps by a seeded offset within ±2 years, so they are not in order. */
  skewRandom: 'status timestamps jump randomly both ways',
  /**
   * Every status of the task carries a status message, all with one and the same messageId (a status
   * without text gets its state name as text), as `@voltagent/a2a-server` does.
   */
  reuseMessageId: 'every status message reuses one messageId',
  /**
   * At seeded event indices (the first one within the first three events), the task's streams also
   * carry an artifact-update and a status-update of another task: its taskId is another task of the
   * agent or a made-up one, its contextId that task's, a made-up one, or (seeded) this task's own. The
   * first such status is a terminal `completed`; the foreign artifact's text (and status text) contains
   * `FOREIGN`. GetTask never shows foreign content.
   */
  foreign: "streams carry another task's status (completed) and artifact (FOREIGN)",
  /**
   * At event index `mbErrorAt` (default seeded 2–4) a stream of the task gets an `event: error` frame
   * with code `mbCode` (default -32603) — a JSON-RPC error envelope on JSON-RPC, the binding's error
   * body on HTTP+JSON — instead of that event, and the body ends. The task keeps running on the agent.
   */
  streamError: 'an event: error frame (mbCode) at a seeded event, then the body ends',
  /**
   * The `event: error` frames of the task's streams on v1.0 HTTP+JSON carry a `google.rpc.Status` without
   * details (no ErrorInfo, so no `reason`): only the HTTP code and status name say what it is (a
   * `NOT_FOUND` for -32001, a `FAILED_PRECONDITION` for -32004 …), as some servers write them. With
   * `streamError`.
   */
  noErrorInfo: 'v1.0 HTTP+JSON error frames without ErrorInfo (google.rpc.Status without details)',
  /**
   * Subscriptions are refused before any event, with `mbRefuse`: -32601 (method not found), -32004
   * (unsupported operation), HTTP 404, 405 or 501 with a body that is not an A2A error, -32602 (invalid
   * params) or -32603 (internal error). Default seeded (among the first five).
   */
  refuseSubscribe: 'subscriptions refused (mbRefuse: -32601, -32004, 404, 405, 501, -32602, -32603)',
  /**
   * A subscription to the task once it is finished is answered InvalidParams -32602 on v1.0 and
   * InternalError -32603 on v0.3 (both bindings; on v1.0 HTTP+JSON a 400 `INVALID_ARGUMENT` without
   * ErrorInfo), as the A2A project's reference Python server does, instead of -32004 (v1.0) or the
   * final Task (v0.3). A subscription while the task runs is served as usual.
   */
  refuseFinished: 'subscriptions to a finished task answered -32602 (v1.0) / -32603 (v0.3)',
  /**
   * While the task is not terminal, about half of the GetTask answers (seeded) show the task as it was
   * `mbStaleBack` events earlier (default seeded 1–3): an older status, shorter artifacts. Once the task
   * is terminal, GetTask is exact.
   */
  stale: 'GetTask sometimes shows the task a few events earlier',
  /**
   * After `mbLoseAfter` events (default seeded 2–5) the agent forgets the task: GetTask, subscribe,
   * cancel, follow-up messages and ListTasks act as if it never existed (-32001 TaskNotFound), and a
   * stream of it that is open ends cleanly right after that event.
   */
  lose: 'after mbLoseAfter events the task is forgotten (-32001)',
  /**
   * The terminal status is never streamed: every stream ends cleanly right before it would send it (a
   * stream would also never show a terminal Task snapshot). Only GetTask and subscription snapshots
   * show the final state.
   */
  terminalViaGet: 'streams end cleanly just before the terminal status',
  /**
   * At event index `mbResetAt` (default seeded 2–4) the connection of every stream of the task that would
   * carry it is reset (TCP RST, no clean end) instead; the task runs on. Streams opened after that event
   * are served as usual.
   */
  resetStream: 'the connection of the task\'s streams reset at event mbResetAt',
  /**
   * CancelTask of the task is carried out (the scenario is cancelled, as usual), then the connection is
   * reset before the answer goes out: the client never learns what it did.
   */
  cutCancel: 'CancelTask carried out, then the connection reset before its answer',
  /**
   * The stream of a message answering the task's pause (`input`, `auth`: a follow-up naming the task)
   * opens with a Task snapshot of the task as it stood when the answer arrived — still at its pause, with
   * its question, the answer last in its history — as the official v1.0 server (`@a2a-js/sdk` 1.3.0)
   * does; what the answer caused follows. On both versions and bindings.
   */
  stalePause: "an answer's stream opens with the task still at its pause",
  /** After the terminal status, the stream sends one more status (`working`) before it ends. */
  afterTerminal: 'one more status (working) after the terminal one',
  /**
   * With `generations`: the event `mbDropAt` (default seeded 2–4) never goes out on the task's streams
   * (GetTask shows it): the next event's generation is two past the last one a client saw.
   */
  dropEvent: 'streams skip event mbDropAt (a gap in the generations)',
  /**
   * With `generations`: right after event `mbReplayAt` (default 4), the task's streams send event
   * `mbReplayOf` (default 2) again, with its generation but other content — its text becomes `REPLAYED`
   * (a status gets a new message id) — so that only its generation shows it is old.
   */
  replayOld: 'after event mbReplayAt, event mbReplayOf again (its generation, other text)',
  /** With `generations`: from event `mbZeroAt` (default 3) on, the task's streams say generation 0. */
  zeroGeneration: 'from event mbZeroAt on, stream events say generation 0',
});

/** The name of a misbehaviour; see {@link MISBEHAVIOURS}. */
export type Misbehaviour = keyof typeof MISBEHAVIOURS;

/** Every misbehaviour name, in catalogue order. */
export const MISBEHAVIOUR_NAMES: readonly Misbehaviour[] = Object.freeze(Object.keys(MISBEHAVIOURS) as Misbehaviour[]);

/** What `refuseSubscribe` answers with: an A2A error code, or an HTTP status with a non-A2A body. */
export type SubscribeRefusal = -32601 | -32004 | 404 | 405 | 501 | -32602 | -32603;

/** Every {@link SubscribeRefusal}. */
export const SUBSCRIBE_REFUSALS: readonly SubscribeRefusal[] = Object.freeze([-32601, -32004, 404, 405, 501, -32602, -32603] as const);

/**
 * Parameters of the misbehaviours. In a scenario command they are `mbSeed=`, `mbCode=`, `mbErrorAt=`,
 * `mbRefuse=`, `mbLoseAfter=`, `mbStaleBack=`, `mbResetAt=`. Left out: drawn from the seed (or the documented default).
 */
export interface MisbehaviourParams {
  /** Seed of every random choice. Default 0. */
  seed?: number | undefined;
  /** `streamError`: the error code. Default -32603. */
  code?: number | undefined;
  /** `streamError`: the event index (1 = the creation) replaced by the error frame. */
  errorAt?: number | undefined;
  /** `refuseSubscribe`: how subscriptions are refused. */
  refuse?: SubscribeRefusal | undefined;
  /** `lose`: how many events the task emits before the agent forgets it. */
  loseAfter?: number | undefined;
  /** `stale`: how many events back a stale GetTask answer lies. */
  staleBack?: number | undefined;
  /** `dropEvent`: the event left out of the streams. */
  dropAt?: number | undefined;
  /** `replayOld`: the event after which an old one is sent again. */
  replayAt?: number | undefined;
  /** `replayOld`: the event sent again. */
  replayOf?: number | undefined;
  /** `zeroGeneration`: the first event that says generation 0. */
  zeroAt?: number | undefined;
  /** `resetStream`: the event index at which the task's streams are reset. */
  resetAt?: number | undefined;
}

/** The misbehaviours a task selected in its scenario command, with their parameters. */
export interface MisbehaviourSelection {
  names: ReadonlySet<Misbehaviour>;
  params: MisbehaviourParams;
}

const PARAM_KEYS: ReadonlyArray<readonly [string, keyof MisbehaviourParams]> = [
  ['mbSeed', 'seed'],
  ['mbCode', 'code'],
  ['mbErrorAt', 'errorAt'],
  ['mbRefuse', 'refuse'],
  ['mbLoseAfter', 'loseAfter'],
  ['mbStaleBack', 'staleBack'],
  ['mbDropAt', 'dropAt'],
  ['mbReplayAt', 'replayAt'],
  ['mbReplayOf', 'replayOf'],
  ['mbZeroAt', 'zeroAt'],
  ['mbResetAt', 'resetAt'],
];

function isMisbehaviour(name: string): name is Misbehaviour {
  return Object.hasOwn(MISBEHAVIOURS, name);
}

function integer(key: string, raw: string): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(value)) throw invalidParams(`${key}=${raw} must be an integer`);
  return value;
}

/**
 * Reads `misbehave=a,b` and the `mb*` parameters of a scenario command. Throws InvalidParams on an
 * unknown name or a bad parameter, so a typo fails the request that made it.
 */
export function parseMisbehaviourSelection(params: Readonly<Record<string, string>>): MisbehaviourSelection {
  const names = new Set<Misbehaviour>();
  const list = params['misbehave'];
  if (list !== undefined) {
    for (const name of list.split(',').map((n) => n.trim()).filter((n) => n !== '')) {
      if (!isMisbehaviour(name)) {
        throw invalidParams(`Unknown misbehaviour "${name}" (known: ${MISBEHAVIOUR_NAMES.join(', ')})`);
      }
      names.add(name);
    }
  }
  const selected: MisbehaviourParams = {};
  for (const [key, field] of PARAM_KEYS) {
    const raw = params[key];
    if (raw === undefined) continue;
    const value = integer(key, raw);
    if (field === 'refuse') {
      if (!(SUBSCRIBE_REFUSALS as readonly number[]).includes(value)) {
        throw invalidParams(`mbRefuse=${raw} must be one of ${SUBSCRIBE_REFUSALS.join(', ')}`);
      }
      selected.refuse = value as SubscribeRefusal;
    } else {
      if (field !== 'seed' && field !== 'code' && value < 1) {
        throw invalidParams(`${key}=${raw} must be at least 1`);
      }
      selected[field] = value;
    }
  }
  return { names, params: selected };
}

/** Checks an agent-wide list (from `TestAgentBehaviour.misbehave`); throws a TypeError on an unknown name. */
export function checkMisbehaviourNames(names: readonly string[]): void {
  for (const name of names) {
    if (!isMisbehaviour(name)) throw new TypeError(`Unknown misbehaviour "${name}" (known: ${MISBEHAVIOUR_NAMES.join(', ')})`);
  }
}
