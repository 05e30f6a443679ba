// A research workflow over three A2A agents, orchestrated by Tether and persisted in a file workflow store:
//
//   retrieve ──▶ summarize ──▶ verify (an action agent that publishes the report)
//
// 1. While the summarizer works, the user sends a correction (`workflow.update`). The running summarize
//    task gets a cancel request, which that agent ignores (it is a "late" child): the request is recorded
//    as requested, not confirmed. A successor task starts under revision 2, referencing the old one; the
//    old task's late result arrives afterwards and is rejected — never adopted, never published.
// 2. An action decided under revision 1 is refused by the admission gate; the orchestrator's own
//    `notify` goes through the action ledger, loses its answer, and is settled by a lookup (performed once).
// 3. A second, small workflow: a translation hop that hangs is cancelled by the user, and the agent confirms.
//
// Every agent reports a cost in its final status metadata; the summaries' totals are checked against what
// the agents themselves recorded. Everything that must hold is asserted; the script exits non-zero on any
// mismatch. `--quiet` prints one line.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, isTetherError, type A2AClient } from '@a2a-tether/node';
import {
  createFileWorkflowStore,
  formatTree,
  startWorkflow,
  type ActionSpec,
  type CostRecord,
  type LedgerEntry,
  type Workflow,
  type WorkflowEvent,
  type WorkflowStore,
  type WorkflowSummary,
} from '@a2a-tether/node/orchestrate';
import {
  IDEMPOTENCY_KEY_METADATA,
  actionScenario,
  lateScenario,
  startActionService,
  startTestAgent,
  type ActionService,
  type PerformedAction,
  type ScenarioFn,
  type TestAgent,
} from '@a2a-tether/testkit';

const quiet = process.argv.includes('--quiet');
const log = (line = ''): void => {
  if (!quiet) console.log(line);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const GOAL = 'A one-paragraph brief on tool use by sea otters, for a general audience';
const CORRECTION = 'Write it for marine biologists instead, and keep the citations';
const PUBLISH_KEY = 'publish:research-otters:report';
const NOTIFY_KEY = 'notify:research-otters:correction-1';
const SOURCES = '[1] Sea otters crack shellfish on stones held on their chests (Hall & Schaller 1964). [2] Some individuals keep a favourite stone for years.';
/** What each agent bills, reported in its final status message's metadata (`cost`). */
const COST = {
  retrieval: { amount: 0.004, unit: 'USD' },
  draft: { amount: 0.018, unit: 'USD' }, // the summary the correction made useless: still paid for
  summary: { amount: 0.021, unit: 'USD' },
  publish: { amount: 0.005, unit: 'USD' },
  extract: { amount: 0.002, unit: 'USD' },
  translationSoFar: { amount: 0.007, unit: 'USD' }, // what the cancelled translation had used
} satisfies Record<string, CostRecord>;

/** Collects what must hold; the run fails if any of it does not. */
class Checks {
  readonly failed: string[] = [];
  count = 0;
  that(ok: boolean, what: string): void {
    this.count++;
    if (!ok) this.failed.push(what);
  }
}

// ————— the agents —————

const retrieve: ScenarioFn = async (ctx) => {
  ctx.status('working');
  await ctx.sleep(80);
  ctx.artifact({ artifactId: 'sources', name: 'sources', text: SOURCES, lastChunk: true });
  ctx.status('completed', 'retrieved 2 sources', { metadata: { cost: COST.retrieval } });
};

/** A promise with its resolve function. */
function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Waits for `promise`, or `ms` at most (so a run that goes wrong still ends, and the checks report it). */
const atMost = (promise: Promise<void>, ms: number): Promise<void> => Promise.race([promise, new Promise<void>((r) => setTimeout(r, ms).unref())]);

/**
 * The summarizer. Its first run is a late child (`lateScenario`): it ignores the cancel request and
 * completes anyway — here only once the successor has reached the agent, i.e. after the orchestrator
 * stopped waiting for a confirmation, so the late result is late on any machine. The successor finishes
 * after the late result, so the workflow is still running when that result arrives.
 */
function summarizer(): ScenarioFn {
  const draft = lateScenario({ delayMs: 100, label: 'general-audience summary', cost: COST.draft });
  const revised = lateScenario({ delayMs: 400, label: 'biologist summary', cost: COST.summary });
  const successorArrived = signal();
  const draftReturned = signal();
  let runs = 0;
  return async (ctx) => {
    ctx.status('working');
    if (++runs === 1) {
      await atMost(successorArrived.promise, 5_000); // not ctx.sleep: a cancel does not stop it
      await draft(ctx);
      draftReturned.resolve();
    } else {
      successorArrived.resolve();
      await atMost(draftReturned.promise, 5_000);
      await revised(ctx);
    }
  };
}

const extract: ScenarioFn = async (ctx) => {
  ctx.status('working');
  await ctx.sleep(50);
  ctx.artifact({ artifactId: 'abstract', name: 'abstract', text: 'Sea otters use stones as anvils and hammers.', lastChunk: true });
  ctx.status('completed', undefined, { metadata: { cost: COST.extract } });
};

/** A translation that hangs until it is cancelled, then reports what it used so far. */
const translate: ScenarioFn = async (ctx) => {
  ctx.status('working');
  ctx.artifact({ artifactId: 'fr', name: 'fr', text: 'Les loutres de mer utilisent', lastChunk: false });
  await new Promise<void>((resolve) => {
    if (ctx.cancelled.aborted) resolve();
    else ctx.cancelled.addEventListener('abort', () => resolve(), { once: true });
  });
  try {
    ctx.status('canceled', 'translation stopped', { metadata: { cost: COST.translationSoFar } });
  } catch {
    // the agent closed
  }
};

// ————— helpers —————

/** Logs every event of a workflow as it happens; resolves with all of them at `done`. */
async function follow(flow: Workflow, started: number): Promise<WorkflowEvent[]> {
  const seen: WorkflowEvent[] = [];
  for await (const event of flow.events()) {
    seen.push(event);
    log(`   +${String(Date.now() - started).padStart(4)} ms  ${describe(event)}`);
  }
  return seen;
}

function describe(event: WorkflowEvent): string {
  switch (event.type) {
    case 'node':
      return `node    ${event.node} → ${event.state}${event.attempt === undefined ? '' : ` (attempt ${event.attempt}${event.taskId ? `, task ${event.taskId}` : ''})`}`;
    case 'update':
      return `update  #${event.update.seq} ${event.update.kind} by ${event.update.by}: "${event.update.text}" → revision ${event.update.revision}${event.update.affects ? `, affects ${event.update.affects.join(', ')}` : ''}`;
    case 'late-result':
      return `late    ${event.node}: task ${event.taskId ?? '?'} answered after all — rejected (${event.reason})`;
    case 'action':
      return `ledger  ${ledgerLine(event.entry)}`;
    case 'pause':
      return `pause   ${event.pause.node} ${event.pause.state}`;
    case 'pause-answered':
      return `answer  ${event.node}`;
    case 'escalation':
      return `budget  ${event.breach.kind} on ${event.breach.node ?? 'the workflow'} → ${JSON.stringify(event.decision)}`;
    case 'done':
      return `done    ${event.summary.state}`;
  }
}

function ledgerLine(e: LedgerEntry): string {
  return `${e.id} rev ${e.revision} ${e.operation} on ${e.target}${e.node ? ` [${e.node}]` : ''} key ${e.key}: ${e.history.map((h) => h.outcome).join(' → ')}`;
}

async function untilRunning(flow: Workflow, node: string): Promise<string> {
  for await (const e of flow.events()) if (e.type === 'node' && e.node === node && e.state === 'running' && e.taskId !== undefined) return e.taskId;
  throw new Error(`${node} never ran`);
}

const usd = (costs: readonly CostRecord[]): string => costs.map((c) => `${Number(c.amount.toFixed(6))} ${c.unit}`).join(' + ') || 'nothing';

/** Per-unit sums of what the agents themselves recorded (final status metadata `cost`) for one workflow's context. */
function reported(agents: Record<string, TestAgent>, contextId: string): { byAgent: Record<string, CostRecord[]>; total: CostRecord[] } {
  const add = (into: CostRecord[], c: CostRecord): void => {
    const same = into.find((x) => x.unit === c.unit);
    if (same) same.amount += c.amount;
    else into.push({ ...c });
  };
  const byAgent: Record<string, CostRecord[]> = {};
  const total: CostRecord[] = [];
  for (const [name, agent] of Object.entries(agents)) {
    for (const task of agent.tasks.list()) {
      const cost = task.statusMessage?.metadata?.['cost'] as CostRecord | undefined;
      if (task.contextId !== contextId || cost === undefined) continue;
      add((byAgent[name] ??= []), cost);
      add(total, cost);
    }
  }
  return { byAgent, total };
}

function sameCosts(a: readonly CostRecord[] | undefined, b: readonly CostRecord[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((c) => y.some((d) => d.unit === c.unit && Math.abs(d.amount - c.amount) < 1e-9));
}

function checkCosts(check: Checks, label: string, summary: WorkflowSummary, agents: Record<string, TestAgent>): void {
  const truth = reported(agents, summary.record.contextId);
  log(`   cost by agent: ${Object.entries(summary.cost.byAgent).map(([a, c]) => `${a} ${usd(c)}`).join(', ')}; total ${usd(summary.cost.total)} (agents reported ${usd(truth.total)})`);
  check.that(truth.total.length > 0, `${label}: the agents reported no cost at all`);
  check.that(sameCosts(summary.cost.total, truth.total), `${label}: cost total ${usd(summary.cost.total)} ≠ the agents' reported ${usd(truth.total)}`);
  for (const name of new Set([...Object.keys(truth.byAgent), ...Object.keys(summary.cost.byAgent)])) {
    check.that(sameCosts(summary.cost.byAgent[name], truth.byAgent[name]), `${label}: cost of ${name} ${usd(summary.cost.byAgent[name] ?? [])} ≠ reported ${usd(truth.byAgent[name] ?? [])}`);
  }
}

/** The orchestrator's own side effect: a notification over the service's HTTP API, with its lookup. */
function notify(service: ActionService, revision: number): ActionSpec<PerformedAction> {
  const input = { to: 'user', text: 'Correction received: the summary is being redone for marine biologists.' };
  return {
    revision,
    target: 'notifications',
    operation: 'notify',
    key: NOTIFY_KEY,
    input,
    perform: async (key) => {
      const res = await fetch(`${service.url}/actions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key, operation: 'notify', input }) });
      if (!res.ok) throw new Error(`notify: HTTP ${res.status}`);
      return (await res.json()) as PerformedAction;
    },
    lookup: async (key) => {
      const res = await fetch(`${service.url}/actions/${encodeURIComponent(key)}`);
      if (res.status === 404) return { found: false };
      if (!res.ok) throw new Error(`notify lookup: HTTP ${res.status}`);
      return { found: true, result: (await res.json()) as PerformedAction };
    },
  };
}

const textOfResult = (r: WorkflowSummary['results'][number]): string =>
  r.artifacts.flatMap((a) => a.artifact.parts).map((p) => (p.kind === 'text' ? p.text : '')).join('');

function printSummary(summary: WorkflowSummary): void {
  log();
  for (const line of formatTree(summary).split('\n')) log(`   ${line}`);
  // formatTree already ends with the unresolved lines (`unresolved: …`).
  if (summary.unresolved.length === 0) log('   unresolved: nothing');
  log(`   changed:${summary.changed.length === 0 ? ' nothing' : ''}`);
  for (const u of summary.changed) log(`     #${u.seq} ${u.kind} by ${u.by} → revision ${u.revision}: "${u.text}"${u.affects ? ` (affects ${u.affects.join(', ')})` : ''}`);
  log(`   completed before the change:${summary.completedBeforeChange.length === 0 ? ' nothing' : ''}`);
  for (const line of summary.completedBeforeChange) log(`     ${line}`);
  log('   results:');
  for (const r of summary.results) log(`     ${r.node} (${r.label}, task ${r.taskId ?? '-'}): "${textOfResult(r).slice(0, 110)}${textOfResult(r).length > 110 ? '…' : ''}"`);
  log('   ledger:');
  for (const e of summary.record.ledger) log(`     ${ledgerLine(e)}`);
}

// ————— 1. the research workflow —————

async function research(store: WorkflowStore, check: Checks): Promise<WorkflowSummary> {
  await using publishing = await startActionService();
  await using notifications = await startActionService();
  await using retrieval = await startTestAgent({ versions: ['1.0'], scenarios: { echo: retrieve } });
  await using summarizing = await startTestAgent({ versions: ['1.0'], scenarios: { echo: summarizer() } });
  await using verifying = await startTestAgent({ versions: ['1.0'], scenarios: { echo: actionScenario(publishing, { operation: 'publish', delayMs: 250, cost: COST.publish }) } });
  const agents = { retrieval, summarizer: summarizing, verifier: verifying };
  const clients: Record<string, A2AClient> = {};
  for (const [name, agent] of Object.entries(agents)) clients[name] = await connect(agent.url, { cardCache: false });

  log('── 1. research: retrieve → summarize → verify (publishes the report)');
  const started = Date.now();
  const flow = await startWorkflow({
    id: 'research-otters',
    goal: GOAL,
    store,
    cancelWaitMs: 300, // how long to watch for a cancelled task to reach `canceled`
    agents: clients,
    hops: [
      { id: 'retrieve', agent: 'retrieval', input: ({ revision }) => `find sources for: ${revision.text}` },
      {
        id: 'summarize',
        agent: 'summarizer',
        dependsOn: ['retrieve'],
        input: ({ revision, results }) => `${revision.text} | sources: ${results['retrieve']?.text ?? ''}`,
      },
      {
        id: 'verify',
        agent: 'verifier',
        dependsOn: ['summarize'],
        // One report, one publication: the key is the report's, whatever attempt sends it.
        input: ({ results }) => ({ text: `verify and publish: ${results['summarize']?.text ?? ''}`, metadata: { [IDEMPOTENCY_KEY_METADATA]: PUBLISH_KEY } }),
      },
    ],
  });
  const following = follow(flow, started);

  // The user changes their mind while the summarizer works.
  const oldTask = await untilRunning(flow, 'summarize');
  await sleep(100);
  const decidedUnder = flow.revision;
  const update = await flow.update({ kind: 'correction', text: CORRECTION, affects: ['summarize'] });

  // The admission gate: something decided under revision 1 no longer runs.
  let stalePerformed = false;
  const refusal = await flow
    .act({
      revision: decidedUnder,
      target: 'publishing',
      operation: 'publish-draft',
      key: 'publish:research-otters:draft',
      input: { draft: 'general audience' },
      perform: () => {
        stalePerformed = true;
        return Promise.resolve('published');
      },
    })
    .then(
      () => undefined,
      (error: unknown) => error,
    );

  // The orchestrator's own side effect, through the ledger: the answer is lost, a lookup settles it.
  notifications.loseNextAnswers(1);
  const receipt = await flow.act(notify(notifications, flow.revision));

  const summary = await flow.done();
  const events = await following;
  printSummary(summary);
  log(`   publishing service: ${publishing.effects.map((e) => `#${e.seq} ${e.operation} key ${e.key}`).join(', ') || 'nothing'}; notifications: ${notifications.effects.length} effect(s) from ${notifications.calls.length} call(s)`);

  // ——— what must hold ———
  const rec = summary.record;
  const [old, successor] = rec.nodes['summarize']?.attempts ?? [];
  check.that(summary.state === 'completed', `research: state ${summary.state}, not completed`);
  check.that(summary.revision === 2 && rec.revision === 2, `research: revision ${summary.revision}, not 2`);
  check.that(JSON.stringify(rec.revisions.map((r) => r.text)) === JSON.stringify([GOAL, CORRECTION]), 'research: the revisions are not [goal, correction]');
  check.that(update.kind === 'correction' && update.revision === 2 && update.by === 'user' && JSON.stringify(update.affects) === JSON.stringify(['summarize', 'verify']), `research: update record ${JSON.stringify(update)}`);
  check.that(summary.changed.length === 1 && summary.changed[0]?.kind === 'correction', 'research: summary.changed is not the one correction');
  for (const id of ['retrieve', 'summarize', 'verify']) check.that(rec.nodes[id]?.state === 'completed', `research: node ${id} is ${rec.nodes[id]?.state}, not completed`);

  // The superseded attempt: a cancel request the agent never confirmed, its late result rejected.
  check.that(rec.nodes['summarize']?.attempts.length === 2, `research: summarize has ${rec.nodes['summarize']?.attempts.length} attempts, not 2`);
  check.that(old?.taskId === oldTask && old.revision === 1, 'research: the first summarize attempt is not the task that was running under revision 1');
  check.that(old?.adopted !== true && (old?.rejectedReason ?? '') !== '', `research: the old summarize task was adopted or has no rejected reason (${old?.rejectedReason})`);
  check.that(old?.taskState === 'completed', `research: the old summarize task's late result was not seen (task state ${old?.taskState})`);
  check.that(
    old?.cancel?.by === 'user' && old.cancel.outcome === 'ignored' && old.cancel.state === 'completed' && old.cancel.confirmedAt === undefined,
    `research: the old task's cancel is ${JSON.stringify(old?.cancel)}, not requested by the user and ignored (the task completed instead)`,
  );
  check.that(summarizing.tasks.get(oldTask)?.state === 'completed', `research: the summarizer has the old task ${summarizing.tasks.get(oldTask)?.state}, not completed (it ignores cancel)`);
  check.that(events.some((e) => e.type === 'late-result' && e.node === 'summarize' && e.taskId === oldTask), 'research: no late-result event for the old summarize task');
  check.that(summary.unresolved.length === 0, `research: unresolved is ${JSON.stringify(summary.unresolved)}, not empty (the ignored cancel's task ended)`);

  // The successor: revision 2, referencing the old task, in the same context — and its result is the one used.
  check.that(successor?.revision === 2 && successor.adopted === true, 'research: the successor summarize attempt is not revision 2 and adopted');
  check.that(successor?.referenceTaskIds?.includes(oldTask) === true, 'research: the successor does not reference the old task');
  const sent = summarizing.tasks.get(successor?.taskId ?? '')?.history[0];
  check.that(sent?.referenceTaskIds?.includes(oldTask) === true, 'research: the summarizer did not receive referenceTaskIds to the old task');
  check.that(sent?.metadata?.['a2a-tether/revision'] === 2 && sent.contextId === flow.contextId, 'research: the successor was not sent under revision 2 in the workflow context');
  check.that(!summary.results.some((r) => r.taskId === oldTask), 'research: the old task is in the results');
  check.that(!summary.results.some((r) => textOfResult(r).includes('general-audience summary')), 'research: the rejected draft reached the results');
  check.that(summary.results.find((r) => r.node === 'summarize')?.taskId === successor?.taskId, 'research: the summarize result is not the successor');
  check.that(retrieval.tasks.list().length === 1, `research: retrieval ran ${retrieval.tasks.list().length} tasks (the correction did not affect it)`);
  check.that(summary.completedBeforeChange.some((c) => c.startsWith('retrieve:') && c.endsWith('kept')), 'research: completedBeforeChange does not keep the retrieval');

  // The verification hop published the report exactly once, from the revision-2 summary.
  check.that(publishing.count(PUBLISH_KEY) === 1 && publishing.effects.length === 1, `research: publish performed ${publishing.count(PUBLISH_KEY)} time(s) (${publishing.effects.length} effects), not once`);
  const published = String(publishing.effects[0]?.input ?? '');
  check.that(published.includes('biologist summary') && published.includes(CORRECTION) && !published.includes('general-audience'), `research: what was published is not the revision-2 summary: "${published}"`);
  const sends = rec.ledger.filter((e) => e.operation === 'SendMessage');
  check.that(sends.length === 4 && sends.every((e) => e.outcome === 'confirmed-success'), `research: ${sends.length} sends in the ledger (not 4 confirmed: retrieve, summarize ×2, verify)`);
  check.that(rec.ledger.filter((e) => e.operation === 'CancelTask' && e.node === 'summarize').length === 1, 'research: not exactly one CancelTask for summarize in the ledger');

  // The gate, and the orchestrator's own action.
  check.that(isTetherError(refusal) && refusal.code === 'SUPERSEDED' && !stalePerformed, `research: an action of revision 1 was not refused (${String(refusal)})`);
  check.that(rec.ledger.find((e) => e.operation === 'publish-draft')?.outcome === 'refused', 'research: the refused action is not in the ledger as refused');
  const notified = rec.ledger.find((e) => e.key === NOTIFY_KEY);
  check.that(notified?.outcome === 'confirmed-success' && notified.history.map((h) => h.outcome).join(',') === 'intended,unknown,confirmed-success', `research: notify ledger entry ${JSON.stringify(notified?.history)}`);
  check.that(notifications.effects.length === 1 && notifications.calls.length === 1 && receipt.key === NOTIFY_KEY, 'research: the notification was not performed exactly once (looked up, not re-sent)');

  checkCosts(check, 'research', summary, agents);
  const persisted = await store.load(flow.id);
  check.that(persisted?.state === 'completed' && persisted.revision === 2 && persisted.nodes['summarize']?.attempts[0]?.adopted !== true, 'research: the stored record is not the completed revision-2 workflow');
  return summary;
}

// ————— 2. a translation the user cancels —————

async function translation(store: WorkflowStore, check: Checks): Promise<WorkflowSummary> {
  await using extractor = await startTestAgent({ versions: ['1.0'], scenarios: { echo: extract } });
  await using translator = await startTestAgent({ versions: ['1.0'], scenarios: { echo: translate } });
  const agents = { extractor, translator };
  const clients = { extractor: await connect(extractor.url, { cardCache: false }), translator: await connect(translator.url, { cardCache: false }) };

  log('\n── 2. translation: extract → translate (hangs) → proofread (delegated by translate); the user cancels translate');
  const started = Date.now();
  const flow = await startWorkflow({
    id: 'translate-otters',
    goal: 'A French edition of the abstract',
    store,
    cancelWaitMs: 1_000,
    agents: clients,
    hops: [
      { id: 'extract', agent: 'extractor', input: () => 'extract the abstract of the published report' },
      { id: 'translate', agent: 'translator', dependsOn: ['extract'], input: ({ results }) => `translate to French: ${results['extract']?.text ?? ''}` },
      { id: 'proofread', agent: 'translator', parent: 'translate', dependsOn: ['translate'], input: ({ results }) => `proofread: ${results['translate']?.text ?? ''}` },
    ],
  });
  const following = follow(flow, started);
  const task = await untilRunning(flow, 'translate');
  await sleep(150);
  const reason = 'the French edition was dropped';
  const records = await flow.cancel({ node: 'translate', by: 'user', reason });
  const summary = await flow.done();
  await following;
  printSummary(summary);

  const rec = summary.record;
  const t = records['translate'];
  const p = records['proofread'];
  log(`   cancel records: translate ${JSON.stringify(t)}; proofread ${JSON.stringify(p)}`);
  check.that(summary.state === 'partial', `translation: state ${summary.state}, not partial`);
  check.that(rec.cancel === undefined, 'translation: a node cancel was recorded as a workflow cancel');
  check.that(t?.by === 'user' && t.reason === reason && t.outcome === 'confirmed' && t.state === 'canceled' && t.confirmedAt !== undefined, `translation: the translate cancel is ${JSON.stringify(t)}, not confirmed by the agent`);
  check.that(t !== undefined && t.confirmedAt !== undefined && t.requestedAt <= t.confirmedAt, 'translation: the cancel was confirmed before it was requested');
  check.that(p?.by === 'user' && p.reason === reason && p.outcome === 'not-started', `translation: the proofread cancel is ${JSON.stringify(p)}, not "not-started"`);
  check.that(rec.nodes['translate']?.state === 'canceled' && rec.nodes['proofread']?.state === 'canceled' && rec.nodes['extract']?.state === 'completed', 'translation: node states are not extract completed, translate and proofread canceled');
  check.that(translator.tasks.get(task)?.state === 'canceled' && translator.tasks.list().length === 1, 'translation: the translator does not have exactly one task, canceled');
  check.that(rec.nodes['translate']?.attempts[0]?.cancel?.outcome === 'confirmed', 'translation: the stored cancel record is not confirmed');
  check.that(summary.unresolved.length === 0, `translation: unresolved ${JSON.stringify(summary.unresolved)}`);
  check.that(summary.results.some((r) => r.node === 'translate' && r.label === 'incomplete'), 'translation: the partial translation is not kept as incomplete');
  checkCosts(check, 'translation', summary, agents);
  return summary;
}

async function main(): Promise<void> {
  const watchdog = setTimeout(() => {
    console.error('node-orchestrator: FAILED — still running after 20 s');
    process.exit(1);
  }, 20_000);
  watchdog.unref();
  const dir = await mkdtemp(join(tmpdir(), 'tether-orchestrator-'));
  const check = new Checks();
  const started = Date.now();
  try {
    const store = createFileWorkflowStore(dir);
    log(`workflow store: ${dir}`);
    const first = await research(store, check);
    const second = await translation(store, check);
    const stored = await store.list();
    check.that(JSON.stringify(stored) === JSON.stringify(['research-otters', 'translate-otters']), `the store lists ${JSON.stringify(stored)}`);
    if (check.failed.length > 0) {
      console.error(`node-orchestrator: FAILED (${check.failed.length} of ${check.count} checks)\n${check.failed.join('\n')}`);
      process.exitCode = 1;
      return;
    }
    console.log(
      `${quiet ? '' : '\n'}node-orchestrator: ok (${check.count} checks in ${Date.now() - started} ms; research ${first.state} at revision ${first.revision}, late result rejected, published once, cost ${usd(first.cost.total)}; translation ${second.state}, cancel confirmed)`,
    );
  } finally {
    clearTimeout(watchdog);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
