import { MISBEHAVIOUR_NAMES, SUBSCRIBE_REFUSALS } from '@a2a-tether/testkit';
import type { Misbehaviour, MisbehaviourParams } from '@a2a-tether/testkit';
import type { Binding, ProtocolVersion } from '@a2a-tether/node';
import { deriveSeed, randomInt, seededRandom } from '../chaos/seeded.js';

/** The scenarios a run can draw (all finish on their own once an `input`/`auth` pause is answered). */
export type RunScenario = 'stream' | 'input' | 'auth' | 'fail' | 'reject' | 'slow';

/** Fault-proxy settings of a run that goes through one. */
export interface ProxyPlan {
  seed: number;
  /** Per SSE response: the chance of a cut (reset or clean end, after 0–3 events). */
  cutProbability: number;
  /** Per SSE response that was not cut: the chance of a stall (a half-open connection). */
  stallProbability: number;
  /** Per request: the chance of a 503 or 429 instead of forwarding. */
  statusProbability: number;
  /** A burst of the same status on the first matching follow-up requests (not the creating send). */
  burst?: { status: 503 | 429; retryAfter: 0 | 1; times: number } | undefined;
}

/** Everything one run does, drawn from its run seed alone. */
export interface RunPlan {
  index: number;
  /** Derived from the suite seed and `index` only, so run `index` can be replayed by itself. */
  runSeed: number;
  version: ProtocolVersion;
  binding: Binding;
  scenario: RunScenario;
  /** What `client.start()` sends: the scenario command, plus `misbehave=…` when selected per task. */
  text: string;
  /** The misbehaviours drawn (0–3, at most one of the skews). */
  misbehaviours: Misbehaviour[];
  params: MisbehaviourParams;
  /** Whether the misbehaviours are selected in the task's text or agent-wide (`behaviour.misbehave`). */
  selectedBy: 'task' | 'agent';
  /** Another task is created first, so `foreign` can borrow a real task's ids. */
  decoy: boolean;
  proxy: ProxyPlan | undefined;
  /** Virtual milliseconds per real millisecond of the run's scheduler. */
  timeScale: number;
}

/** Codes a `streamError` frame carries (never an A2A code with a meaning of its own for the task). */
const STREAM_ERROR_CODES: readonly number[] = [-32603, -32603, -32000];

const SKEWS: ReadonlySet<Misbehaviour> = new Set<Misbehaviour>(['skewFuture', 'skewPast', 'skewRandom']);

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function scenarioText(random: () => number, scenario: RunScenario): string {
  switch (scenario) {
    case 'stream':
      return `stream updates=${randomInt(random, 0, 3)} chunks=${randomInt(random, 1, 5)} delayMs=${randomInt(random, 1, 4)}`;
    case 'slow':
      return `slow steps=${randomInt(random, 1, 4)} delayMs=${randomInt(random, 2, 8)}`;
    default:
      return scenario;
  }
}

/**
 * The misbehaviours of the v1.1 draft's generations (a skipped event, an old one sent again, generation 0):
 * they are about a feature this model check does not turn on (`experimental.generations`), and an agent
 * that drops an event from its stream without generations is one no client can catch there.
 * packages/core/test/generations.test.ts runs them with the flag on.
 */
const GENERATION_MISBEHAVIOURS: ReadonlySet<string> = new Set(['dropEvent', 'replayOld', 'zeroGeneration']);
const DRAWN = MISBEHAVIOUR_NAMES.filter((name) => !GENERATION_MISBEHAVIOURS.has(name));

function drawMisbehaviours(random: () => number): Misbehaviour[] {
  const count = pick(random, [0, 1, 1, 1, 2, 2, 2, 3, 3, 3]);
  const chosen: Misbehaviour[] = [];
  for (let guard = 0; chosen.length < count && guard < 50; guard++) {
    const name = pick(random, DRAWN);
    if (chosen.includes(name)) continue;
    if (SKEWS.has(name) && chosen.some((c) => SKEWS.has(c))) continue;
    chosen.push(name);
  }
  return chosen;
}

function drawParams(random: () => number, names: readonly Misbehaviour[]): MisbehaviourParams {
  const params: MisbehaviourParams = { seed: randomInt(random, 0, 1_000_000) };
  // Explicit parameters half of the time; otherwise the agent draws them from the seed.
  if (names.includes('streamError')) {
    params.code = pick(random, STREAM_ERROR_CODES);
    if (random() < 0.5) params.errorAt = randomInt(random, 2, 6);
  }
  if (names.includes('refuseSubscribe') && random() < 0.5) params.refuse = pick(random, SUBSCRIBE_REFUSALS);
  if (names.includes('lose') && random() < 0.5) params.loseAfter = randomInt(random, 2, 6);
  if (names.includes('stale') && random() < 0.5) params.staleBack = randomInt(random, 1, 3);
  return params;
}

function commandParams(names: readonly Misbehaviour[], params: MisbehaviourParams): string {
  if (names.length === 0) return '';
  const words = [`misbehave=${names.join(',')}`, `mbSeed=${params.seed ?? 0}`];
  if (params.code !== undefined) words.push(`mbCode=${params.code}`);
  if (params.errorAt !== undefined) words.push(`mbErrorAt=${params.errorAt}`);
  if (params.refuse !== undefined) words.push(`mbRefuse=${params.refuse}`);
  if (params.loseAfter !== undefined) words.push(`mbLoseAfter=${params.loseAfter}`);
  if (params.staleBack !== undefined) words.push(`mbStaleBack=${params.staleBack}`);
  return ` ${words.join(' ')}`;
}

function drawProxy(random: () => number, runSeed: number): ProxyPlan | undefined {
  if (random() >= 0.3) return undefined;
  const proxy: ProxyPlan = {
    seed: deriveSeed(runSeed, 'proxy'),
    cutProbability: pick(random, [0.15, 0.3, 0.45]),
    stallProbability: pick(random, [0, 0.05, 0.1]),
    statusProbability: pick(random, [0, 0.03, 0.06]),
  };
  // Short bursts only: the default budget (10 failed attempts in a row) must always outlast them.
  if (random() < 0.5) proxy.burst = { status: pick(random, [503, 429] as const), retryAfter: pick(random, [0, 1] as const), times: randomInt(random, 1, 4) };
  return proxy;
}

/**
 * Draws run `index` of a suite seeded with `seed`: version × binding, a scenario, 0–3 misbehaviours with
 * their parameters (selected per task, or agent-wide one time in five), and sometimes a fault proxy.
 * Only draws where the agent always finishes: every scenario ends by itself once its pause is
 * answered, and proxy bursts stay shorter than the default retry budget.
 */
export function planRun(seed: number, index: number, timeScale: number): RunPlan {
  const runSeed = deriveSeed(seed, 'misbehave-run', String(index));
  const random = seededRandom(runSeed);
  const version = pick(random, ['1.0', '0.3'] as const);
  const binding = pick(random, ['JSONRPC', 'HTTP+JSON'] as const);
  const scenario = pick(random, ['stream', 'stream', 'input', 'auth', 'fail', 'reject', 'slow', 'slow'] as const);
  const base = scenarioText(random, scenario);
  const misbehaviours = drawMisbehaviours(random);
  const params = drawParams(random, misbehaviours);
  const selectedBy = misbehaviours.length > 0 && random() < 0.2 ? 'agent' : 'task';
  const text = selectedBy === 'task' ? base + commandParams(misbehaviours, params) : base;
  const decoy = misbehaviours.includes('foreign') && random() < 0.5;
  const proxy = drawProxy(random, runSeed);
  return { index, runSeed, version, binding, scenario, text, misbehaviours, params, selectedBy, decoy, proxy, timeScale };
}

/** One line that says what a run did, e.g. `#12 v1.0 JSONRPC "stream …" [agent: lose] proxy(cut 0.3, burst 503×2)`. */
export function describePlan(plan: RunPlan): string {
  const selected = plan.misbehaviours.length === 0 ? '' : ` [${plan.selectedBy}: ${plan.misbehaviours.join(',')} ${JSON.stringify(plan.params)}]`;
  const proxy = plan.proxy === undefined
    ? ''
    : ` proxy(seed ${plan.proxy.seed}, cut ${plan.proxy.cutProbability}, stall ${plan.proxy.stallProbability}, status ${plan.proxy.statusProbability}${plan.proxy.burst ? `, burst ${plan.proxy.burst.status}×${plan.proxy.burst.times} retry-after ${plan.proxy.burst.retryAfter}` : ''})`;
  return `#${plan.index} (run seed ${plan.runSeed}) v${plan.version} ${plan.binding} ${JSON.stringify(plan.text)}${selected}${plan.decoy ? ' +decoy' : ''}${proxy}`;
}
