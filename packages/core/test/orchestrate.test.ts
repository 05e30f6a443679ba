import { ManualScheduler, startFaultProxy, startTestAgent, type ScenarioContext, type TestAgent, type TestAgentOptions } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient } from '../src/index.js';
import {
  MemoryWorkflowStore,
  formatTree,
  startWorkflow,
  type HopSpec,
  type Workflow,
  type WorkflowEvent,
  type WorkflowRecord,
  type WorkflowStore,
} from '../src/orchestrate-entry.js';

const agents: TestAgent[] = [];
const flows: Workflow[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of flows.splice(0)) f.stop();
  await Promise.all(closers.splice(0).map((close) => close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function agent(scenarios: TestAgentOptions['scenarios'], options: TestAgentOptions = {}): Promise<{ agent: TestAgent; client: A2AClient }> {
  const a = await startTestAgent({ cancelWaitMs: 50, ...options, scenarios });
  agents.push(a);
  return { agent: a, client: await connect(a.url, { cardCache: false }) };
}

async function run(options: Parameters<typeof startWorkflow>[0]): Promise<Workflow> {
  const flow = await startWorkflow(options);
  flows.push(flow);
  return flow;
}

/** Resolves when the agent is asked to cancel the task. */
function cancelRequested(ctx: ScenarioContext): Promise<void> {
  return new Promise((resolve) => {
    if (ctx.cancelled.aborted) resolve();
    ctx.cancelled.addEventListener('abort', () => resolve(), { once: true });
  });
}

function answerWith(text: (ctx: ScenarioContext) => string, cost?: number) {
  return (ctx: ScenarioContext): void => {
    ctx.status('working');
    ctx.artifact({ artifactId: 'out', text: text(ctx), lastChunk: true });
    ctx.status('completed', cost === undefined ? undefined : `cost ${cost}`);
  };
}

/** A store that remembers every record written, in order. */
class RecordingStore implements WorkflowStore {
  readonly inner = new MemoryWorkflowStore();
  readonly saves: WorkflowRecord[] = [];
  load(id: string): Promise<WorkflowRecord | undefined> {
    return this.inner.load(id);
  }
  async save(record: WorkflowRecord): Promise<void> {
    this.saves.push(structuredClone(record));
    await this.inner.save(record);
  }
  list(): Promise<string[]> {
    return this.inner.list();
  }
}

async function events(flow: Workflow): Promise<WorkflowEvent[]> {
  const out: WorkflowEvent[] = [];
  for await (const e of flow.events()) out.push(e);
  return out;
}

/** Reads the workflow's events until each of `nodes` has a task. */
async function untilTasks(flow: Workflow, nodes: string[]): Promise<void> {
  const named = new Set<string>();
  for await (const e of flow.events()) {
    if (e.type === 'node' && e.taskId !== undefined) named.add(e.node);
    if (nodes.every((n) => named.has(n))) return;
  }
  throw new Error(`the workflow ended before ${nodes.filter((n) => !named.has(n)).join(', ')} had a task`);
}

const text = (flow: Workflow, node: string): string => {
  const attempt = flow.snapshot.nodes[node]?.attempts.find((a) => a.adopted);
  return (attempt?.artifacts ?? []).flatMap((a) => a.artifact.parts).map((p) => (p.kind === 'text' ? p.text : '')).join('');
};

describe('a delegation graph', () => {
  it('runs hops in dependency order on their agents, each result checkpointed before the next hop starts', async () => {
    const r = await agent({ echo: answerWith((ctx) => `facts about ${ctx.text}`) });
    const s = await agent({ echo: answerWith((ctx) => `summary of [${ctx.text}]`) });
    const store = new RecordingStore();
    const flow = await run({
      id: 'w1',
      goal: 'otters',
      store,
      agents: { retrieval: r.client, summarizer: s.client },
      hops: [
        { id: 'retrieve', agent: 'retrieval', input: ({ revision }) => `* ${revision.text}` },
        { id: 'summarize', agent: 'summarizer', dependsOn: ['retrieve'], input: ({ results }) => `* ${results['retrieve']?.text ?? ''}` },
      ],
    });
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    expect(text(flow, 'summarize')).toBe('summary of [* facts about * otters]');
    // Every hop's task shares the workflow's context and carries its node and revision.
    const sent = s.agent.tasks.list()[0]?.history[0];
    expect(sent?.contextId).toBe(flow.contextId);
    expect(sent?.metadata).toMatchObject({ 'a2a-tether/workflow': 'w1', 'a2a-tether/node': 'summarize', 'a2a-tether/revision': 1 });
    // The summarizer's intent was written only after a save that held the retrieval's checkpoint.
    const firstWithSummarize = store.saves.findIndex((rec) => (rec.nodes['summarize']?.attempts.length ?? 0) > 0);
    const checkpointed = store.saves.findIndex((rec) => rec.checkpoints.some((c) => c.reason === 'node retrieve completed'));
    expect(checkpointed).toBeGreaterThanOrEqual(0);
    expect(checkpointed).toBeLessThan(firstWithSummarize);
    expect(store.saves[checkpointed]?.nodes['retrieve']?.attempts[0]?.artifacts?.[0]?.artifact.parts).toEqual([{ kind: 'text', text: 'facts about * otters' }]);
    // The ledger has one confirmed send per hop, keyed by its message id.
    expect(summary.record.ledger.map((e) => [e.operation, e.outcome, e.node])).toEqual([
      ['SendMessage', 'confirmed-success', 'retrieve'],
      ['SendMessage', 'confirmed-success', 'summarize'],
    ]);
  });

  it('refuses a malformed graph with a typed error: unknown agent, unknown dependency, a cycle', async () => {
    const { client } = await agent({});
    const hop = (id: string, extra: Partial<HopSpec> = {}): HopSpec => ({ id, agent: 'a', input: () => 'x', ...extra });
    const bad: HopSpec[][] = [[hop('x', { agent: 'nobody' })], [hop('x', { dependsOn: ['ghost'] })], [hop('x', { dependsOn: ['y'] }), hop('y', { dependsOn: ['x'] })], [hop('x'), hop('x')]];
    for (const hops of bad) {
      const error = await startWorkflow({ id: 'bad', goal: 'g', agents: { a: client }, hops }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TetherError);
      expect((error as TetherError).code).toBe('INVALID_ARGUMENT');
    }
  });
});

describe('budgets (on the manual clock)', () => {
  it('a hung hop is cancelled at its budget; the workflow finishes with the other hops’ results kept', async () => {
    const clock = new ManualScheduler();
    const hung = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        ctx.artifact({ artifactId: 'half', text: 'half a result', lastChunk: false });
        await cancelRequested(ctx);
        ctx.status('canceled');
      },
    });
    const fast = await agent({ echo: answerWith(() => 'fast result') });
    const breaches: string[] = [];
    const flow = await run({
      id: 'w-budget',
      goal: 'g',
      scheduler: clock,
      agents: { hung: hung.client, fast: fast.client },
      escalate: (b) => {
        breaches.push(`${b.kind}:${b.node}`);
        return 'cancel';
      },
      hops: [
        { id: 'slow', agent: 'hung', timeoutMs: 60_000, input: () => 'go' },
        { id: 'quick', agent: 'fast', input: () => 'go' },
      ],
    });
    await untilTasks(flow, ['slow']);
    await clock.advance(59_999);
    expect(breaches).toEqual([]);
    await clock.advance(1);
    const summary = await flow.done();
    expect(breaches).toEqual(['hop-timeout:slow']);
    expect(summary.state).toBe('partial');
    const slow = summary.record.nodes['slow'];
    expect(slow?.state).toBe('timed-out');
    expect(slow?.attempts[0]?.cancel).toMatchObject({ by: 'budget', reason: 'hop-timeout after 60000 ms', outcome: 'confirmed', state: 'canceled' });
    expect(hung.agent.tasks.list()[0]?.state).toBe('canceled');
    // The quick hop's result is kept whole; the hung hop's half result is kept, labelled incomplete.
    expect(summary.results).toEqual([
      expect.objectContaining({ node: 'slow', label: 'incomplete', artifacts: [expect.objectContaining({ complete: false })] }),
      expect.objectContaining({ node: 'quick', label: 'complete' }),
    ]);
  });

  it('the end-to-end deadline cancels what still runs and what never started (outcome not-started)', async () => {
    const clock = new ManualScheduler();
    const slow = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await cancelRequested(ctx);
        ctx.status('canceled');
      },
    });
    const flow = await run({
      id: 'w-deadline',
      goal: 'g',
      scheduler: clock,
      deadlineMs: 600_000,
      agents: { slow: slow.client },
      hops: [
        { id: 'a', agent: 'slow', input: () => 'go' },
        { id: 'b', agent: 'slow', dependsOn: ['a'], input: () => 'go' },
      ],
    });
    await untilTasks(flow, ['a']);
    await clock.advance(600_000);
    const summary = await flow.done();
    expect(summary.record.nodes['a']?.state).toBe('timed-out');
    expect(summary.record.nodes['a']?.attempts[0]?.cancel?.outcome).toBe('confirmed');
    expect(summary.record.nodes['b']?.state).toBe('canceled');
    expect(summary.record.nodes['b']?.cancel?.outcome).toBe('not-started');
    expect(slow.agent.tasks.list()).toHaveLength(1);
  });
});

describe('budgets, escalation choices (on the manual clock)', () => {
  it('an escalation can hand a hung hop to another agent: the first task is cancelled, a successor runs elsewhere', async () => {
    const clock = new ManualScheduler();
    const hung = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await cancelRequested(ctx);
        ctx.status('canceled');
      },
    });
    const backup = await agent({ echo: answerWith(() => 'from the backup') });
    const flow = await run({
      id: 'w-hand',
      goal: 'g',
      scheduler: clock,
      agents: { hung: hung.client, backup: backup.client },
      escalate: () => ({ handTo: 'backup' }),
      hops: [{ id: 'work', agent: 'hung', timeoutMs: 60_000, input: () => 'go' }],
    });
    await untilTasks(flow, ['work']);
    await clock.advance(60_000);
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    const [first, second] = summary.record.nodes['work']?.attempts ?? [];
    expect(first).toMatchObject({ agent: 'hung', state: 'timed-out', cancel: { by: 'budget', outcome: 'confirmed' } });
    expect(first?.adopted).not.toBe(true);
    expect(second).toMatchObject({ agent: 'backup', adopted: true, referenceTaskIds: [first?.taskId] });
    expect(text(flow, 'work')).toBe('from the backup');
  });

  it('an escalation can extend a deadline once; the workflow then completes', async () => {
    const clock = new ManualScheduler();
    const slowish = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await ctx.sleep(300);
        ctx.artifact({ artifactId: 'out', text: 'late but fine', lastChunk: true });
        ctx.status('completed');
      },
    });
    const breaches: number[] = [];
    const flow = await run({
      id: 'w-extend',
      goal: 'g',
      scheduler: clock,
      deadlineMs: 60_000,
      agents: { a: slowish.client },
      escalate: (b) => {
        breaches.push(b.budgetMs);
        return breaches.length === 1 ? { extendMs: 600_000 } : 'cancel';
      },
      hops: [{ id: 'n', agent: 'a', input: () => 'go' }],
    });
    await untilTasks(flow, ['n']);
    await clock.advance(60_000);
    const summary = await flow.done();
    expect(breaches).toEqual([60_000]);
    expect(summary.state).toBe('completed');
  });
});

describe('cancels and sends that cross', () => {
  it('a whole-workflow cancel while paused ends the workflow (nothing waits for a resume)', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const a = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await Promise.race([held, cancelRequested(ctx)]);
        ctx.status(ctx.cancelled.aborted ? 'canceled' : 'completed');
      },
    });
    const flow = await run({
      id: 'w-paused-cancel',
      goal: 'g',
      agents: { a: a.client },
      hops: [
        { id: 'one', agent: 'a', input: () => 'one' },
        { id: 'two', agent: 'a', dependsOn: ['one'], input: () => 'two' },
      ],
    });
    for await (const e of flow.events()) if (e.type === 'node' && e.node === 'one' && e.taskId !== undefined) break;
    await flow.update({ kind: 'pause', text: 'wait' });
    await flow.cancel({ by: 'dave', reason: 'changed my mind' });
    release();
    const summary = await flow.done();
    expect(summary.state).toBe('canceled');
    expect(summary.record.nodes['one']?.attempts[0]?.cancel).toMatchObject({ by: 'dave', outcome: 'confirmed' });
    expect(summary.record.nodes['two']?.cancel).toMatchObject({ by: 'dave', outcome: 'not-started' });
  });

  it('a correction leaves the nodes it does not affect alone, even one whose send was in flight (found by the chaos runs: it hung)', async () => {
    const a = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await ctx.sleep(150);
        ctx.artifact({ artifactId: 'out', text: `answer to ${ctx.text}`, lastChunk: true });
        ctx.status('completed');
      },
    });
    const proxy = await startFaultProxy({ target: a.agent.origin });
    closers.push(() => proxy.close());
    proxy.addFault({ kind: 'delayHeaders', ms: 300, match: { rpcMethod: /SendStreamingMessage|message\/stream/ } });
    const slowSend = await connect(proxy.url, { cardCache: false });
    const flow = await run({
      id: 'w-unaffected',
      goal: 'first',
      agents: { direct: a.client, delayed: slowSend },
      hops: [
        { id: 'affected', agent: 'direct', input: ({ revision }) => `affected ${revision.text}` },
        { id: 'untouched', agent: 'delayed', input: ({ revision }) => `untouched ${revision.text}` },
      ],
    });
    for await (const e of flow.events()) if (e.type === 'node' && e.node === 'affected' && e.taskId !== undefined) break;
    expect(flow.snapshot.nodes['untouched']?.attempts[0]?.taskId).toBeUndefined(); // its send is still on its way
    await flow.update({ kind: 'correction', text: 'second', affects: ['affected'] });
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    expect(summary.record.nodes['untouched']?.attempts).toHaveLength(1);
    expect(summary.record.nodes['untouched']?.attempts[0]).toMatchObject({ revision: 1, adopted: true });
    expect(summary.record.nodes['untouched']?.attempts[0]?.cancel).toBeUndefined();
    expect(text(flow, 'untouched')).toBe('answer to untouched first');
    expect(text(flow, 'affected')).toBe('answer to affected second');
  });

  it('an update while a send is in flight: once the task exists it is asked to stop, and its result is not adopted', async () => {
    const a = await agent({ echo: answerWith((ctx) => `answer to ${ctx.text}`) });
    const proxy = await startFaultProxy({ target: a.agent.origin });
    closers.push(() => proxy.close());
    proxy.addFault({ kind: 'delayHeaders', ms: 300, match: { rpcMethod: /SendStreamingMessage|message\/stream/ } });
    const client = await connect(proxy.url, { cardCache: false });
    const flow = await run({ id: 'w-inflight', goal: 'first goal', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: ({ revision }) => revision.text }] });
    for await (const e of flow.events()) if (e.type === 'node' && e.node === 'n' && e.state === 'running') break;
    expect(flow.snapshot.nodes['n']?.attempts[0]?.taskId).toBeUndefined(); // the send is still on its way
    await flow.update({ kind: 'correction', text: 'second goal' });
    const summary = await flow.done();
    const [old, successor] = summary.record.nodes['n']?.attempts ?? [];
    expect(old?.revision).toBe(1);
    expect(old?.adopted).not.toBe(true);
    // Asked to stop as superseded work, once its task existed (it may have ended by then: already-final).
    expect(old?.cancel).toMatchObject({ by: 'workflow', reason: 'superseded by revision 2 while it was being sent' });
    expect(successor).toMatchObject({ revision: 2, adopted: true });
    expect(text(flow, 'n')).toBe('answer to second goal');
  });
});

describe('partial results', () => {
  it('a rejected verification keeps the draft of the previous hop, labelled incomplete', async () => {
    const writer = await agent({ echo: answerWith(() => 'the draft') });
    const checker = await agent({
      echo: (ctx) => {
        ctx.status('working');
        ctx.status('rejected', 'two claims have no source');
      },
    });
    const flow = await run({
      id: 'w-verify',
      goal: 'g',
      agents: { writer: writer.client, checker: checker.client },
      hops: [
        { id: 'draft', agent: 'writer', input: () => 'write' },
        { id: 'verify', agent: 'checker', dependsOn: ['draft'], required: false, input: ({ results }) => `check: ${results['draft']?.text ?? ''}` },
      ],
    });
    const summary = await flow.done();
    expect(summary.state).toBe('partial');
    expect(summary.record.nodes['verify']?.state).toBe('rejected');
    expect(summary.results).toEqual([
      { node: 'draft', taskId: expect.any(String) as string, artifacts: [expect.objectContaining({ complete: true })], label: 'incomplete', why: 'verify rejected' },
    ]);
    expect(summary.results[0]?.artifacts[0]?.artifact.parts).toEqual([{ kind: 'text', text: 'the draft' }]);
  });
});

describe('cancel propagation', () => {
  it('cancelling the root reaches every non-terminal descendant; each record says who, why, requested vs confirmed, and the cost reported', async () => {
    const obedient = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await cancelRequested(ctx);
        ctx.status('canceled', 'stopped', { metadata: { cost: { amount: 0.01, unit: 'USD' } } });
      },
    });
    const stubborn = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await new Promise((resolve) => setTimeout(resolve, 5_000).unref());
      },
    });
    const flow = await run({
      id: 'w-cancel',
      goal: 'g',
      cancelWaitMs: 200,
      agents: { ok: obedient.client, stubborn: stubborn.client },
      hops: [
        { id: 'plan', agent: 'ok', input: () => 'plan' },
        { id: 'a', agent: 'ok', parent: 'plan', input: () => 'a' },
        { id: 'c', agent: 'stubborn', parent: 'a', input: () => 'c' },
        { id: 'b', agent: 'ok', parent: 'plan', dependsOn: ['a'], input: () => 'b' },
      ],
    });
    for await (const e of flow.events()) {
      if (e.type === 'node' && e.state === 'running' && e.taskId !== undefined) {
        const running = Object.values(flow.snapshot.nodes).filter((n) => n.attempts[0]?.taskId !== undefined);
        if (running.length === 3) break;
      }
    }
    const records = await flow.cancel({ by: 'alice', reason: 'no longer needed' });
    expect(records['plan']).toMatchObject({ by: 'alice', reason: 'no longer needed', outcome: 'confirmed', state: 'canceled' });
    expect(records['a']).toMatchObject({ by: 'alice', outcome: 'confirmed' });
    expect(records['c']).toMatchObject({ by: 'alice', outcome: 'requested', state: 'working' });
    expect(records['b']).toMatchObject({ by: 'alice', outcome: 'not-started' });
    const summary = await flow.done();
    expect(summary.state).toBe('canceled');
    expect(summary.record.cancel).toMatchObject({ by: 'alice', reason: 'no longer needed' });
    expect(summary.record.nodes['c']?.state).toBe('cancel-requested');
    expect(summary.record.nodes['plan']?.attempts[0]?.cancel?.cost).toEqual({ amount: 0.01, unit: 'USD' });
    expect(summary.record.nodes['a']?.attempts[0]?.cancel?.cost).toEqual({ amount: 0.01, unit: 'USD' });
    expect(summary.unresolved.some((u) => u.startsWith('c: cancel of task') && u.includes('not confirmed'))).toBe(true);
    // Cancels are actions in the ledger too.
    expect(summary.record.ledger.filter((e) => e.operation === 'CancelTask')).toHaveLength(3);
  });

  it('a workflow whose every node was cancelled node by node ends canceled, not failed', async () => {
    const obedient = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await cancelRequested(ctx);
        ctx.status('canceled');
      },
    });
    const flow = await run({
      id: 'w-all-cancelled',
      goal: 'g',
      agents: { a: obedient.client },
      hops: [
        { id: 'top', agent: 'a', input: () => 'x' },
        { id: 'below', agent: 'a', parent: 'top', dependsOn: ['top'], input: () => 'y' },
      ],
    });
    for await (const e of flow.events()) if (e.type === 'node' && e.taskId !== undefined) break;
    await flow.cancel({ node: 'top', by: 'frank', reason: 'not needed' });
    const summary = await flow.done();
    expect(summary.state).toBe('canceled');
    expect(summary.record.cancel).toBeUndefined();
  });

  it('an agent that holds the cancel request open does not hold the workflow: the request is bounded and stays "requested"', async () => {
    const holder = await agent(
      {
        echo: async (ctx) => {
          ctx.status('working');
          await new Promise((resolve) => setTimeout(resolve, 4_000).unref());
        },
      },
      { cancelWaitMs: 3_000 },
    );
    const flow = await run({ id: 'w-held', goal: 'g', cancelWaitMs: 200, agents: { h: holder.client }, hops: [{ id: 'n', agent: 'h', input: () => 'x' }] });
    for await (const e of flow.events()) if (e.type === 'node' && e.taskId !== undefined) break;
    const started = Date.now();
    const records = await flow.cancel({ by: 'erin', reason: 'stop' });
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(records['n']).toMatchObject({ by: 'erin', outcome: 'requested' });
    const summary = await flow.done();
    expect(summary.record.nodes['n']?.state).toBe('cancel-requested');
    expect(summary.record.ledger.find((e) => e.operation === 'CancelTask')?.outcome).toBe('unknown');
    expect(summary.unresolved.some((u) => u.startsWith('n: cancel of task'))).toBe(true);
  });

  it('aborting the signal given to startWorkflow cancels the whole workflow, by "signal"', async () => {
    const obedient = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await cancelRequested(ctx);
        ctx.status('canceled');
      },
    });
    const controller = new AbortController();
    const flow = await run({ id: 'w-signal', goal: 'g', signal: controller.signal, agents: { a: obedient.client }, hops: [{ id: 'n', agent: 'a', input: () => 'x' }] });
    for await (const e of flow.events()) if (e.type === 'node' && e.taskId !== undefined) break;
    controller.abort(new Error('the user closed the page'));
    const summary = await flow.done();
    expect(summary.state).toBe('canceled');
    expect(summary.record.cancel).toMatchObject({ by: 'signal', reason: 'the user closed the page' });
    expect(summary.record.nodes['n']?.attempts[0]?.cancel).toMatchObject({ by: 'signal', outcome: 'confirmed' });
  });

  it('cancelling one node cancels it and its descendants only, grandchildren included', async () => {
    const obedient = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        if (ctx.text === 'quick') {
          ctx.status('completed');
          return;
        }
        await cancelRequested(ctx);
        ctx.status('canceled');
      },
    });
    const flow = await run({
      id: 'w-cancel-sub',
      goal: 'g',
      agents: { ok: obedient.client },
      hops: [
        { id: 'left', agent: 'ok', input: () => 'slow' },
        { id: 'leftChild', agent: 'ok', parent: 'left', input: () => 'slow' },
        { id: 'leftGrandchild', agent: 'ok', parent: 'leftChild', input: () => 'slow' },
        { id: 'right', agent: 'ok', input: () => 'quick' },
      ],
    });
    await untilTasks(flow, ['left', 'leftChild', 'leftGrandchild']);
    const records = await flow.cancel({ node: 'left', by: 'bob', reason: 'wrong branch' });
    expect(Object.keys(records).sort()).toEqual(['left', 'leftChild', 'leftGrandchild']);
    const summary = await flow.done();
    expect(summary.record.nodes['right']?.state).toBe('completed');
    for (const id of ['left', 'leftChild', 'leftGrandchild']) {
      expect(summary.record.nodes[id]?.state, id).toBe('canceled');
      expect(summary.record.nodes[id]?.attempts[0]?.cancel, id).toMatchObject({ by: 'bob', reason: 'wrong branch', outcome: 'confirmed' });
    }
    expect(summary.record.cancel).toBeUndefined();
    expect(obedient.agent.tasks.list().filter((t) => t.state === 'canceled')).toHaveLength(3);
  });

  it('a hop timeout stops the hop and every node below it, grandchildren included', async () => {
    const hung = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        await cancelRequested(ctx);
        ctx.status('canceled');
      },
    });
    // The escalation decides only once every node has its task, however slow the sends are.
    let named!: () => void;
    const allNamed = new Promise<void>((resolve) => (named = resolve));
    const clock = new ManualScheduler();
    const flow = await run({
      id: 'w-timeout-tree',
      goal: 'g',
      scheduler: clock,
      agents: { hung: hung.client },
      escalate: async () => {
        await allNamed;
        return 'cancel' as const;
      },
      hops: [
        { id: 'top', agent: 'hung', timeoutMs: 60_000, input: () => 'go' },
        { id: 'mid', agent: 'hung', parent: 'top', input: () => 'go' },
        { id: 'leaf', agent: 'hung', parent: 'mid', input: () => 'go' },
        { id: 'other', agent: 'hung', input: () => 'go' },
      ],
    });
    await untilTasks(flow, ['top', 'mid', 'leaf', 'other']);
    await clock.advance(60_000);
    named();
    // The breach stops top and everything below it in one pass: once top and mid ended, leaf was asked too.
    const ended = new Set<string>();
    for await (const e of flow.events()) {
      if (e.type === 'node' && e.state === 'timed-out') ended.add(e.node);
      if (ended.has('top') && ended.has('mid')) break;
    }
    expect(flow.snapshot.nodes['leaf']?.attempts[0]?.cancel).toMatchObject({ by: 'budget', reason: 'hop-timeout after 60000 ms' });
    expect(flow.snapshot.nodes['other']?.attempts[0]?.cancel).toBeUndefined();
    await flow.cancel({ node: 'other', by: 'test', reason: 'done' });
    const summary = await flow.done();
    for (const id of ['top', 'mid', 'leaf']) expect(summary.record.nodes[id]?.state, id).toBe('timed-out');
    expect(summary.record.nodes['other']?.state).toBe('canceled');
    expect(hung.agent.tasks.list().map((t) => t.state)).toEqual(['canceled', 'canceled', 'canceled', 'canceled']);
  });
});

describe('human pauses travel up', () => {
  it('two pauses from two children are surfaced together, answered together, and each answer reaches its child', async () => {
    const asker = await agent({
      echo: async (ctx) => {
        ctx.status('input-required', `which ${ctx.text}?`);
        const answer = await ctx.waitForInput();
        ctx.artifact({ artifactId: 'out', text: `${ctx.text} → ${answer}`, lastChunk: true });
        ctx.status('completed');
      },
    });
    const flow = await run({
      id: 'w-pauses',
      goal: 'g',
      agents: { asker: asker.client },
      hops: [
        { id: 'flights', agent: 'asker', input: () => 'airline' },
        { id: 'hotels', agent: 'asker', input: () => 'hotel' },
      ],
    });
    const seen: WorkflowEvent[] = [];
    for await (const e of flow.events()) {
      seen.push(e);
      if (flow.pauses().length === 2) break;
    }
    const pauses = flow.pauses();
    expect(pauses.map((p) => [p.node, p.state, p.message?.parts]).sort()).toEqual([
      ['flights', 'input-required', [{ kind: 'text', text: 'which airline?' }]],
      ['hotels', 'input-required', [{ kind: 'text', text: 'which hotel?' }]],
    ]);
    const byNode = Object.fromEntries(pauses.map((p) => [p.node, p]));
    const outcomes = await flow.answer([
      { pause: byNode['hotels']!, input: 'the quiet one' },
      { pause: byNode['flights']!.id, input: 'the cheap one' },
      { pause: 'nope', input: 'lost' },
    ]);
    expect(outcomes.map((o) => [o.node, o.ok])).toEqual([
      ['hotels', true],
      ['flights', true],
      [undefined, false],
    ]);
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    expect(text(flow, 'flights')).toBe('airline → the cheap one');
    expect(text(flow, 'hotels')).toBe('hotel → the quiet one');
    // Each answer carries the workflow's metadata, so the agent can tell which revision it answers.
    for (const task of asker.agent.tasks.list()) {
      expect(task.history.find((m) => m.role === 'user' && m.parts.some((p) => p.kind === 'text' && p.text.startsWith('the ')))?.metadata).toMatchObject({
        'a2a-tether/workflow': 'w-pauses',
        'a2a-tether/revision': 1,
      });
    }
    expect(flow.pauses()).toEqual([]);
  });

  it('a pause that outlives its SLA is escalated (default: cancel the hop)', async () => {
    const asker = await agent({
      echo: async (ctx) => {
        ctx.status('input-required', 'anyone?');
        await cancelRequested(ctx);
        ctx.status('canceled');
      },
    });
    const clock = new ManualScheduler();
    const flow = await run({ id: 'w-sla', goal: 'g', scheduler: clock, agents: { asker: asker.client }, hops: [{ id: 'ask', agent: 'asker', pauseSlaMs: 3_600_000, input: () => 'q' }] });
    for await (const e of flow.events()) if (e.type === 'pause') break;
    await clock.advance(3_599_999);
    expect(flow.pauses()).toHaveLength(1);
    await clock.advance(1);
    const all = await events(flow);
    expect(all.find((e) => e.type === 'escalation')).toMatchObject({ breach: { kind: 'pause-sla', node: 'ask', budgetMs: 3_600_000 }, decision: 'cancel' });
    const summary = await flow.done();
    expect(summary.record.nodes['ask']?.state).toBe('timed-out');
    expect(summary.record.nodes['ask']?.attempts[0]?.cancel?.outcome).toBe('confirmed');
  });
});

describe('restart', () => {
  it('a workflow stopped during hop 3 of 3 and started again does not re-run hops 1–2: it follows hop 3 by its task id', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = await agent({
      echo: async (ctx) => {
        ctx.status('working');
        if (ctx.text.startsWith('three')) await held;
        ctx.artifact({ artifactId: 'out', text: `${ctx.text.split(' ')[0] ?? ''} done`, lastChunk: true });
        ctx.status('completed');
      },
    });
    const store = new MemoryWorkflowStore();
    const hops: HopSpec[] = [
      { id: 'h1', agent: 'w', input: () => 'one' },
      { id: 'h2', agent: 'w', dependsOn: ['h1'], input: ({ results }) => `two after ${results['h1']?.text ?? ''}` },
      { id: 'h3', agent: 'w', dependsOn: ['h2'], input: ({ results }) => `three after ${results['h2']?.text ?? ''}` },
    ];
    const first = await run({ id: 'w-restart', goal: 'g', store, agents: { w: worker.client }, hops });
    for await (const e of first.events()) if (e.type === 'node' && e.node === 'h3' && e.taskId !== undefined) break;
    first.stop(); // the process "dies": nothing is cancelled
    expect(worker.agent.tasks.list()).toHaveLength(3);
    const client2 = await connect(worker.agent.url, { cardCache: false });
    const second = await run({ id: 'w-restart', goal: 'g', store, agents: { w: client2 }, hops });
    release();
    const summary = await second.done();
    expect(summary.state).toBe('completed');
    expect(worker.agent.tasks.list()).toHaveLength(3); // no hop was sent again
    expect(text(second, 'h3')).toBe('three done');
    expect(summary.record.ledger.filter((e) => e.operation === 'SendMessage')).toHaveLength(3);
  });

  it('a restart with other edges than the stored workflow is refused; an input function may be async', async () => {
    const worker = await agent({ echo: answerWith((ctx) => `got ${ctx.text}`) });
    const store = new MemoryWorkflowStore();
    const hops: HopSpec[] = [
      { id: 'a', agent: 'w', input: async () => Promise.resolve('first') },
      { id: 'b', agent: 'w', dependsOn: ['a'], input: async ({ results }) => Promise.resolve(`after ${results['a']?.text ?? ''}`) },
    ];
    const flow = await run({ id: 'w-edges', goal: 'g', store, agents: { w: worker.client }, hops });
    await flow.done();
    expect(text(flow, 'b')).toBe('got after got first');
    const rewired = await startWorkflow({ id: 'w-edges', goal: 'g', store, agents: { w: worker.client }, hops: [hops[0]!, { ...hops[1]!, dependsOn: [] }] }).catch((e: unknown) => e);
    expect((rewired as TetherError).code).toBe('INVALID_ARGUMENT');
    expect((rewired as TetherError).message).toMatch(/hop b is stored with other edges/);
  });

  it('a restart after the send intent was written but before its answer looks the task up instead of sending again', async () => {
    const worker = await agent({ echo: answerWith(() => 'ok') });
    const store = new MemoryWorkflowStore();
    const hops: HopSpec[] = [{ id: 'only', agent: 'w', input: () => 'go' }];
    const first = await run({ id: 'w-intent', goal: 'g', store, agents: { w: worker.client }, hops });
    await first.done();
    // Rewind the record to "intent written, no answer": what a crash between the write and the answer leaves.
    const record = (await store.load('w-intent'))!;
    const node = record.nodes['only']!;
    node.state = 'running';
    delete node.attempts[0]!.taskId;
    node.attempts[0]!.state = 'running';
    delete node.attempts[0]!.adopted;
    record.state = 'running';
    record.ledger[0]!.outcome = 'intended';
    await store.save(record);
    const second = await run({ id: 'w-intent', goal: 'g', store, agents: { w: worker.client }, hops });
    const summary = await second.done();
    expect(worker.agent.tasks.list()).toHaveLength(1);
    expect(summary.record.ledger[0]).toMatchObject({ outcome: 'confirmed-success', result: { taskId: worker.agent.tasks.list()[0]?.id } });
    expect(summary.record.nodes['only']?.state).toBe('completed');
  });
});

describe('cost', () => {
  it('reads what agents report in their final status metadata (a number, or amount and unit), per agent and in total', async () => {
    const priced = await agent({ echo: (ctx) => ctx.status('completed', 'done', { metadata: { cost: { amount: 0.02, unit: 'USD' } } }) });
    const counted = await agent({ echo: (ctx) => ctx.status('completed', 'done', { metadata: { cost: 1200 } }) });
    const silent = await agent({ echo: (ctx) => ctx.status('completed') });
    const flow = await run({
      id: 'w-cost',
      goal: 'g',
      agents: { priced: priced.client, counted: counted.client, silent: silent.client },
      hops: [
        { id: 'p1', agent: 'priced', input: () => 'x' },
        { id: 'p2', agent: 'priced', input: () => 'y' },
        { id: 'c', agent: 'counted', input: () => 'z' },
        { id: 's', agent: 'silent', input: () => 'w' },
      ],
    });
    const summary = await flow.done();
    expect(summary.cost.byAgent).toEqual({ priced: [{ amount: 0.04, unit: 'USD' }], counted: [{ amount: 1200, unit: 'units' }] });
    expect(summary.cost.total).toEqual([
      { amount: 0.04, unit: 'USD' },
      { amount: 1200, unit: 'units' },
    ]);
    expect(summary.nodes.find((n) => n.id === 's')?.cost).toEqual([]);
  });
});

describe('formatTree', () => {
  it('prints the delegation tree with states, attempts and costs', async () => {
    const a = await agent({
      echo: (ctx) => {
        ctx.status('working');
        ctx.artifact({ artifactId: 'out', text: 'x', lastChunk: true });
        ctx.status('completed');
      },
    });
    const flow = await run({
      id: 'w-tree',
      goal: 'g',
      agents: { a: a.client },
      cost: () => ({ amount: 0.25, unit: 'USD' }),
      hops: [
        { id: 'root', agent: 'a', input: () => 'r' },
        { id: 'child', agent: 'a', parent: 'root', dependsOn: ['root'], input: () => 'c' },
      ],
    });
    const summary = await flow.done();
    const tree = formatTree(summary);
    expect(summary.cost).toEqual({ byAgent: { a: [{ amount: 0.5, unit: 'USD' }] }, total: [{ amount: 0.5, unit: 'USD' }] });
    expect(summary.latency['a']).toMatchObject({ attempts: 2 });
    expect(summary.latency['a']?.firstEventMs).toHaveLength(2);
    expect(summary.latency['a']?.maxMs).toBeLessThanOrEqual(summary.latency['a']?.totalMs ?? -1);
    expect(tree.split('\n')[0]).toMatch(/^workflow w-tree — completed, revision 1, \d+ ms, cost 0\.5 USD$/);
    expect(tree).toMatch(/└─ root \[completed\] on a, \d+ ms, cost 0\.25 USD/);
    expect(tree).toMatch(/ {3}└─ child \[completed\] on a/);
  });
});
