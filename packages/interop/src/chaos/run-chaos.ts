import { connect, isTetherError } from '@a2a-tether/node';
import type { A2AClient, AgentCard, ConnectOptions, Message, ResilienceOptions, Task, TaskEvent, TaskHandle } from '@a2a-tether/node';
import { startFaultProxy } from '@a2a-tether/testkit';
import type { FaultMatch, FaultProxy, FaultProxyLogEntry } from '@a2a-tether/testkit';
import { checkTask, countHoles, describeEvent, describeServerTask } from './checks.js';
import type { TaskPlan } from './checks.js';
import { deriveSeed, randomInt, seededRandom } from './seeded.js';
import { allChaosTargets, startBackend } from './targets.js';
import type { ChaosBackend, ChaosTarget } from './targets.js';

/** Options of {@link runChaos}. */
export interface ChaosOptions {
  /** Stop once at least this many cuts (SSE resets + clean ends + stalls) were injected, every target getting its share. */
  cuts: number;
  /**
   * Seeds everything: task `n` of a target gets its plan, its client's jitter and the faults on its
   * requests from (seed, target, n) and its own request sequence alone, whatever runs alongside.
   */
  seed: number;
  /** Default: {@link allChaosTargets}. */
  targets?: ChaosTarget[] | undefined;
  /**
   * Run only the task with this index, on the one target in `targets`: replays that task of a run with
   * the same seed (the same plan, and the same faults for the same requests). See {@link replayCommand}.
   */
  task?: number | undefined;
  /** Tasks in flight at once, over all targets. Default 8. */
  concurrency?: number | undefined;
  /** Progress lines. */
  log?: ((line: string) => void) | undefined;
  /** Hard wall-clock cap of the whole run (ms); reported as `capHit` when reached. Default 15 minutes. */
  maxWallMs?: number | undefined;
  /** A task not settled after this long is detached and counted as a failure (ms). Default 60 s. */
  taskTimeoutMs?: number | undefined;
  /** Share of tasks that run the `input` scenario (input-required, then `reply()`). Default 0.2. */
  inputShare?: number | undefined;
  /** Failures (and, separately, repaired holes) kept in full in the report (all are counted). Default 20. */
  keepFailures?: number | undefined;
}

/** Counters of one target. */
export interface ChaosTargetReport {
  target: string;
  tasks: number;
  failures: number;
  /** Resets + clean ends + stalls: what `cuts` counts. */
  cutsTotal: number;
  /** SSE responses cut, by mode; `midEvent` and `utf8` are the cuts (of either mode) that landed inside an event. */
  cuts: { reset: number; end: number; midEvent: number; utf8: number };
  stalls: number;
  /** Injected status answers (with Retry-After), on any request. */
  injected: { 503: number; 429: number };
  requests: number;
  /** `reconnecting` connection events the app saw (one per reconnect attempt). */
  reconnects: number;
  /** Tasks whose handle switched to polling. */
  pollingFallbacks: number;
  /**
   * Tasks whose app view of an artifact had a hole for a while (live appends after a gap, until a
   * snapshot filled it): not a failure — the result is exact — but incomplete content shown.
   */
  holes: number;
  /** Creating messages (or replies) the agent executed more than once (the client re-sent a lost send). */
  duplicateExecutions: number;
  /** v0.3 creating sends whose answer was lost before any event: reported as DELIVERY_UNKNOWN, not re-sent. */
  unknownDeliveries: number;
}

/** One failed task, with what is needed to look into it. */
export interface ChaosFailure {
  seed: number;
  target: string;
  /** The proxy's seed for this target (its tasks' fault choices derive from it). */
  proxySeed: number;
  /** The task's index on its target: with the seed and the target, all it takes to replay it. */
  taskIndex: number;
  /** The command that runs just this task again. */
  replay: string;
  taskId: string | undefined;
  plan: string;
  problems: string[];
  /** The app's events, one line each. */
  events: string[];
  serverTask: string;
  /** The proxy's log entries of this task's requests, in order. */
  proxyLog: string[];
}

/** One request of a task, as the proxy saw it. */
export interface ChaosRequest {
  /** `POST SendStreamingMessage` (JSON-RPC), or method and path with the task id left out (`GET /a2a/rest/tasks/{id}:subscribe`). */
  request: string;
  /** The agent answered with an event stream (faults that act on the response depend on it). */
  sse: boolean;
  /** What the proxy injected (its log's description), if anything. */
  fault: string | undefined;
}

/** What one task was asked to do and what the proxy did to each of its requests: compare runs with this. */
export interface ChaosTaskRecord {
  target: string;
  taskIndex: number;
  plan: string;
  /** In the order they reached the proxy. */
  requests: ChaosRequest[];
}

/** What {@link runChaos} found. */
export interface ChaosReport {
  seed: number;
  requestedCuts: number;
  concurrency: number;
  targets: ChaosTargetReport[];
  totals: Omit<ChaosTargetReport, 'target'>;
  failures: ChaosFailure[];
  /** Examples of tasks counted in `holes` (not failures), in the same shape. */
  holes: ChaosFailure[];
  /** Every task that ran, by target, then index. */
  tasks: ChaosTaskRecord[];
  wallMs: number;
  /** Why the run stopped early, when it did (wall-clock cap, task cap, a target that never got cut). */
  capHit: string | undefined;
}

const RESILIENCE: Partial<ResilienceOptions> = {
  initialDelayMs: 5,
  maxDelayMs: 50,
  // Stalls are half-open connections: the probe must notice them in real time.
  idleProbeMs: 300,
  // Generous: a streak of injected 503/429s and cuts must not exhaust a task.
  maxAttempts: 60,
  maxElapsedMs: 60_000,
  pollMinMs: 10,
  pollMaxMs: 60,
  // Two empty connections in a row already switch to polling, so the polling path sees chaos too.
  emptyConnectionsBeforePolling: 2,
};

/** The chaos every proxy runs (per target seed), plus the rules for mid-UTF-8 cuts on testkit targets. */
const CHAOS = {
  cutProbability: 0.45,
  maxEventsBeforeCut: 4,
  resetRatio: 0.5,
  midEventRatio: 0.35,
  statusProbability: 0.04,
  stallProbability: 0.12,
};
const UTF8_CUT_PROBABILITY = 0.025;
const HANG_GRACE_MS = 15_000;
/** Carries a task's index on each of its requests: the proxy draws that task's faults by it. */
const TASK_HEADER = 'x-chaos-task';

/** The shell command that replays task `taskIndex` of `target` from a run with `seed`. */
export function replayCommand(seed: number, target: string, taskIndex: number): string {
  return `pnpm chaos --seed ${seed} --target '${target.replaceAll("'", "'\\''")}' --task ${taskIndex}`;
}

function streamingMatch(target: ChaosTarget): FaultMatch {
  return target.binding === 'JSONRPC'
    ? { rpcMethod: /^(SendStreamingMessage|SubscribeToTask|message\/stream|tasks\/resubscribe)$/ }
    : { path: /:(stream|subscribe)$/ };
}

/**
 * Faults of one target. Rules that wait for the response to be SSE take streaming requests out of
 * chaos's status injection, so those get their 503/429 from rules placed before the cut rules.
 */
function armProxy(proxy: FaultProxy, target: ChaosTarget, seed: number): void {
  if (target.agent === 'testkit') {
    const streaming = streamingMatch(target);
    const statusChance = CHAOS.statusProbability / 2;
    proxy.addFault({ kind: 'status', status: 503, retryAfter: 0, probability: statusChance, times: Infinity, match: streaming });
    proxy.addFault({ kind: 'status', status: 429, retryAfter: 1, probability: statusChance, times: Infinity, match: streaming });
    for (const mode of ['reset', 'end'] as const) {
      for (let afterEvents = 0; afterEvents <= 3; afterEvents++) {
        proxy.addFault({
          kind: 'cut',
          mode,
          afterEvents,
          within: 'utf8',
          probability: UTF8_CUT_PROBABILITY,
          times: Infinity,
          match: { ...streaming, sse: true },
        });
      }
    }
  }
  proxy.chaos({ seed, ...CHAOS });
}

function planTask(target: ChaosTarget, random: () => number, inputShare: number): TaskPlan {
  const testkit = target.agent === 'testkit';
  if (random() < inputShare) {
    return { kind: 'input', text: 'input', reply: 'blue', expectedText: 'got: blue' };
  }
  const updates = randomInt(random, 1, 4);
  const chunks = randomInt(random, 2, 8);
  const delayMs = randomInt(random, 2, 10);
  let expectedText = '';
  // The testkit agent numbers chunks from 1 (and can add multi-byte characters); the official servers from 0.
  for (let i = 1; i <= chunks; i++) expectedText += testkit ? `chunk-${i};é✓😀` : `chunk-${i - 1};`;
  const text = `stream updates=${updates} chunks=${chunks} delayMs=${delayMs}${testkit ? ' unicode=1' : ''}`;
  return { kind: 'stream', text, expectedText };
}

interface TargetState {
  target: ChaosTarget;
  index: number;
  backend: ChaosBackend;
  proxy: FaultProxy;
  proxySeed: number;
  /** The agent's card as read through the proxy: every task's client is made from it. */
  card: AgentCard;
  direct: A2AClient;
  /** The index of the next task to start. */
  nextTask: number;
  /** Plan text by task index. */
  plans: Map<number, string>;
  inflight: number;
  report: ChaosTargetReport;
}

function emptyCounters(): Omit<ChaosTargetReport, 'target'> {
  return {
    tasks: 0,
    failures: 0,
    cutsTotal: 0,
    cuts: { reset: 0, end: 0, midEvent: 0, utf8: 0 },
    stalls: 0,
    injected: { 503: 0, 429: 0 },
    requests: 0,
    reconnects: 0,
    pollingFallbacks: 0,
    holes: 0,
    duplicateExecutions: 0,
    unknownDeliveries: 0,
  };
}

function cutsOf(proxy: FaultProxy): number {
  const stats = proxy.stats;
  return stats.cuts.reset + stats.cuts.end + stats.stalls;
}

/** Folds the proxy's counters and log into the target's report. */
function collectProxy(state: TargetState): void {
  const stats = state.proxy.stats;
  const report = state.report;
  report.cuts.reset = stats.cuts.reset;
  report.cuts.end = stats.cuts.end;
  report.stalls = stats.stalls;
  report.cutsTotal = cutsOf(state.proxy);
  report.requests = stats.requests;
  report.cuts.midEvent = 0;
  report.cuts.utf8 = 0;
  report.injected = { 503: 0, 429: 0 };
  for (const entry of state.proxy.log) {
    const fault = entry.fault;
    if (fault === undefined) continue;
    if (fault.includes('within=event')) report.cuts.midEvent++;
    else if (fault.includes('within=utf8')) report.cuts.utf8++;
    else if (fault.includes('status(503')) report.injected[503]++;
    else if (fault.includes('status(429')) report.injected[429]++;
  }
  report.duplicateExecutions = state.backend.duplicateExecutions();
}

/** The proxy's log entries of one task's requests, in order. */
function taskLog(proxy: FaultProxy, taskIndex: number): FaultProxyLogEntry[] {
  const tag = String(taskIndex);
  return proxy.log.filter((entry) => entry.tag === tag);
}

/** A request's kind without what differs between runs (task ids in REST paths). */
function requestKind(entry: FaultProxyLogEntry): string {
  return `${entry.method} ${entry.rpcMethod ?? entry.path.replace(/\/tasks\/[^/:]+/, '/tasks/{id}')}`;
}

/** Each task's requests, from the proxy log (tagged by {@link TASK_HEADER}). */
function taskRecords(state: TargetState): ChaosTaskRecord[] {
  const byTask = new Map<number, ChaosRequest[]>();
  for (const index of state.plans.keys()) byTask.set(index, []);
  for (const entry of state.proxy.log) {
    const requests = entry.tag === undefined ? undefined : byTask.get(Number(entry.tag));
    requests?.push({ request: requestKind(entry), sse: entry.sse, fault: entry.fault });
  }
  return [...byTask]
    .sort(([a], [b]) => a - b)
    .map(([taskIndex, requests]) => ({ target: state.target.name, taskIndex, plan: state.plans.get(taskIndex) ?? '', requests }));
}

async function openClient(url: string, target: ChaosTarget, extra: ConnectOptions = {}): Promise<A2AClient> {
  const client = await connect(url, {
    cardCache: false,
    preferredBindings: [target.binding],
    protocolVersions: [target.version],
    ...extra,
  });
  const chosen = client.interface;
  if (chosen.binding !== target.binding || chosen.protocolVersion !== target.version) {
    throw new Error(`${target.name}: negotiated ${chosen.protocolVersion} ${chosen.binding} instead`);
  }
  return client;
}

interface TaskResult {
  events: TaskEvent[];
  final: Task | Message | undefined;
  error: unknown;
  taskId: string | undefined;
}

/** Starts one task, reads its events to the end (answering input-required once), awaits done(). */
export async function driveTask(client: A2AClient, plan: TaskPlan, timeoutMs: number): Promise<TaskResult> {
  const events: TaskEvent[] = [];
  let handle: TaskHandle | undefined;
  let timedOut = false;
  // Aborts a start() still sending when the time is up; it is used for nothing else.
  const sending = new AbortController();
  const timer = setTimeout(() => {
    timedOut = true;
    sending.abort();
    handle?.detach();
  }, timeoutMs);
  try {
    handle = await client.start(plan.contextId === undefined ? plan.text : { text: plan.text, contextId: plan.contextId }, { signal: sending.signal });
    if (timedOut) handle.detach();
    let replied = false;
    for await (const event of handle.events()) {
      events.push(event);
      if (plan.kind === 'input' && !replied && event.type === 'status' && event.state === 'input-required') {
        replied = true;
        await handle.reply(plan.reply ?? '');
      }
    }
    const final = await handle.done();
    return { events, final, error: undefined, taskId: handle.taskId };
  } catch (error) {
    const reason = timedOut ? new Error(`timed out after ${timeoutMs} ms (${String(error)})`) : error;
    // Whatever failed, stop following, so nothing runs on after the report.
    handle?.detach();
    return { events, final: undefined, error: reason, taskId: handle?.taskId };
  } finally {
    clearTimeout(timer);
  }
}

async function directTask(direct: A2AClient, taskId: string | undefined): Promise<Task | undefined> {
  if (taskId === undefined) return undefined;
  // No faults between the direct client and the agent; a second try covers a loopback hiccup.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      return await direct.getTask(taskId);
    } catch {
      // look again
    }
  }
  return undefined;
}

function sumInto(totals: Omit<ChaosTargetReport, 'target'>, report: ChaosTargetReport): void {
  totals.tasks += report.tasks;
  totals.failures += report.failures;
  totals.cutsTotal += report.cutsTotal;
  totals.cuts.reset += report.cuts.reset;
  totals.cuts.end += report.cuts.end;
  totals.cuts.midEvent += report.cuts.midEvent;
  totals.cuts.utf8 += report.cuts.utf8;
  totals.stalls += report.stalls;
  totals.injected[503] += report.injected[503];
  totals.injected[429] += report.injected[429];
  totals.requests += report.requests;
  totals.reconnects += report.reconnects;
  totals.pollingFallbacks += report.pollingFallbacks;
  totals.holes += report.holes;
  totals.duplicateExecutions += report.duplicateExecutions;
  totals.unknownDeliveries += report.unknownDeliveries;
}

/**
 * Seeded chaos against Tether's task engine: every target's agent sits behind its own fault proxy
 * (SSE resets and clean ends, mid-event and mid-UTF-8 cuts, 503/429 with Retry-After on any request,
 * stalls); tasks run through `client.start()` until the requested cuts were injected, each checked
 * against the agent's own view (a direct GetTask) by {@link checkTask}.
 *
 * Each task tags its requests ({@link TASK_HEADER}) and its target's proxy draws the faults of a tagged
 * request from (seed, target, task index, the request's ordinal in the task): a seed gives every task
 * the same plan and the same faults for the same requests, whatever the interleaving, and any task can
 * be run again alone (`task`; {@link replayCommand}). Timing still differs between runs, and a task
 * whose requests differ (e.g. one reconnect fewer) gets the faults of its own sequence from there on.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const seed = options.seed >>> 0;
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const maxWallMs = options.maxWallMs ?? 15 * 60_000;
  const taskTimeoutMs = options.taskTimeoutMs ?? 60_000;
  const inputShare = options.inputShare ?? 0.2;
  const keepFailures = options.keepFailures ?? 20;
  const log = options.log ?? (() => undefined);
  const targets = options.targets ?? allChaosTargets();
  if (targets.length === 0) throw new Error('runChaos: no targets');
  const only = options.task;
  if (only !== undefined && (targets.length !== 1 || !Number.isInteger(only) || only < 0)) {
    throw new Error('runChaos: `task` needs one target and a task index (a non-negative integer)');
  }
  const quota = Math.ceil(options.cuts / targets.length);
  // A target that needs more tasks than this for its share is reported, not run forever.
  const maxTasksPerTarget = quota * 20 + 100;
  const perTargetInflight = Math.max(1, Math.ceil((concurrency * 2) / targets.length));

  const backends: ChaosBackend[] = [];
  const states: TargetState[] = [];
  const failures: ChaosFailure[] = [];
  const holes: ChaosFailure[] = [];
  let capHit: string | undefined;
  /** The report, once the tasks are done (before the proxies close). */
  const finish = (): ChaosReport => {
    for (const state of states) collectProxy(state);
    const totals = emptyCounters();
    for (const state of states) sumInto(totals, state.report);
    return {
      seed,
      requestedCuts: options.cuts,
      concurrency,
      targets: states.map((s) => s.report),
      totals,
      failures,
      holes,
      tasks: states.flatMap(taskRecords),
      wallMs: Date.now() - started,
      capHit,
    };
  };
  try {
    for (const [index, target] of targets.entries()) {
      // One agent per target, so its counters (duplicate executions) are the target's own.
      const backend = await startBackend(target);
      backends.push(backend);
      const proxySeed = deriveSeed(seed, 'proxy', target.name);
      const proxy = await startFaultProxy({ target: backend.url, seed: proxySeed, tagHeader: TASK_HEADER });
      const state: TargetState = {
        target,
        index,
        backend,
        proxy,
        proxySeed,
        // Read before the faults are armed: the card fetch is not what this suite tests.
        card: (await openClient(proxy.url, target)).card,
        direct: await openClient(backend.url, target),
        nextTask: 0,
        plans: new Map(),
        inflight: 0,
        report: { target: target.name, ...emptyCounters() },
      };
      armProxy(proxy, target, proxySeed);
      states.push(state);
    }
    log(`chaos: seed ${seed}, ${targets.length} targets, ${quota} cuts each (${options.cuts} in total), concurrency ${concurrency}`);

    const runTask = async (state: TargetState, taskIndex: number): Promise<void> => {
      state.report.tasks++;
      const target = state.target;
      const plan = planTask(target, seededRandom(deriveSeed(seed, 'plan', target.name, String(taskIndex))), inputShare);
      state.plans.set(taskIndex, plan.text);
      // A client of its own: its requests carry the task's tag, its jitter is the task's.
      const client = await openClient(state.proxy.url, target, {
        card: state.card,
        headers: { [TASK_HEADER]: String(taskIndex) },
        random: seededRandom(deriveSeed(seed, 'jitter', target.name, String(taskIndex))),
        resilience: RESILIENCE,
      });
      // A last guard: a task that ignores its own timeout (e.g. a send that never returns) cannot hang the run.
      const hung: TaskResult = { events: [], final: undefined, error: new Error(`hung: not settled ${HANG_GRACE_MS} ms after its timeout`), taskId: undefined };
      let guard: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        driveTask(client, plan, taskTimeoutMs),
        new Promise<TaskResult>((resolve) => {
          guard = setTimeout(() => resolve(hung), taskTimeoutMs + HANG_GRACE_MS);
        }),
      ]).finally(() => clearTimeout(guard));
      const server = await directTask(state.direct, result.taskId);
      // v0.3 has no ListTasks: a creating send whose answer was cut off before any event cannot be
      // looked for, and Tether reports it (DELIVERY_UNKNOWN) instead of sending it again. Documented, counted.
      if (state.target.version === '0.3' && result.taskId === undefined && isTetherError(result.error) && result.error.code === 'DELIVERY_UNKNOWN') {
        state.report.unknownDeliveries++;
        return;
      }
      const problems = checkTask({ plan, events: result.events, final: result.final, error: result.error, server });
      state.report.reconnects += result.events.filter((e) => e.type === 'connection' && e.state === 'reconnecting').length;
      if (result.events.some((e) => e.type === 'connection' && e.state === 'polling')) state.report.pollingFallbacks++;
      const describe = (what: string[]): ChaosFailure => ({
        seed,
        target: state.target.name,
        proxySeed: state.proxySeed,
        taskIndex,
        replay: replayCommand(seed, target.name, taskIndex),
        taskId: result.taskId,
        plan: plan.text,
        problems: what,
        events: result.events.map(describeEvent),
        serverTask: describeServerTask(server),
        proxyLog: taskLog(state.proxy, taskIndex).slice(0, 200).map(
          (e) => `#${e.id} ${e.method} ${e.path}${e.rpcMethod ? ` ${e.rpcMethod}` : ''} → ${e.status ?? '-'}${e.fault ? ` ${e.fault}` : ''} (${e.eventsForwarded} events)`,
        ),
      });
      const holeEvents = countHoles(result.events, server);
      if (holeEvents > 0) {
        state.report.holes++;
        if (holes.length < keepFailures) holes.push(describe([`after ${holeEvents} artifact event(s) the app showed an artifact with parts missing in front`]));
      }
      if (problems.length === 0) return;
      state.report.failures++;
      if (failures.length >= keepFailures) return;
      failures.push(describe(problems));
      log(`chaos: FAILURE on ${state.target.name}, task #${taskIndex} ${result.taskId ?? '?'}: ${problems[0] ?? ''} — replay: ${replayCommand(seed, target.name, taskIndex)}`);
    };

    if (only !== undefined) {
      const state = states[0] as TargetState;
      await runTask(state, only).catch((error: unknown) => {
        state.report.failures++;
        log(`chaos: runner error on ${state.target.name}: ${String(error)}`);
      });
      return finish();
    }

    const running = new Set<Promise<void>>();
    let lastProgress = Date.now();
    for (;;) {
      if (Date.now() - started > maxWallMs) {
        capHit = `wall-clock cap of ${maxWallMs} ms reached`;
        break;
      }
      const open = states.filter((s) => cutsOf(s.proxy) < quota && s.report.tasks < maxTasksPerTarget);
      if (open.length === 0) break;
      const eligible = open.filter((s) => s.inflight < perTargetInflight);
      if (running.size >= concurrency || eligible.length === 0) {
        if (running.size === 0) break;
        await Promise.race(running);
        continue;
      }
      // The target furthest from its share goes next.
      eligible.sort((a, b) => cutsOf(a.proxy) - cutsOf(b.proxy) || a.inflight - b.inflight || a.index - b.index);
      const state = eligible[0] as TargetState;
      state.inflight++;
      const task = runTask(state, state.nextTask++)
        .catch((error: unknown) => {
          state.report.failures++;
          log(`chaos: runner error on ${state.target.name}: ${String(error)}`);
        })
        .finally(() => {
          state.inflight--;
          running.delete(task);
        });
      running.add(task);
      if (Date.now() - lastProgress > 10_000) {
        lastProgress = Date.now();
        const cuts = states.reduce((n, s) => n + cutsOf(s.proxy), 0);
        const tasks = states.reduce((n, s) => n + s.report.tasks, 0);
        log(`chaos: ${((Date.now() - started) / 1000).toFixed(0)} s, ${tasks} tasks, ${cuts} cuts, ${failures.length} failures`);
      }
    }
    await Promise.all(running);
    const starved = states.filter((s) => cutsOf(s.proxy) < quota);
    if (capHit === undefined && starved.length > 0) {
      capHit = `task cap reached before ${starved.map((s) => s.target.name).join(', ')} got ${quota} cuts`;
    }
    return finish();
  } finally {
    await Promise.allSettled(states.map((s) => s.proxy.close()));
    await Promise.allSettled(backends.map((b) => b.close()));
  }
}
