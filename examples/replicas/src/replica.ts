// One orchestrator replica: a separate OS process, started by main.ts as
//
//   replica.ts <name> <agentUrl> <redisUrl> <pushUrl>        (PUSH_TOKEN in the environment)
//
// Every replica runs exactly this, as N copies of one service behind a load balancer would:
//
//   - a push receiver (`createPushReceiver`) served by node:http on 127.0.0.1, port 0;
//   - a Redis task store and a Redis workflow store (`@a2a-tether/node/redis`), shared by all replicas;
//   - `connect(agentUrl, { store, push: { receiver, url: pushUrl } })`, where `pushUrl` is the load balancer
//     (main.ts's round-robin proxy), not this replica's own port. Nothing else is wired: because the store
//     is a Redis task store, `connect()` shares this receiver with the other replicas through Redis by
//     itself (the store's push relay), so a push that lands here for another replica's task is verified
//     here and handed to that replica;
//   - `takeOverWorkflows()`: drives any unfinished workflow nobody holds — that of a replica that died.
//
// It takes commands on stdin (see protocol.ts) and reports on stdout, one JSON object per line.
import { writeSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { connect, createPushReceiver, textOf } from '@a2a-tether/node';
import { formatTree, startWorkflow, takeOverWorkflows, type HopInput, type HopSpec, type Workflow } from '@a2a-tether/node/orchestrate';
import { createRedisTaskStore, createRedisWorkflowStore } from '@a2a-tether/node/redis';
import { LEASE_MS, PUSH_TOKEN_ENV, SAFETY_POLL_MS, WORKFLOW_GOAL, WORKFLOW_ID, type ReplicaMessage } from './protocol.js';

const [name = '', agentUrl = '', redisUrl = '', pushUrl = ''] = process.argv.slice(2);
if (!name || !agentUrl || !redisUrl || !pushUrl) throw new Error('usage: replica.ts <name> <agentUrl> <redisUrl> <pushUrl>');
const pushToken = process.env[PUSH_TOKEN_ENV];
if (!pushToken) throw new Error(`set ${PUSH_TOKEN_ENV}: the receiver-wide push secret, the same on every replica`);
// A replica never outlives the example, whatever happens to main.ts.
setTimeout(() => process.exit(3), 120_000).unref();

/** One line to main.ts. Written synchronously, so a line is out before a SIGKILL can cut it. */
type WithoutReplica<M> = M extends unknown ? Omit<M, 'replica'> : never;
type Report = WithoutReplica<ReplicaMessage>;
const say = (message: Report): void => void writeSync(1, `${JSON.stringify({ ...message, replica: name })}\n`);
const messageOf = (error: unknown): string => (error instanceof Error ? `${(error as { code?: string }).code ?? error.name}: ${error.message}` : String(error));

// ————— the replica's wiring: what a production replica does —————
const receiver = createPushReceiver({ token: pushToken });
const server = createServer(receiver.nodeHandler);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const taskStore = await createRedisTaskStore({ url: redisUrl, leaseMs: LEASE_MS });
const workflowStore = await createRedisWorkflowStore({ url: redisUrl, leaseMs: LEASE_MS });
const agent = await connect(agentUrl, {
  store: taskStore,
  leaseOwner: name, // who holds a lease, as Redis shows it (unique per process)
  push: { receiver, url: pushUrl, safetyPollMs: SAFETY_POLL_MS },
});

// ————— the workflow: three hops on one agent, each using the result before it —————
function resultOf({ results }: HopInput, node: string): string {
  const text = results[node]?.text;
  if (text === undefined) throw new Error(`no result of ${node}`);
  return text;
}
const HOPS: HopSpec[] = [
  { id: 'gather', agent: 'worker', input: ({ revision }) => `gather ${revision.text}` },
  { id: 'draft', agent: 'worker', dependsOn: ['gather'], input: (context) => `draft ${resultOf(context, 'gather')}` },
  { id: 'review', agent: 'worker', dependsOn: ['draft'], input: (context) => `review ${resultOf(context, 'draft')}` },
];

/** Reports a workflow this replica drives: each node change, and how it ended. */
function drive(workflow: Workflow): void {
  void (async () => {
    for await (const event of workflow.events()) {
      if (event.type === 'node') say({ type: 'workflow-node', node: event.node, state: event.state, taskId: event.taskId });
    }
  })().catch((error: unknown) => say({ type: 'error', error: `workflow events: ${messageOf(error)}` }));
  workflow.done().then(
    (summary) => {
      const result = summary.results.find((r) => r.node === 'review');
      say({ type: 'workflow-done', state: summary.state, tree: formatTree(summary), result: result?.artifacts.flatMap((a) => a.artifact.parts).map((p) => (p.kind === 'text' ? p.text : '')).join('') ?? '' });
    },
    // LEASE_LOST: this replica stopped driving it (it was cut off from Redis); another one takes over.
    (error: unknown) => say({ type: 'workflow-lost', error: messageOf(error) }),
  );
}

// Every replica looks for workflows to take over, four times per lease: a workflow whose driver died is
// picked up once its lease lapses (at most LEASE_MS after the driver's last renewal, plus one look).
const takeover = takeOverWorkflows({
  store: workflowStore,
  leaseOwner: name,
  everyMs: LEASE_MS / 4,
  options: (record) => ({ goal: record.revisions[0]?.text ?? '', hops: HOPS, agents: { worker: agent } }),
  onWorkflow: (workflow) => {
    say({ type: 'took-over', workflow: workflow.id });
    drive(workflow);
  },
  onError: (error, id) => say({ type: 'error', error: `takeover of ${id}: ${messageOf(error)}` }),
});

// ————— the commands —————

/** Starts `count` tasks by push and follows each to its end; reports each, then `tasks-done`. */
async function runTasks(count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async (_, n) => {
      const started = performance.now();
      const connections = new Set<string>();
      try {
        // `stream …` is a testkit scenario: two working statuses and an artifact in three chunks, 150 ms
        // apart — seven events, each one push. `delivery: 'push'` insists on push: no stream is opened.
        const handle = await agent.start(`stream updates=2 chunks=3 delayMs=150 from=${name}#${n}`, { delivery: 'push' });
        for await (const event of handle.events()) if (event.type === 'connection') connections.add(event.state);
        const task = await handle.done();
        say({ type: 'task', taskId: task.id, state: task.status.state, ms: Math.round(performance.now() - started), text: textOf(task), connections: [...connections] });
      } catch (error) {
        say({ type: 'task', taskId: '', state: 'error', ms: Math.round(performance.now() - started), text: '', connections: [...connections], error: messageOf(error) });
      }
    }),
  );
  say({ type: 'tasks-done' });
}

async function shutDown(): Promise<void> {
  takeover.stop();
  receiver.close();
  server.closeAllConnections();
  server.close();
  await Promise.allSettled([taskStore.close(), workflowStore.close()]);
  process.exit(0);
}

const commands = createInterface({ input: process.stdin });
commands.on('line', (line) => {
  const [command, arg] = line.trim().split(' ');
  if (command === 'tasks') void runTasks(Number(arg));
  else if (command === 'stats') say({ type: 'stats', stats: receiver.stats() });
  else if (command === 'workflow') {
    // startWorkflow takes the workflow's lease first: while this replica renews it, nobody else drives it.
    startWorkflow({ id: WORKFLOW_ID, goal: WORKFLOW_GOAL, hops: HOPS, agents: { worker: agent }, store: workflowStore, leaseOwner: name }).then(drive, (error: unknown) =>
      say({ type: 'error', error: `startWorkflow: ${messageOf(error)}` }),
    );
  } else if (command === 'exit') void shutDown();
});
// stdin closes when main.ts goes away, however it went: never outlive it.
commands.on('close', () => void shutDown());

say({ type: 'ready', pid: process.pid, port: (server.address() as AddressInfo).port });
