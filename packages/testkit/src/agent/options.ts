import { randomUUID } from 'node:crypto';
import type { TestAgentAuth } from './auth.js';
import { resolveCors } from './cors.js';
import type { CorsMode, TestAgentCors } from './cors.js';
import { checkMisbehaviourNames } from './misbehaviour.js';
import type { Misbehaviour, MisbehaviourParams } from './misbehaviour.js';
import type { ScenarioFn } from './scenario.js';

/** A2A protocol versions the fake agent speaks. */
export type TestAgentVersion = '1.0' | '0.3';

/** HTTP bindings the fake agent serves. */
export type TestAgentBinding = 'JSONRPC' | 'HTTP+JSON';

/** Switches for server behaviours that vary between real agents. All can change live (`setBehaviour`). */
export interface TestAgentBehaviour {
  /**
   * Resubscribe starts with a Task snapshot. Unset: true for v1 (the spec requires it), false for v0.3
   * (what real v0.3 servers do).
   */
  subscribeSnapshot?: boolean | undefined;
  /** On resubscribe, re-send every event the task emitted so far, in order, before live ones. Default false. */
  replayOnResubscribe?: boolean | undefined;
  /** Streams end after input-required/auth-required. Default true; false keeps them open. */
  closeAtInterrupted?: boolean | undefined;
  /**
   * Every SSE event carries `id: <taskId>:<seq>`; a resubscribe with `Last-Event-ID` gets only the events
   * after that seq (no snapshot). Default false (the A2A spec defines no ids).
   */
  sseIds?: boolean | undefined;
  /**
   * v1 requests must carry `A2A-Version: 1.0` (else -32009, as the official server does). Default true.
   * When false, a v1 method name without the header is served as v1.
   */
  requireVersionHeader?: boolean | undefined;
  /**
   * Misbehaviours of every task, on top of those a task selects in its own text (`misbehave=…`); see
   * `MISBEHAVIOURS`. Default none.
   */
  misbehave?: readonly Misbehaviour[] | undefined;
  /** Parameters of the misbehaviours (a task's own `mb*` parameters win over these). */
  misbehaveParams?: MisbehaviourParams | undefined;
  /**
   * The next N sends that create a task (a message without `taskId`; SendMessage or
   * SendStreamingMessage, either binding and version) lose their answer: the agent takes the message
   * and runs it as usual, then resets the connection before answering anything, so the client never
   * learns what happened. Counts down per such send (set it again with `setBehaviour`). Default 0.
   */
  loseAnswers?: number | undefined;
  /**
   * A2A v1.1 draft, the task generation (spec §3.2.7), on the v1.0 dialect: every task and event carries
   * `generation` (1 at creation, +1 per event: an event's is its sequence number), GetTask with
   * `currentGeneration` holds until the task's generation is past it (at most `generationHoldMs`), and a
   * message with `configuration.ifGenerationMatch` to a task at another generation is refused with
   * -32010 (HTTP+JSON: 409, `ErrorInfo` reason `TASK_GENERATION_MISMATCH` with `taskId`,
   * `expectedGeneration` and `currentGeneration`). The misbehaviours `dropEvent`, `replayOld` and
   * `zeroGeneration` bend it. Default false: a v1.0 agent, which sends no generation and ignores both.
   */
  generations?: boolean | undefined;
  /** How long GetTask with `currentGeneration` holds at most (ms). Default 2,000. */
  generationHoldMs?: number | undefined;
}

/** Options of {@link startTestAgent}. */
export interface TestAgentOptions {
  /** Protocol versions served. Default `['1.0', '0.3']`. */
  versions?: TestAgentVersion[] | undefined;
  /** Bindings served. Default `['JSONRPC', 'HTTP+JSON']`. */
  bindings?: TestAgentBinding[] | undefined;
  /** Card format. Default '1.0' when versions include '1.0', else '0.3'. */
  cardShape?: TestAgentVersion | undefined;
  capabilities?:
    | {
        /** Default true; false → stream/subscribe answer -32004 and the card says so. */
        streaming?: boolean | undefined;
        /** Default true; false → push config operations answer -32003. */
        pushNotifications?: boolean | undefined;
        /** Default false; true → the extended card operation answers the card plus an extra skill. */
        extendedAgentCard?: boolean | undefined;
      }
    | undefined;
  /** Well-known file name. 'agent.json' serves only the legacy path. Default 'agent-card.json'. */
  cardPath?: 'agent-card.json' | 'agent.json' | undefined;
  /** `Cache-Control: max-age` of the card. Default 60. */
  cardMaxAgeSeconds?: number | undefined;
  /**
   * Serve another public card: given the card the agent builds (its URLs point at this agent), return
   * the JSON object (or a promise of it) to serve instead — e.g. that card signed, or tampered with.
   * Called on every card request; the extended card is not affected.
   */
  cardOverride?: ((card: Record<string, unknown>) => unknown) | undefined;
  /** Prefix for everything (card and endpoints), e.g. '/agents/x'. Default ''. */
  basePath?: string | undefined;
  /** Require credentials on every A2A endpoint (not on the public card). */
  auth?: TestAgentAuth | undefined;
  /** v1 tenant: advertised on v1 interfaces, required in JSON-RPC params and as the REST path prefix. */
  tenant?: string | undefined;
  /**
   * CORS for pages on other origins. `true` (default): permissive — any origin, the request headers a
   * preflight asks for, every response header exposed. `'strict'`: only what Tether's browser client
   * needs ({@link STRICT_CORS} plus the header of the configured `auth`); a preflight asking for more
   * is refused. An explicit {@link TestAgentCors} policy: exactly its lists. `false`: no CORS headers.
   */
  cors?: boolean | 'strict' | TestAgentCors | undefined;
  behaviour?: TestAgentBehaviour | undefined;
  /** Extra scenarios (a name here overrides a built-in). */
  scenarios?: Record<string, ScenarioFn> | undefined;
  /** Port to listen on. Default 0 (any free port). */
  port?: number | undefined;
  /** How long CancelTask waits for the scenario to reach a final state before answering. Default 100 ms. */
  cancelWaitMs?: number | undefined;
  /**
   * How the agent names each task it creates. Default a random UUID. `() => '1'` makes a naive agent
   * that names every task "1" (as agents that count from 1 do): two such agents give a client two tasks
   * with one id. Within one agent the latest task of an id is the one its methods find.
   */
  taskId?: (() => string) | undefined;
}

/** Defaults of {@link TestAgentOptions} and {@link TestAgentBehaviour}, in one place. */
export const TEST_AGENT_DEFAULTS = Object.freeze({
  versions: ['1.0', '0.3'] as readonly TestAgentVersion[],
  bindings: ['JSONRPC', 'HTTP+JSON'] as readonly TestAgentBinding[],
  streaming: true,
  pushNotifications: true,
  extendedAgentCard: false,
  cardPath: 'agent-card.json' as const,
  cardMaxAgeSeconds: 60,
  basePath: '',
  cors: true,
  port: 0,
  cancelWaitMs: 100,
  replayOnResubscribe: false,
  closeAtInterrupted: true,
  sseIds: false,
  requireVersionHeader: true,
});

/** Options with defaults applied; `auth` stays mutable for rotateBearer(). */
export interface ResolvedOptions {
  versions: readonly TestAgentVersion[];
  bindings: readonly TestAgentBinding[];
  cardShape: TestAgentVersion;
  streaming: boolean;
  pushNotifications: boolean;
  extendedAgentCard: boolean;
  cardPath: 'agent-card.json' | 'agent.json';
  cardMaxAgeSeconds: number;
  cardOverride: ((card: Record<string, unknown>) => unknown) | undefined;
  basePath: string;
  auth: TestAgentAuth | undefined;
  tenant: string | undefined;
  cors: CorsMode;
  behaviour: TestAgentBehaviour;
  scenarios: Record<string, ScenarioFn>;
  port: number;
  cancelWaitMs: number;
  taskId: () => string;
}

export function resolveOptions(options: TestAgentOptions, builtIns: Record<string, ScenarioFn>): ResolvedOptions {
  const d = TEST_AGENT_DEFAULTS;
  const versions = options.versions ?? d.versions;
  const bindings = options.bindings ?? d.bindings;
  if (versions.length === 0) throw new Error('startTestAgent: versions must not be empty');
  if (bindings.length === 0) throw new Error('startTestAgent: bindings must not be empty');
  checkMisbehaviourNames(options.behaviour?.misbehave ?? []);
  let basePath = options.basePath ?? d.basePath;
  if (basePath !== '' && !basePath.startsWith('/')) basePath = `/${basePath}`;
  basePath = basePath.replace(/\/+$/, '');
  return {
    versions,
    bindings,
    cardShape: options.cardShape ?? (versions.includes('1.0') ? '1.0' : '0.3'),
    streaming: options.capabilities?.streaming ?? d.streaming,
    pushNotifications: options.capabilities?.pushNotifications ?? d.pushNotifications,
    extendedAgentCard: options.capabilities?.extendedAgentCard ?? d.extendedAgentCard,
    cardPath: options.cardPath ?? d.cardPath,
    cardMaxAgeSeconds: options.cardMaxAgeSeconds ?? d.cardMaxAgeSeconds,
    cardOverride: options.cardOverride,
    basePath,
    auth: options.auth === undefined ? undefined : { ...options.auth },
    tenant: options.tenant,
    cors: resolveCors(options.cors ?? d.cors, options.auth),
    behaviour: { ...options.behaviour },
    scenarios: { ...builtIns, ...options.scenarios },
    port: options.port ?? d.port,
    cancelWaitMs: options.cancelWaitMs ?? d.cancelWaitMs,
    taskId: options.taskId ?? randomUUID,
  };
}

export type { TestAgentAuth } from './auth.js';
