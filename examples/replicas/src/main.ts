// Scale-out with @a2a-tether/node: three orchestrator replicas — three OS processes running replica.ts —
// share one Redis, behind one load balancer for their push receivers.
//
//                                   ┌──▶ replica-a ──┐
//   agent ── push ──▶ round-robin ──┼──▶ replica-b ──┼── Redis (task leases, workflow leases, push relay)
//   (testkit)          proxy        └──▶ replica-c ──┘
//
//   1. Pushes across replicas. Each replica starts tasks with `delivery: 'push'` and a safety poll of ten
//      minutes, so only pushes can finish them in time. The proxy sends each push to the next replica in
//      turn: two in three land on a replica that does not follow the task, which verifies it and hands it
//      to the one that does, through Redis. Checked: every task completed with the agent's exact
//      artifact, by push alone; pushes were handed over between the replicas, and every one arrived.
//   2. A workflow taken over after its driver dies. Replica A starts a three-hop workflow
//      (gather → draft → review); while `draft` runs at the agent (held there), this script kills
//      replica A with SIGKILL. Once A's lease lapses, another replica's `takeOverWorkflows()` picks the
//      workflow up from Redis, follows the running draft task by its id, and finishes. Checked: the
//      workflow completed with the right report, each hop's message reached the agent exactly once.
//
// It exits non-zero on any mismatch, and kills every process it started (also on failure, and after
// 60 s at most). `--quiet` prints one line. Needs `redis-server` on the PATH.
import { randomBytes } from 'node:crypto';
import { createRedisWorkflowStore } from '@a2a-tether/node/redis';
import { redisServerAvailable, startRedisServer, type TestTaskRecord } from '@a2a-tether/testkit';
import { expectedReport, startExampleAgent, type ExampleAgent } from './agent.js';
import { LEASE_MS, PUSH_TOKEN_ENV, SAFETY_POLL_MS, WORKFLOW_GOAL, WORKFLOW_ID } from './protocol.js';
import { startReplica, type MessageOf, type ReplicaProcess } from './replica-process.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin.js';

const REPLICAS = ['replica-a', 'replica-b', 'replica-c'];
const TASKS_PER_REPLICA = 6;
const TIMEOUT_MS = 60_000;
const HOPS = ['gather', 'draft', 'review'];

const quiet = process.argv.includes('--quiet');
const log = (line = ''): void => {
  if (!quiet) console.log(line);
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const textOf = (task: TestTaskRecord | undefined): string =>
  (task?.artifacts ?? []).flatMap((a) => a.parts).map((p) => (p.kind === 'text' ? p.text : '')).join('');
const countBy = (values: readonly number[]): string =>
  [...new Set(values)].sort().map((v) => `${values.filter((x) => x === v).length}× ${v}`).join(', ');

// ————— without redis-server: skipped (a clear line), or failed under CI —————
if (!redisServerAvailable()) {
  const why = 'redis-server was not found on the PATH (install it, e.g. `apt-get install -y redis-server`, or set TETHER_REDIS_SERVER to its path)';
  if (process.env['CI'] === 'true') {
    console.error(`replicas: FAILED — ${why}; it is required when CI=true`);
    process.exit(1);
  }
  console.log(`replicas: skipped — ${why}`);
  process.exit(0);
}

// ————— checks, and everything to stop on the way out —————
const problems: string[] = [];
let checks = 0;
function check(ok: boolean, what: string): void {
  if (ok) checks++;
  else problems.push(what);
  if (!quiet && !ok) console.log(`   ✗ ${what}`);
}

const cleanups: Array<() => Promise<unknown>> = [];
let cleaning: Promise<void> | undefined;
/** Stops everything started so far, the last started first; once, however many times it is called. */
const cleanUp = (): Promise<void> =>
  (cleaning ??= (async () => {
    for (const stop of cleanups.reverse()) await stop().catch(() => undefined);
  })());
const timer = setTimeout(() => {
  console.error(`replicas: FAILED — not done within ${TIMEOUT_MS / 1000} s; stopping every process it started`);
  void cleanUp().finally(() => process.exit(1));
}, TIMEOUT_MS);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void cleanUp().finally(() => process.exit(130)));

interface Setup {
  agent: ExampleAgent;
  redisUrl: string;
  proxy: RoundRobinProxy;
  replicas: ReplicaProcess[];
}

/** Redis, the agent, the proxy, and the three replica processes (each reporting its receiver's port). */
async function setUp(): Promise<Setup> {
  const redis = await startRedisServer(); // 127.0.0.1, a free port, no persistence
  cleanups.push(() => redis.stop());
  const agent = await startExampleAgent();
  cleanups.push(() => agent.agent.close());
  const proxy = await startRoundRobinProxy();
  cleanups.push(() => proxy.close());
  log(`redis-server ${redis.url}; agent ${agent.agent.url}; push URL (the round-robin proxy) ${proxy.url}`);

  // The receiver-wide push secret: the same on every replica, from the environment (never a default).
  const pushToken = randomBytes(24).toString('base64url');
  const replicas = REPLICAS.map((name) => startReplica(name, [agent.agent.url, redis.url, proxy.url], { [PUSH_TOKEN_ENV]: pushToken }));
  cleanups.push(() => Promise.all(replicas.map((replica) => replica.stop())));
  for (const replica of replicas) {
    const ready = await replica.waitFor('ready', 'its ready line');
    proxy.targets.push(ready.port);
    log(`${replica.name}: pid ${ready.pid}, push receiver on 127.0.0.1:${ready.port}`);
  }
  return { agent, redisUrl: redis.url, proxy, replicas };
}

/** Part 1: tasks on every replica, finished by pushes that mostly land on another replica. */
async function pushesAcrossReplicas({ agent, proxy, replicas }: Setup): Promise<string> {
  log(`\n── 1. pushes across replicas: ${TASKS_PER_REPLICA} tasks on each replica, delivery 'push', safety poll ${SAFETY_POLL_MS / 60_000} min`);
  for (const replica of replicas) replica.send(`tasks ${TASKS_PER_REPLICA}`);
  await Promise.all(replicas.map((replica) => replica.waitFor('tasks-done', 'the end of its tasks')));

  const tasks = replicas.flatMap((replica) => replica.messages.filter((m): m is MessageOf<'task'> => m.type === 'task'));
  check(tasks.length === REPLICAS.length * TASKS_PER_REPLICA, `${REPLICAS.length * TASKS_PER_REPLICA} tasks reported, got ${tasks.length}`);
  for (const task of tasks) {
    const truth = agent.agent.tasks.get(task.taskId);
    const label = `${task.replica} task ${task.taskId || '(none)'}`;
    check(task.state === 'completed' && truth?.state === 'completed', `${label}: ${task.state}${task.error ? ` (${task.error})` : ''}, at the agent ${truth?.state ?? 'unknown'}`);
    check(task.text !== '' && task.text === textOf(truth), `${label}: artifact "${task.text}", the agent's "${textOf(truth)}"`);
    // Followed by push alone: waiting for pushes, never a stream; and done long before a safety poll.
    check(task.connections.includes('waiting-push') && !task.connections.includes('live'), `${label}: connection states ${task.connections.join(', ')} (not by push alone)`);
    check(task.ms < SAFETY_POLL_MS / 10, `${label}: took ${task.ms} ms`);
  }
  const ms = tasks.map((t) => t.ms).sort((a, b) => a - b);
  for (const replica of replicas) {
    const own = tasks.filter((t) => t.replica === replica.name);
    log(`${replica.name}: ${own.filter((t) => t.state === 'completed').length}/${own.length} completed, e.g. ${own[0]?.taskId} "${own[0]?.text}"`);
  }
  log(`all ${tasks.length} tasks ended ${ms[0]}–${ms.at(-1)} ms after they were started (median ${ms[Math.floor(ms.length / 2)]} ms)`);

  // The agent's last pushes (after a task ended) may still be on their way: wait until the proxy is quiet
  // and every push handed over has arrived, then read every receiver's counters.
  let stats: Array<MessageOf<'stats'>> = [];
  for (let seen = -1, round = 0; round < 40; round++) {
    const forwarded = proxy.statuses.length;
    stats = await Promise.all(replicas.map((replica) => replica.ask('stats', 'stats', 'its push stats')));
    const handed = stats.reduce((n, s) => n + s.stats.handedOver, 0);
    const arrived = stats.reduce((n, s) => n + s.stats.relayedIn, 0);
    if (handed === arrived && forwarded === seen) break;
    seen = forwarded;
    await sleep(250);
  }
  const handedOver = stats.reduce((n, s) => n + s.stats.handedOver, 0);
  const relayedIn = stats.reduce((n, s) => n + s.stats.relayedIn, 0);
  for (const { replica, stats: s } of stats) log(`${replica}: handed ${s.handedOver} pushes to another replica, got ${s.relayedIn} from the others`);
  const accepted = proxy.statuses.filter((s) => s === 200 || s === 202).length;
  log(`the proxy forwarded ${proxy.statuses.length} pushes, answered ${countBy(proxy.statuses)}`);
  if (proxy.statuses.includes(410)) log(`   (410: a push that came after its task's follow ended — the agent's last pushes of a task the client already read)`);
  check(handedOver > 0, 'no push was handed to another replica');
  check(relayedIn === handedOver, `${handedOver} pushes handed over, but ${relayedIn} arrived`);
  for (const { replica, stats: s } of stats) check(s.handedOver > 0 && s.relayedIn > 0, `${replica} handed ${s.handedOver} and got ${s.relayedIn} pushes (both should be > 0)`);
  // Accepted, or after its task's follow ended; never refused for coming early (404, 401) nor lost for want of a replica (429, 5xx).
  check(proxy.statuses.every((s) => [200, 202, 410].includes(s)), `the agent's pushes were answered ${countBy(proxy.statuses)}`);
  return `${tasks.length} tasks on ${REPLICAS.length} replica processes completed by push alone; ${handedOver} of ${accepted} accepted pushes were handed to another replica, all arrived`;
}

/** Part 2: replica A drives a workflow and is killed mid-hop; another replica takes it over. */
async function workflowTakeover({ agent, redisUrl, replicas }: Setup): Promise<string> {
  const [a, ...others] = replicas as [ReplicaProcess, ...ReplicaProcess[]];
  log(`\n── 2. a workflow taken over after its driver dies: ${HOPS.join(' → ')} on the agent, leases of ${LEASE_MS} ms`);
  a.send('workflow');
  const running = await a.waitFor('workflow-node', "the draft hop's task (from replica-a)", { match: (m) => m.node === 'draft' && m.state === 'running' && m.taskId !== undefined });
  const draftTask = running.taskId ?? '';
  log(`${a.name} drives ${WORKFLOW_ID}: gather completed, draft running as task ${draftTask} (held at the agent)`);

  // What Redis says: A holds the workflow's lease.
  const store = await createRedisWorkflowStore({ url: redisUrl, leaseMs: LEASE_MS });
  cleanups.push(() => store.close());
  check((await store.leaseHolder(WORKFLOW_ID)) === a.name, `the workflow's lease is held by ${await store.leaseHolder(WORKFLOW_ID)}, not ${a.name}`);

  check(agent.agent.tasks.get(draftTask)?.state === 'working', `the draft task is ${agent.agent.tasks.get(draftTask)?.state} at the agent when ${a.name} is killed, not working`);
  const killedAt = performance.now();
  await a.kill();
  log(`${a.name} killed (SIGKILL) while the draft hop runs`);

  // The first replica that reports taking the workflow over.
  const taken = await Promise.any(others.map(async (replica) => ({ replica, message: await replica.waitFor('took-over', 'a takeover', { timeoutMs: 20_000 }) })));
  const takeoverMs = performance.now() - killedAt;
  const taker = taken.replica;
  log(`${taker.name} took ${WORKFLOW_ID} over ${Math.round(takeoverMs)} ms after the kill (lease ${LEASE_MS} ms, each replica looks every ${LEASE_MS / 4} ms)`);
  check((await store.leaseHolder(WORKFLOW_ID)) === taker.name, `after the takeover the lease is held by ${await store.leaseHolder(WORKFLOW_ID)}, not ${taker.name}`);

  // It follows the draft task by its id (sending nothing again); then the agent lets the draft finish.
  await taker.waitFor('workflow-node', `${taker.name} following the draft task ${draftTask}`, { match: (m) => m.node === 'draft' && m.state === 'running' && m.taskId === draftTask });
  log(`${taker.name} follows the draft task ${draftTask} by its id; the agent now lets it finish`);
  agent.releaseDraft();
  const done = await taker.waitFor('workflow-done', 'the end of the workflow');
  const doneMs = performance.now() - killedAt;
  log(`${taker.name}: workflow ${done.state} ${Math.round(doneMs)} ms after the kill; report "${done.result}"`);
  log(done.tree.replace(/^/gm, '   '));

  // Checks: the end, the report, and each hop sent once, counted at the agent.
  check(done.state === 'completed', `the workflow ended ${done.state}`);
  check(done.result === expectedReport(WORKFLOW_GOAL), `the report is "${done.result}", not "${expectedReport(WORKFLOW_GOAL)}"`);
  const nodes = agent.hopMessages.map((m) => m.node);
  check(JSON.stringify(nodes) === JSON.stringify(HOPS), `the agent received the hops' messages ${JSON.stringify(nodes)}, not each of ${JSON.stringify(HOPS)} once`);
  check(new Set(agent.hopMessages.map((m) => m.messageId)).size === agent.hopMessages.length, 'a hop message reached the agent twice (the same message id)');
  check(agent.hopMessages[1]?.taskId === draftTask, `the draft hop ran as task ${agent.hopMessages[1]?.taskId}, not ${draftTask}`);
  const takers = others.filter((replica) => replica.messages.some((m) => m.type === 'took-over'));
  check(takers.length === 1, `${takers.length} replicas took the workflow over (${takers.map((r) => r.name).join(', ')}), not one`);

  // The record in Redis: completed, one attempt per hop, each send confirmed once; the lease given back.
  const record = await store.load(WORKFLOW_ID);
  check(record?.state === 'completed', `the stored workflow is ${record?.state}`);
  for (const hop of HOPS) {
    const node = record?.nodes[hop];
    check(node?.state === 'completed' && node.attempts.length === 1, `hop ${hop}: ${node?.state} after ${node?.attempts.length} attempts (want completed, 1)`);
  }
  const sends = (record?.ledger ?? []).filter((entry) => entry.operation === 'SendMessage');
  check(JSON.stringify(sends.map((e) => [e.node, e.outcome])) === JSON.stringify(HOPS.map((h) => [h, 'confirmed-success'])), `the ledger's sends: ${JSON.stringify(sends.map((e) => [e.node, e.outcome]))}`);
  let holder = await store.leaseHolder(WORKFLOW_ID);
  for (let i = 0; i < 50 && holder !== undefined; i++) {
    await sleep(20);
    holder = await store.leaseHolder(WORKFLOW_ID);
  }
  check(holder === undefined, `the workflow's lease is still held by ${holder} after it ended`);
  log(`each hop's message reached the agent once: ${agent.hopMessages.map((m) => `${String(m.node)} (task ${m.taskId.slice(0, 8)}…)`).join(', ')}`);
  return `workflow taken over by ${taker.name} ${seconds(takeoverMs)} after ${a.name} was killed and completed, each hop sent once`;
}

const started = performance.now();
let said: string[] = [];
try {
  const setup = await setUp();
  said.push(await pushesAcrossReplicas(setup));
  said.push(await workflowTakeover(setup));
} catch (error) {
  const reasons = error instanceof AggregateError ? error.errors : [error];
  for (const reason of reasons) problems.push(`the run stopped: ${reason instanceof Error ? reason.message : String(reason)}`);
  said = [];
} finally {
  clearTimeout(timer);
  await cleanUp();
}

if (problems.length > 0) {
  console.error(`replicas: FAILED (${problems.length} of ${checks + problems.length} checks)\n  ${problems.join('\n  ')}`);
  process.exitCode = 1;
} else {
  log();
  console.log(`replicas: ok (${said.join('; ')}; ${checks} checks in ${seconds(performance.now() - started)})`);
}
