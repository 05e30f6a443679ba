import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, defaultNodeFetch } from '@a2a-tether/node';
import type { A2AClient, Binding, FetchLike, Message, Part, ResilienceOptions, Task } from '@a2a-tether/node';
import { WORKFLOW_METADATA, formatTree, startWorkflow } from '@a2a-tether/core/orchestrate';
import type { AttemptRecord, HopSpec, Workflow, WorkflowEvent, WorkflowSummary } from '@a2a-tether/core/orchestrate';
import { startOfficialV03Server } from '../src/official-v03-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';
import { startVoltagentServer } from '../src/voltagent-server.js';
import type { VoltagentServer } from '../src/voltagent-server.js';

// The same workflow (@a2a-tether/core/orchestrate) runs against the real servers, not the testkit:
// @a2a-js/sdk 1.3.0 (A2A v1.0, over JSON-RPC and HTTP+JSON), @a2a-js/sdk 0.3.14 (A2A v0.3) and
// @voltagent/a2a-server 2.0.3 (its own v0.3 JSON-RPC, on a scripted model).
//
// The official servers run the scenario grammar of src/scenario.ts: `work <text>` completes a task
// with the artifact `done(<text>)`, so a hop's output shows what it was given; `slow` works until it
// is cancelled; `stubborn` takes a cancel request and works on; `input` pauses at input-required and
// finishes with `got: <answer>`. VoltAgent's model
// answers `echo: <text>` in the final status message (it makes no artifacts).
//
// What these servers do, as asserted below:
// - contextId: all three keep the contextId the client sends. A task is created in the workflow's
//   context (the official servers take `message.contextId` before minting one, VoltAgent too).
// - metadata: the hop's message metadata (`a2a-tether/workflow|node|revision`) is stored with the user
//   message in the task's history, but never echoed on the task, its status message or artifacts.
//   So the orchestrator's revision check (an echoed `a2a-tether/revision`) never applies here.
// - cancel: on both official SDKs CancelTask is synchronous. The handler calls the executor's
//   `cancelTask` and then holds the request until the task publishes a terminal event: `canceled`
//   (answered with the canceled task, so the cancel is `confirmed` by the answer itself) or, for an
//   executor that ignores the request, whatever the task ends in (answered TaskNotCancelable). So a
//   workflow never sees `requested` here: `cancel()` waits for the task's end, however far beyond
//   `cancelWaitMs` — up to the client's call timeout (past it, the cancel is recorded `failed` and its
//   ledger entry `unknown`, though the server got it). The reason Tether sends as request metadata
//   (`a2a-tether/cancel-reason`) is on the wire but never reaches the agent: the SDK's
//   `AgentExecutor.cancelTask(taskId, bus)` is given the task id only.
//   The testkit agent differs: its CancelTask waits at most `cancelWaitMs` (default 100 ms) for the
//   scenario to end and then answers with the task as it is, so an agent that ignores the cancel
//   shows up there as `requested` (packages/core/test/orchestrate.test.ts) — never here.
// - pauses: both official servers stop at input-required (v0.3 ends its stream there) and take the
//   answer as a message on the same task and context; answer() sends it without workflow metadata.

const TEST_TIMEOUT = 20_000;

/** Small budgets, so that a follow which cannot finish fails well within TEST_TIMEOUT. */
const RESILIENCE: Partial<ResilienceOptions> = {
  initialDelayMs: 20,
  maxDelayMs: 200,
  maxAttempts: 10,
  maxElapsedMs: 4_000,
  pollMinMs: 50,
  pollMaxMs: 200,
};

let v1: OfficialServer;
let v03: OfficialServer;
let volt: VoltagentServer;

beforeAll(async () => {
  [v1, v03, volt] = await Promise.all([startOfficialV1Server(), startOfficialV03Server(), startVoltagentServer({ deltaDelayMs: 5 })]);
});
afterAll(async () => {
  await Promise.all([v1?.close(), v03?.close(), volt?.close()]);
});

const flows: Workflow[] = [];
afterEach(() => {
  // A workflow a failed assertion left running stops following its tasks (nothing is cancelled).
  for (const flow of flows.splice(0)) flow.stop();
});

/** One HTTP request as Tether handed it to fetch. */
interface Recorded {
  method: string;
  url: string;
  body: unknown;
}

/** Node's fetch, recording every request into `log`. */
function recordingFetch(log: Recorded[]): FetchLike {
  const base = defaultNodeFetch();
  return (input, init) => {
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    log.push({ method: init?.method ?? 'GET', url: String(input), body });
    return base(input, init);
  };
}

function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((part) => (part.kind === 'text' ? part.text : '')).join('');
}

function artifactText(task: Task): string {
  return task.artifacts.map((artifact) => textOf(artifact.parts)).join('');
}

/** A client of the official v1.0 server over one binding. */
function v1Client(binding: Binding, log?: Recorded[]): Promise<A2AClient> {
  return connect(v1.cardUrl, {
    preferredBindings: [binding],
    protocolVersions: ['1.0'],
    cardCache: false,
    resilience: RESILIENCE,
    ...(log ? { fetch: recordingFetch(log) } : {}),
  });
}

function v03Client(log?: Recorded[]): Promise<A2AClient> {
  return connect(v03.cardUrl, {
    preferredBindings: ['JSONRPC'],
    protocolVersions: ['0.3'],
    cardCache: false,
    resilience: RESILIENCE,
    ...(log ? { fetch: recordingFetch(log) } : {}),
  });
}

function voltClient(): Promise<A2AClient> {
  return connect(volt.cardUrl, { cardCache: false, resilience: RESILIENCE });
}

async function run(options: Parameters<typeof startWorkflow>[0]): Promise<Workflow> {
  const flow = await startWorkflow(options);
  flows.push(flow);
  return flow;
}

/** The attempts of a node, from the summary's record. */
function attempts(summary: WorkflowSummary, node: string): AttemptRecord[] {
  return summary.record.nodes[node]?.attempts ?? [];
}

/** The only attempt of a node (fails the test if there were more or none). */
function only(summary: WorkflowSummary, node: string): AttemptRecord {
  const list = attempts(summary, node);
  expect(list, `${node} attempts`).toHaveLength(1);
  return list[0] as AttemptRecord;
}

function adoptedText(attempt: AttemptRecord): string {
  return (attempt.artifacts ?? []).map((a) => textOf(a.artifact.parts)).join('');
}

/** The user message that created a task, as the server stored it. */
function creatingMessage(task: Task): Message {
  const first = task.history[0];
  if (first === undefined) throw new Error(`task ${task.id} has no history`);
  expect(first.role).toBe('user');
  return first;
}

/** Waits (bounded) until `check` holds for the task the server stores. */
async function until(client: A2AClient, taskId: string, check: (task: Task) => boolean, what: string, withinMs = 5_000): Promise<Task> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const task = await client.getTask(taskId, { historyLength: 100 });
    if (check(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId}: ${what} not within ${withinMs} ms (state ${task.status.state})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Reads the workflow's events until `stop` says so (or the workflow ends). */
async function watch(flow: Workflow, stop: () => boolean): Promise<void> {
  for await (const event of flow.events()) {
    if (event.type === 'done') throw new Error(`the workflow ended before expected:\n${formatTree(event.summary)}`);
    if (stop()) return;
  }
}

/**
 * A two-hop workflow whose first hop pauses (`input`) on `asker`'s server: the pause is surfaced once,
 * answered, and the answer's result flows into the summarization on the v0.3 server.
 */
async function pauseCase(id: string, asker: A2AClient, inspector: A2AClient): Promise<void> {
  const summarizer = await v03Client();
  const flow = await run({
    id,
    goal: 'g',
    agents: { asker, summarizer },
    hops: [
      { id: 'ask', agent: 'asker', input: () => 'input' },
      { id: 'summarize', agent: 'summarizer', dependsOn: ['ask'], input: ({ results }) => `work summarize ${results['ask']?.text ?? ''}` },
    ],
  });
  await watch(flow, () => flow.pauses().length > 0);
  const pauses = flow.pauses();
  expect(pauses).toHaveLength(1);
  const [pause] = pauses;
  if (pause === undefined) throw new Error('no pause');
  const taskId = flow.snapshot.nodes['ask']?.attempts[0]?.taskId;
  expect(pause).toMatchObject({ node: 'ask', agent: 'asker', taskId, state: 'input-required' });
  expect(textOf(pause.message?.parts)).toBe('need input');
  expect(flow.snapshot.nodes['ask']?.state).toBe('input-required');
  expect(flow.snapshot.nodes['summarize']?.state).toBe('pending');

  const outcomes = await flow.answer([{ pause, input: 'otters' }]);
  expect(outcomes).toEqual([{ pause: pause.id, node: 'ask', ok: true }]);
  const summary = await flow.done();
  expect(summary.state, formatTree(summary)).toBe('completed');
  expect(flow.pauses()).toEqual([]);
  expect(adoptedText(only(summary, 'ask'))).toBe('got: otters');
  expect(adoptedText(only(summary, 'summarize'))).toBe('done(summarize got: otters)');
  // Surfaced once and answered once: the reply's stream (v1.0 re-sends the Task first) is no new pause.
  const events: WorkflowEvent[] = [];
  for await (const event of flow.events()) events.push(event);
  expect(events.filter((e) => e.type === 'pause')).toHaveLength(1);
  expect(events.filter((e) => e.type === 'pause-answered')).toEqual([{ type: 'pause-answered', pause: pause.id, node: 'ask' }]);
  // One send per hop in the ledger: the answer is a reply on the same task, not a ledger action.
  expect(summary.record.ledger.map((e) => [e.operation, e.node, e.outcome])).toEqual([
    ['SendMessage', 'ask', 'confirmed-success'],
    ['SendMessage', 'summarize', 'confirmed-success'],
  ]);

  // The server's task: created in the workflow's context, the answer appended in that context. The
  // answer carries the workflow's metadata too, with the revision it answers.
  const stored = await inspector.getTask(taskId as string, { historyLength: 100 });
  expect(stored.contextId).toBe(flow.contextId);
  expect(stored.status.state).toBe('completed');
  const users = stored.history.filter((m) => m.role === 'user');
  expect(users.map((m) => [textOf(m.parts), m.contextId, m.taskId])).toEqual([
    ['input', flow.contextId, taskId],
    ['otters', flow.contextId, taskId],
  ]);
  expect(users[0]?.metadata?.[WORKFLOW_METADATA.node]).toBe('ask');
  expect(users[1]?.metadata?.[WORKFLOW_METADATA.node]).toBe('ask');
  expect(users[1]?.metadata?.[WORKFLOW_METADATA.revision]).toBe(1);
}

const v1Bindings: Array<{ binding: Binding }> = [{ binding: 'JSONRPC' }, { binding: 'HTTP+JSON' }];

describe.each(v1Bindings)('a workflow on the official servers (v1.0 over $binding)', ({ binding }) => {
  it(
    'retrieval (v1.0) → summarization (v0.3) → verification (VoltAgent): every hop completes in the workflow’s context and the data flows',
    async () => {
      const [retriever, summarizer, verifier, inspectV1, inspectV03] = await Promise.all([v1Client(binding), v03Client(), voltClient(), v1Client(binding), v03Client()]);
      const goal = `otters over ${binding}`;
      const hops: HopSpec[] = [
        { id: 'retrieve', agent: 'retrieval', input: ({ revision }) => `work retrieve ${revision.text}` },
        { id: 'summarize', agent: 'summarization', dependsOn: ['retrieve'], input: ({ results }) => `work summarize ${results['retrieve']?.text ?? '(nothing)'}` },
        { id: 'verify', agent: 'verification', dependsOn: ['summarize'], input: ({ results }) => `verify ${results['summarize']?.text ?? '(nothing)'}` },
      ];
      const flow = await run({
        id: `wf-3hop-${binding}`,
        goal,
        hops,
        agents: { retrieval: retriever, summarization: summarizer, verification: verifier },
      });
      const summary = await flow.done();
      const tree = formatTree(summary);

      expect(summary.state, tree).toBe('completed');
      expect(summary.unresolved).toEqual([]);
      expect(summary.nodes.map((n) => [n.id, n.state])).toEqual([
        ['retrieve', 'completed'],
        ['summarize', 'completed'],
        ['verify', 'completed'],
      ]);
      const retrieve = only(summary, 'retrieve');
      const summarize = only(summary, 'summarize');
      const verify = only(summary, 'verify');
      for (const a of [retrieve, summarize, verify]) {
        expect(a).toMatchObject({ state: 'completed', taskState: 'completed', adopted: true, revision: 1, taskId: expect.any(String) as string });
      }
      expect(retrieve.agentUrl).toBe(binding === 'JSONRPC' ? v1.jsonRpcUrl : v1.restUrl);
      expect(summarize.agentUrl).toBe(v03.jsonRpcUrl);
      expect(verify.agentUrl).toBe(volt.rpcUrl);

      // The data flowed: each hop's output contains what the previous hop produced.
      const retrieved = `done(retrieve ${goal})`;
      const summarized = `done(summarize ${retrieved})`;
      expect(adoptedText(retrieve)).toBe(retrieved);
      expect(adoptedText(summarize)).toBe(summarized);
      // VoltAgent answers in its final status message, with no artifact: the hop's result text is empty.
      expect(verify.artifacts).toEqual([]);
      expect(textOf(verify.statusMessage?.parts)).toBe(`echo: verify ${summarized}`);

      // What each server stored: the task in the workflow's context, created by the hop's message (its
      // input held the previous hop's artifact), the workflow metadata kept on that message only.
      const onV1 = await inspectV1.getTask(retrieve.taskId as string, { historyLength: 100 });
      const onV03 = await inspectV03.getTask(summarize.taskId as string, { historyLength: 100 });
      const onVolt = await volt.storedTask(verify.taskId as string);
      expect(onV1.contextId).toBe(flow.contextId);
      expect(onV03.contextId).toBe(flow.contextId);
      expect(onVolt?.contextId).toBe(flow.contextId);
      expect(onV1.status.state).toBe('completed');
      expect(onV03.status.state).toBe('completed');
      expect(onVolt?.status.state).toBe('completed');
      expect(artifactText(onV1)).toBe(retrieved);
      expect(artifactText(onV03)).toBe(summarized);

      const inputs: Array<[Message, string, AttemptRecord]> = [
        [creatingMessage(onV1), 'retrieve', retrieve],
        [creatingMessage(onV03), 'summarize', summarize],
      ];
      for (const [message, node, attempt] of inputs) {
        expect(message.messageId).toBe(attempt.messageId);
        expect(message.contextId).toBe(flow.contextId);
        expect(message.metadata).toEqual({
          [WORKFLOW_METADATA.workflow]: flow.id,
          [WORKFLOW_METADATA.node]: node,
          [WORKFLOW_METADATA.revision]: 1,
        });
        // First attempts reference nothing.
        expect(message.referenceTaskIds ?? []).toEqual([]);
      }
      expect(textOf(creatingMessage(onV1).parts)).toBe(`work retrieve ${goal}`);
      expect(textOf(creatingMessage(onV03).parts)).toBe(`work summarize ${retrieved}`);
      const voltInput = onVolt?.history[0];
      expect(voltInput).toMatchObject({ role: 'user', messageId: verify.messageId, contextId: flow.contextId });
      expect(voltInput?.parts[0]?.text).toBe(`verify ${summarized}`);
      expect(voltInput?.metadata).toMatchObject({ [WORKFLOW_METADATA.workflow]: flow.id, [WORKFLOW_METADATA.node]: 'verify', [WORKFLOW_METADATA.revision]: 1 });
      // No server echoes the workflow metadata on the task, its status message or artifacts.
      for (const task of [onV1, onV03]) {
        const echoed = [task.metadata, task.status.message?.metadata, ...task.artifacts.map((a) => a.metadata)];
        for (const metadata of echoed) expect(metadata?.[WORKFLOW_METADATA.revision]).toBeUndefined();
      }
      expect(onVolt?.metadata?.[WORKFLOW_METADATA.revision]).toBeUndefined();
      expect(onVolt?.status.message?.metadata?.[WORKFLOW_METADATA.revision]).toBeUndefined();

      // Every hop's message reached its agent exactly once.
      expect(v1.receivedMessageIds.filter((id) => id === retrieve.messageId)).toHaveLength(1);
      expect(v03.receivedMessageIds.filter((id) => id === summarize.messageId)).toHaveLength(1);
      expect(volt.rpcCalls.filter((call) => call.messageId === verify.messageId && call.method.startsWith('message/'))).toHaveLength(1);
      // v1.0 lists the context's tasks: only the retrieval's is on this server.
      const listed = await inspectV1.listTasks({ contextId: flow.contextId });
      expect(listed.tasks.map((t) => t.id)).toEqual([retrieve.taskId]);

      // The ledger: one confirmed SendMessage per hop, keyed by its message id, naming its task.
      expect(summary.record.ledger.map((e) => [e.operation, e.node, e.target, e.outcome, e.key, e.result])).toEqual([
        ['SendMessage', 'retrieve', 'retrieval', 'confirmed-success', retrieve.messageId, { taskId: retrieve.taskId }],
        ['SendMessage', 'summarize', 'summarization', 'confirmed-success', summarize.messageId, { taskId: summarize.taskId }],
        ['SendMessage', 'verify', 'verification', 'confirmed-success', verify.messageId, { taskId: verify.taskId }],
      ]);
      expect(summary.results.map((r) => [r.node, r.taskId, r.label])).toEqual([
        ['retrieve', retrieve.taskId, 'complete'],
        ['summarize', summarize.taskId, 'complete'],
        ['verify', verify.taskId, 'complete'],
      ]);
      expect(tree.split('\n')[0]).toMatch(new RegExp(`^workflow wf-3hop-${binding.replace('+', '\\+')} — completed, revision 1, \\d+ ms$`));
      expect(tree).toMatch(/├─ retrieve \[completed\] on retrieval/);
      expect(tree).toMatch(/├─ summarize \[completed\] on summarization/);
      expect(tree).toMatch(/└─ verify \[completed\] on verification/);
    },
    TEST_TIMEOUT,
  );

  it(
    'cancel propagates: the official servers confirm the cancel of their working hops; a hop that never ran is not-started',
    async () => {
      const v1Log: Recorded[] = [];
      const v03Log: Recorded[] = [];
      const [gatherer, scanner, summarizer, inspectV1, inspectV03] = await Promise.all([v1Client(binding, v1Log), v03Client(v03Log), v03Client(), v1Client(binding), v03Client()]);
      // `slow` works (a status and an artifact chunk every 20 ms, 1,000 steps) until it is cancelled.
      const flow = await run({
        id: `wf-cancel-${binding}`,
        goal: 'g',
        cancelWaitMs: 3_000,
        agents: { v1: gatherer, v03: scanner, summarizer },
        hops: [
          { id: 'gather', agent: 'v1', input: () => 'slow steps=1000 delayMs=20' },
          { id: 'scan', agent: 'v03', input: () => 'slow steps=1000 delayMs=20' },
          { id: 'summarize', agent: 'summarizer', dependsOn: ['gather', 'scan'], input: ({ results }) => `work summarize ${results['gather']?.text ?? ''}` },
        ],
      });
      const taskOf = (node: string): string | undefined => flow.snapshot.nodes[node]?.attempts[0]?.taskId;
      await watch(flow, () => taskOf('gather') !== undefined && taskOf('scan') !== undefined);
      const gatherTask = taskOf('gather') as string;
      const scanTask = taskOf('scan') as string;
      // Both agents are at work: their stored artifacts grow.
      await until(inspectV1, gatherTask, (t) => artifactText(t).includes('chunk-2;'), 'three chunks');
      await until(inspectV03, scanTask, (t) => artifactText(t).includes('chunk-2;'), 'three chunks');

      const records = await flow.cancel({ by: 'interop', reason: 'test' });
      expect(records['gather']).toMatchObject({ by: 'interop', reason: 'test', outcome: 'confirmed', state: 'canceled', confirmedAt: expect.any(String) as string });
      expect(records['scan']).toMatchObject({ by: 'interop', reason: 'test', outcome: 'confirmed', state: 'canceled' });
      expect(records['summarize']).toMatchObject({ by: 'interop', reason: 'test', outcome: 'not-started' });

      const summary = await flow.done();
      expect(summary.state, formatTree(summary)).toBe('canceled');
      expect(summary.record.cancel).toMatchObject({ by: 'interop', reason: 'test' });
      expect(summary.nodes.map((n) => [n.id, n.state])).toEqual([
        ['gather', 'canceled'],
        ['scan', 'canceled'],
        ['summarize', 'canceled'],
      ]);
      expect(summary.unresolved).toEqual([]);
      expect(attempts(summary, 'summarize')).toEqual([]);

      // The servers agree: the tasks are canceled, in the workflow's context, stopped by their executor.
      for (const [client, taskId] of [
        [inspectV1, gatherTask],
        [inspectV03, scanTask],
      ] as const) {
        const stored = await client.getTask(taskId, { historyLength: 100 });
        expect(stored.contextId).toBe(flow.contextId);
        expect(stored.status.state).toBe('canceled');
        // The agent's own words: the reason Tether sent is not what the agent got (see the header).
        expect(textOf(stored.status.message?.parts)).toMatch(/^canceled at step \d+$/);
        expect(JSON.stringify(stored)).not.toContain('a2a-tether/cancel-reason');
      }
      // Tether did send the reason, as cancel request metadata, on each binding.
      for (const log of [v1Log, v03Log]) {
        const cancels = log.filter((r) => r.method === 'POST' && (JSON.stringify(r.body).includes('CancelTask') || JSON.stringify(r.body).includes('tasks/cancel') || r.url.endsWith(':cancel')));
        expect(cancels).toHaveLength(1);
        expect(JSON.stringify(cancels[0]?.body)).toContain('"a2a-tether/cancel-reason":"test"');
      }

      // The ledger: a confirmed send for each hop that ran, then one cancel each, confirmed by the agent.
      expect(summary.record.ledger.map((e) => [e.operation, e.node, e.outcome])).toEqual([
        ['SendMessage', expect.any(String) as string, 'confirmed-success'],
        ['SendMessage', expect.any(String) as string, 'confirmed-success'],
        ['CancelTask', expect.any(String) as string, 'confirmed-success'],
        ['CancelTask', expect.any(String) as string, 'confirmed-success'],
      ]);
      const cancels = summary.record.ledger.filter((e) => e.operation === 'CancelTask');
      expect(cancels.map((e) => e.node).sort()).toEqual(['gather', 'scan']);
      for (const entry of cancels) expect(entry.result).toEqual({ confirmed: true, state: 'canceled' });
      expect(formatTree(summary)).toMatch(/gather \[canceled\][^\n]*\n[^\n]*cancel by interop \(test\): confirmed/);
    },
    TEST_TIMEOUT,
  );

  it(
    'a hop that ignores the cancel: the official v1.0 server holds CancelTask until the task ends, so the record says ignored (it completed instead), not confirmed',
    async () => {
      const [drafter, checker, inspector] = await Promise.all([v1Client(binding), v03Client(), v1Client(binding)]);
      const steps = 40;
      const flow = await run({
        id: `wf-stubborn-${binding}`,
        goal: 'g',
        // The request is bounded by max(1 s, 2 × cancelWaitMs) = 4 s: the task's remaining work (about 800 ms)
        // fits in it with room for a slow machine.
        cancelWaitMs: 2_000,
        agents: { v1: drafter, v03: checker },
        hops: [
          // `stubborn` works like `slow` (one chunk every 20 ms) but takes a cancel request and goes on.
          { id: 'draft', agent: 'v1', input: () => `stubborn steps=${steps} delayMs=20` },
          { id: 'check', agent: 'v03', dependsOn: ['draft'], input: ({ results }) => `work check ${results['draft']?.text ?? ''}` },
        ],
      });
      const taskOf = (): string | undefined => flow.snapshot.nodes['draft']?.attempts[0]?.taskId;
      await watch(flow, () => taskOf() !== undefined);
      const taskId = taskOf() as string;
      await until(inspector, taskId, (t) => artifactText(t).includes('chunk-2;'), 'three chunks');

      const records = await flow.cancel({ by: 'interop', reason: 'test' });
      // The answer came only once the task had ended: the server's task is already completed.
      const afterCancel = await inspector.getTask(taskId, { historyLength: 0 });
      expect(afterCancel.status.state).toBe('completed');
      // The server answered TaskNotCancelable once the task had completed; the task was working when the
      // request went out, so the request was ignored (not "already final").
      expect(records['draft']).toMatchObject({ by: 'interop', reason: 'test', outcome: 'ignored', state: 'completed' });
      expect(records['draft']?.confirmedAt).toBeUndefined();
      expect(records['check']).toMatchObject({ outcome: 'not-started' });

      const summary = await flow.done();
      // The workflow was cancelled, yet its first hop completed and its result is adopted and kept.
      expect(summary.state, formatTree(summary)).toBe('canceled');
      expect(summary.nodes.map((n) => [n.id, n.state])).toEqual([
        ['draft', 'completed'],
        ['check', 'canceled'],
      ]);
      expect(summary.unresolved).toEqual([]);
      const draft = only(summary, 'draft');
      expect(draft).toMatchObject({ adopted: true, taskState: 'completed' });
      const streamed = Array.from({ length: steps }, (_, i) => `chunk-${i};`).join('');
      expect(adoptedText(draft)).toBe(streamed);
      expect(summary.results.map((r) => [r.node, r.label])).toEqual([['draft', 'incomplete']]);
      expect(summary.record.ledger.map((e) => [e.operation, e.node, e.outcome, e.result])).toEqual([
        ['SendMessage', 'draft', 'confirmed-success', { taskId }],
        ['CancelTask', 'draft', 'confirmed-failure', { confirmed: false, state: 'completed' }],
      ]);

      // A quirk of the SDK, pinned: while it held the cancel it fed the task's events through a second
      // result manager, so every chunk published after the cancel request is stored twice. The
      // workflow's checkpoint (built from the stream) has each chunk once; GetTask does not.
      const stored = await inspector.getTask(taskId, { historyLength: 0 });
      const storedText = artifactText(stored);
      expect(storedText).not.toBe(streamed);
      expect(storedText).toMatch(/(chunk-\d+;)\1/);
      expect(storedText.replace(/(chunk-\d+;)\1/g, '$1')).toBe(streamed);
    },
    TEST_TIMEOUT,
  );

  it(
    'a pause on the official v1.0 server is surfaced by pauses() and answered by answer(); the answer flows on',
    async () => {
      const [asker, inspector] = await Promise.all([v1Client(binding), v1Client(binding)]);
      await pauseCase(`wf-pause-${binding}`, asker, inspector);
    },
    TEST_TIMEOUT,
  );

  it(
    'a correction supersedes a hop working on the official v1.0 server: its cancel is confirmed, the successor references the old task',
    async () => {
      const [summarizer, inspector] = await Promise.all([v1Client(binding), v1Client(binding)]);
      const flow = await run({
        id: `wf-correct-${binding}`,
        goal: 'otters',
        agents: { v1: summarizer },
        hops: [
          {
            id: 'summarize',
            agent: 'v1',
            // The first instructions keep the agent busy; the corrected ones complete at once.
            input: ({ revision }) => (revision.n === 1 ? 'slow steps=1000 delayMs=20' : `work summarize ${revision.text}`),
          },
        ],
      });
      const firstTask = (): string | undefined => flow.snapshot.nodes['summarize']?.attempts[0]?.taskId;
      await watch(flow, () => firstTask() !== undefined);
      const oldTask = firstTask() as string;
      await until(inspector, oldTask, (t) => artifactText(t).includes('chunk-1;'), 'two chunks');

      const update = await flow.update({ kind: 'correction', text: 'sea otters only', by: 'interop' });
      expect(update).toMatchObject({ seq: 1, kind: 'correction', revision: 2, affects: ['summarize'] });
      const summary = await flow.done();
      expect(summary.state, formatTree(summary)).toBe('completed');
      expect(summary.revision).toBe(2);

      const [first, second] = attempts(summary, 'summarize');
      expect(attempts(summary, 'summarize')).toHaveLength(2);
      expect(first).toMatchObject({
        revision: 1,
        taskId: oldTask,
        taskState: 'canceled',
        adopted: false,
        rejectedReason: 'superseded by revision 2 (update 1)',
        cancel: { by: 'interop', reason: 'superseded by revision 2', outcome: 'confirmed', state: 'canceled' },
      });
      expect(second).toMatchObject({ revision: 2, state: 'completed', adopted: true, referenceTaskIds: [oldTask] });
      expect(adoptedText(second as AttemptRecord)).toBe('done(summarize sea otters only)');
      expect(summary.record.ledger.map((e) => [e.operation, e.revision, e.outcome])).toEqual([
        ['SendMessage', 1, 'confirmed-success'],
        ['CancelTask', 1, 'confirmed-success'],
        ['SendMessage', 2, 'confirmed-success'],
      ]);

      // On the server: the old task canceled; the successor a new task in the same context, created by a
      // message that references the old task and carries revision 2.
      const old = await inspector.getTask(oldTask, { historyLength: 100 });
      expect(old.status.state).toBe('canceled');
      const successor = await inspector.getTask(second?.taskId as string, { historyLength: 100 });
      expect(successor.id).not.toBe(oldTask);
      expect(successor.contextId).toBe(flow.contextId);
      expect(creatingMessage(successor)).toMatchObject({
        messageId: second?.messageId,
        contextId: flow.contextId,
        referenceTaskIds: [oldTask],
        metadata: { [WORKFLOW_METADATA.workflow]: flow.id, [WORKFLOW_METADATA.node]: 'summarize', [WORKFLOW_METADATA.revision]: 2 },
      });
      const listed = await inspector.listTasks({ contextId: flow.contextId });
      expect(listed.tasks.map((t) => t.id).sort()).toEqual([oldTask, successor.id].sort());
    },
    TEST_TIMEOUT,
  );
});

describe('a workflow on the official v0.3 server', () => {
  it(
    'a pause on the official v0.3 server (its stream ends at input-required) is surfaced and answered',
    async () => {
      const [asker, inspector] = await Promise.all([v03Client(), v03Client()]);
      await pauseCase('wf-pause-v03', asker, inspector);
    },
    TEST_TIMEOUT,
  );
});
