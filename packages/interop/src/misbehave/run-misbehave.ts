import { describeEvent } from '../chaos/checks.js';
import { acceptableFailure } from './acceptable-outcomes.js';
import { RATE_CEILING_WINDOW_MS, checkRun, countedRequests, describeAgentTask } from './checks.js';
import type { RunOutcome } from './checks.js';
import { driveRun } from './drive-run.js';
import { describePlan, planRun } from './plan.js';
import { describeRequest, worstWindow } from './request-log.js';

/** Options of {@link runMisbehave}. */
export interface MisbehaveOptions {
  /** How many runs (indices 0 … runs-1). */
  runs: number;
  /** The suite seed; run `i` is drawn from `(seed, i)` alone. */
  seed: number;
  /** Runs in flight at once. Default 16. */
  concurrency?: number | undefined;
  /** Only this run index (reproduce one run by itself). */
  only?: number | undefined;
  /** Progress lines. */
  log?: ((line: string) => void) | undefined;
  /** Virtual ms per real ms of every run's clock. Default 100. */
  timeScale?: number | undefined;
  /**
   * A run's bound in virtual ms. Default 8 minutes: the default `maxElapsedMs` (5 minutes without
   * progress, after which a correct engine gives up with a typed error) plus a call timeout, plus room
   * for event-loop lag, which the scaled clock magnifies; every agent here finishes within seconds.
   */
  boundMs?: number | undefined;
  /** Failures kept in full (all are counted). Default 20. */
  keepFailures?: number | undefined;
}

/** One failed run, with what is needed to look into it. */
export interface MisbehaveFailure {
  index: number;
  runSeed: number;
  plan: string;
  problems: string[];
  /** The app's events, one line each. */
  events: string[];
  /** The agent's task, in one line. */
  agentTask: string;
  /** The client's requests, one line each (virtual time since the run began). */
  requests: string[];
}

/** Runs and failures of one group (a misbehaviour, a scenario, a version × binding). */
export interface GroupCount {
  runs: number;
  failed: number;
}

/** Runs and failures of one misbehaviour: all draws with it, and those where it was alone (no other, no proxy). */
export interface MisbehaviourCount extends GroupCount {
  alone: GroupCount;
}

/** What {@link runMisbehave} found. */
export interface MisbehaveReport {
  seed: number;
  runs: number;
  concurrency: number;
  timeScale: number;
  boundMs: number;
  wallMs: number;
  failed: number;
  /** Runs that ended with `done()` resolving / with an accepted error. */
  succeeded: number;
  acceptedErrors: number;
  /** The first failures in full (up to `keepFailures`). */
  failures: MisbehaveFailure[];
  /**
   * Per misbehaviour drawn (`none` for runs without any). A run with several counts under each; `alone`
   * counts the runs where it was the only one and there was no fault proxy, which pins a failure on it.
   */
  byMisbehaviour: Record<string, MisbehaviourCount>;
  byScenario: Record<string, GroupCount>;
  byInterface: Record<string, GroupCount>;
  /** Runs through the fault proxy. */
  proxied: GroupCount;
  /** How many failed runs show each kind of problem (ids and numbers masked), and the first such run. */
  byProblem: Record<string, { runs: number; example: number }>;
  /** The most requests any run made in one rate-ceiling window, and which run. */
  worstWindow: { requests: number; run: number | undefined };
}

function count(groups: Record<string, GroupCount>, key: string, failed: boolean): void {
  const group = (groups[key] ??= { runs: 0, failed: 0 });
  group.runs++;
  if (failed) group.failed++;
}

/** A problem with ids, numbers and detail lines masked, so alike problems group together. */
function problemKind(problem: string): string {
  return (problem.split('\n')[0] ?? '')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/https?:\/\/[^\s]+/g, '<url>')
    .replace(/(?<![\w.])-?\d+(\.\d+)?/g, 'N')
    .slice(0, 140);
}

function describeFailure(run: RunOutcome, problems: string[]): MisbehaveFailure {
  return {
    index: run.plan.index,
    runSeed: run.plan.runSeed,
    plan: describePlan(run.plan),
    problems,
    events: run.events.map(describeEvent),
    agentTask: describeAgentTask(run.agentFinal),
    requests: run.requests.slice(0, 200).map(describeRequest),
  };
}

/**
 * The seeded misbehaving-agent model check: `runs` independent runs, each drawn from `(seed, index)`
 * (see `planRun`) and driven against its own testkit agent by its own Tether client (see `driveRun`),
 * then judged by `checkRun`. Plans and every seeded choice reproduce exactly; timing between the agent's
 * real timers and the client's scaled clock does not, so a failure may need a few replays of `only`.
 */
export async function runMisbehave(options: MisbehaveOptions): Promise<MisbehaveReport> {
  const started = Date.now();
  const seed = options.seed >>> 0;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 16));
  const timeScale = options.timeScale ?? 100;
  const boundMs = options.boundMs ?? 8 * 60_000;
  const keep = options.keepFailures ?? 20;
  const log = options.log ?? (() => undefined);
  const indices = options.only === undefined ? Array.from({ length: Math.max(0, options.runs) }, (_, i) => i) : [options.only];
  const report: MisbehaveReport = {
    seed,
    runs: indices.length,
    concurrency,
    timeScale,
    boundMs,
    wallMs: 0,
    failed: 0,
    succeeded: 0,
    acceptedErrors: 0,
    failures: [],
    byMisbehaviour: {},
    byScenario: {},
    byInterface: {},
    proxied: { runs: 0, failed: 0 },
    byProblem: {},
    worstWindow: { requests: 0, run: undefined },
  };
  log(`misbehave: seed ${seed}, ${indices.length} runs, concurrency ${concurrency}, clock ×${timeScale}, bound ${boundMs / 1000} s virtual`);

  let next = 0;
  let done = 0;
  let lastProgress = Date.now();
  const record = (run: RunOutcome): void => {
    const problems = checkRun(run);
    const failed = problems.length > 0;
    const plan = run.plan;
    if (run.final !== undefined) report.succeeded++;
    else if (run.error !== undefined && acceptableFailure(plan, run.error) !== undefined) report.acceptedErrors++;
    const alone = plan.misbehaviours.length <= 1 && plan.proxy === undefined;
    for (const name of plan.misbehaviours.length === 0 ? ['none'] : plan.misbehaviours) {
      const group = (report.byMisbehaviour[name] ??= { runs: 0, failed: 0, alone: { runs: 0, failed: 0 } });
      group.runs++;
      if (failed) group.failed++;
      if (alone) {
        group.alone.runs++;
        if (failed) group.alone.failed++;
      }
    }
    count(report.byScenario, plan.scenario, failed);
    count(report.byInterface, `v${plan.version} ${plan.binding}`, failed);
    if (plan.proxy !== undefined) {
      report.proxied.runs++;
      if (failed) report.proxied.failed++;
    }
    const window = worstWindow(countedRequests(run.requests).map((r) => r.at), RATE_CEILING_WINDOW_MS);
    if (window.count > report.worstWindow.requests) report.worstWindow = { requests: window.count, run: plan.index };
    if (!failed) return;
    report.failed++;
    for (const kind of new Set(problems.map(problemKind))) {
      const seen = (report.byProblem[kind] ??= { runs: 0, example: plan.index });
      seen.runs++;
    }
    if (report.failures.length < keep) report.failures.push(describeFailure(run, problems));
    log(`misbehave: FAILED ${describePlan(plan)}: ${problems[0] ?? ''}`);
  };

  const worker = async (): Promise<void> => {
    // Bounded: each worker takes indices until none are left.
    while (next < indices.length) {
      const index = indices[next++] as number;
      const plan = planRun(seed, index, timeScale);
      try {
        record(await driveRun(plan, { boundMs }));
      } catch (error) {
        // The runner itself broke (e.g. no port for the agent): a failure of this run, not of the suite.
        report.failed++;
        log(`misbehave: runner error in ${describePlan(plan)}: ${String(error)}`);
      }
      done++;
      if (Date.now() - lastProgress > 10_000) {
        lastProgress = Date.now();
        log(`misbehave: ${((Date.now() - started) / 1000).toFixed(0)} s, ${done}/${indices.length} runs, ${report.failed} failed`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, indices.length) }, () => worker()));
  report.wallMs = Date.now() - started;
  return report;
}
