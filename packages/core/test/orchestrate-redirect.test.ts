// The acceptance harness of redirecting running work (seed 003): a service that records an external
// action and delays or loses its answer, and a child that returns after the redirect. The criteria:
// no action is duplicated without verification; no superseded instruction is adopted; when
// reconciliation is impossible the state is explicitly unresolved.
import {
  actionScenario,
  lateScenario,
  startActionService,
  startFaultProxy,
  startTestAgent,
  type ActionService,
  type FaultProxy,
  type PerformedAction,
  type ScenarioContext,
  type TestAgent,
  type TestAgentOptions,
} from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, TetherError, type A2AClient } from '../src/index.js';
import { formatTree, startWorkflow, type ActionSpec, type Workflow, type WorkflowEvent } from '../src/orchestrate-entry.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function service(): Promise<ActionService> {
  const s = await startActionService();
  closers.push(() => s.close());
  return s;
}

async function agent(options: TestAgentOptions): Promise<{ agent: TestAgent; client: A2AClient }> {
  const a = await startTestAgent({ cancelWaitMs: 50, ...options });
  closers.push(() => a.close());
  return { agent: a, client: await connect(a.url, { cardCache: false }) };
}

async function run(options: Parameters<typeof startWorkflow>[0]): Promise<Workflow> {
  const flow = await startWorkflow(options);
  closers.push(() => flow.stop());
  return flow;
}

/** An `act()` spec that books over the service's HTTP API, with its lookup. */
function booking(s: ActionService, revision: number, key: string, input: unknown = { room: 12 }): ActionSpec<PerformedAction> {
  return {
    revision,
    target: 'bookings',
    operation: 'book',
    key,
    input,
    perform: async (k) => {
      const res = await fetch(`${s.url}/actions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: k, operation: 'book', input }) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return (await res.json()) as PerformedAction;
    },
    lookup: async (k) => {
      const res = await fetch(`${s.url}/actions/${encodeURIComponent(k)}`);
      if (res.status === 404) return { found: false };
      if (!res.ok) throw new Error(`lookup HTTP ${res.status}`);
      return { found: true, result: (await res.json()) as PerformedAction };
    },
  };
}

async function untilRunning(flow: Workflow, node: string): Promise<string> {
  for await (const e of flow.events()) if (e.type === 'node' && e.node === node && e.taskId !== undefined && e.state === 'running') return e.taskId;
  throw new Error(`${node} never ran`);
}

describe('the action ledger', () => {
  it('an action whose answer was lost is looked up, not performed again; the same key returns the recorded result', async () => {
    const s = await service();
    const { client } = await agent({ scenarios: { echo: (ctx) => ctx.status('completed') } });
    const flow = await run({ id: 'l1', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => 'x' }] });
    s.loseNextAnswers(1);
    const first = await flow.act(booking(s, flow.revision, 'booking-1'));
    expect(first).toMatchObject({ key: 'booking-1', operation: 'book' });
    expect(s.count('booking-1')).toBe(1);
    expect(s.calls).toHaveLength(1); // the lookup settled it: no second POST
    const entry = flow.snapshot.ledger.find((e) => e.key === 'booking-1');
    expect(entry?.outcome).toBe('confirmed-success');
    expect(entry?.history.map((h) => h.outcome)).toEqual(['intended', 'unknown', 'confirmed-success']);
    // The same intended action again: answered from the ledger, nothing sent.
    const again = await flow.act(booking(s, flow.revision, 'booking-1'));
    expect(again.seq).toBe(first.seq);
    expect(s.calls).toHaveLength(1);
    // The same key for another action is refused.
    const error = await flow.act(booking(s, flow.revision, 'booking-1', { room: 13 })).catch((e: unknown) => e);
    expect((error as TetherError).code).toBe('INVALID_ARGUMENT');
    expect(s.calls).toHaveLength(1);
  });

  it('an unknown outcome nothing can settle is unresolved: its retry is blocked and reported, until a lookup settles it', async () => {
    const s = await service();
    const { client } = await agent({ scenarios: { echo: (ctx) => ctx.status('completed') } });
    const flow = await run({ id: 'l2', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => 'x' }] });
    s.loseNextAnswers(1);
    s.setLookupAvailable(false);
    const error = await flow.act(booking(s, flow.revision, 'booking-2')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect((error as TetherError).code).toBe('ACTION_UNRESOLVED');
    expect(flow.snapshot.ledger.find((e) => e.key === 'booking-2')?.outcome).toBe('unresolved');
    expect(flow.summary().unresolved.some((u) => u.includes('key booking-2') && u.includes('unresolved'))).toBe(true);
    // Retrying is blocked while nothing can tell: the service is not called again.
    const retry = await flow.act(booking(s, flow.revision, 'booking-2')).catch((e: unknown) => e);
    expect((retry as TetherError).code).toBe('ACTION_UNRESOLVED');
    expect(s.calls).toHaveLength(1);
    expect(s.count('booking-2')).toBe(1);
    // Once the service can be asked, the effect is found: confirmed, still performed once.
    s.setLookupAvailable(true);
    const settled = await flow.act(booking(s, flow.revision, 'booking-2'));
    expect(settled.key).toBe('booking-2');
    expect(s.calls).toHaveLength(1);
    expect(flow.snapshot.ledger.find((e) => e.key === 'booking-2')?.outcome).toBe('confirmed-success');
  });

  it('an action without a lookup whose answer was lost is unresolved at once, never retried blind', async () => {
    const s = await service();
    const { client } = await agent({ scenarios: { echo: (ctx) => ctx.status('completed') } });
    const flow = await run({ id: 'l3', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => 'x' }] });
    s.loseNextAnswers(1);
    const { lookup: _none, ...blind } = booking(s, flow.revision, 'booking-3');
    await expect(flow.act(blind)).rejects.toMatchObject({ code: 'ACTION_UNRESOLVED' });
    await expect(flow.act(blind)).rejects.toMatchObject({ code: 'ACTION_UNRESOLVED' });
    expect(s.calls).toHaveLength(1);
  });

  it('a send to an agent whose answer was lost is found by ListTasks (v1.0): the agent acts once', async () => {
    const s = await service();
    const { agent: a } = await agent({ versions: ['1.0'], scenarios: { echo: actionScenario(s, { operation: 'publish' }) } });
    const proxy: FaultProxy = await startFaultProxy({ target: a.origin });
    closers.push(() => proxy.close());
    proxy.addFault({ kind: 'loseAnswer', match: { rpcMethod: /SendStreamingMessage/ } });
    const client = await connect(proxy.url, { cardCache: false, preferredBindings: ['JSONRPC'], resilience: { initialDelayMs: 10 } });
    const flow = await run({ id: 'l4', goal: 'g', agents: { pub: client }, hops: [{ id: 'publish', agent: 'pub', input: () => 'the report' }] });
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    expect(s.effects).toHaveLength(1);
    expect(a.tasks.list()).toHaveLength(1);
  });

  it('a send that never reaches the agent (verified by ListTasks) is sent again with the same key, at most 3 times', async () => {
    const { agent: a } = await agent({ versions: ['1.0'], scenarios: { echo: (ctx) => ctx.status('completed') } });
    const proxy: FaultProxy = await startFaultProxy({ target: a.origin });
    closers.push(() => proxy.close());
    // A 503 before forwarding: the agent never sees it, and the client knows (a reset after the request
    // went out would leave its fate unknown: see the next test).
    proxy.addFault({ kind: 'status', status: 503, times: Infinity, match: { rpcMethod: /SendStreamingMessage/ } });
    // One send per engine attempt, so the test counts the orchestrator's resends.
    const client = await connect(proxy.url, { cardCache: false, preferredBindings: ['JSONRPC'], resilience: { initialDelayMs: 5, maxDelayMs: 20, maxSendAttempts: 1 } });
    const flow = await run({ id: 'l6', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => 'x' }] });
    const summary = await flow.done();
    expect(summary.record.nodes['n']?.state).toBe('failed');
    expect(summary.record.nodes['n']?.reason).toMatch(/not delivered 3 times/);
    // One key throughout: the same intended action, each resend after a verified absence.
    const sends = summary.record.ledger.filter((e) => e.operation === 'SendMessage');
    expect(sends).toHaveLength(1);
    expect(new Set(summary.record.nodes['n']?.attempts.map((x) => x.messageId))).toEqual(new Set([sends[0]?.key]));
    expect(summary.record.nodes['n']?.attempts).toHaveLength(3);
    expect(a.tasks.list()).toHaveLength(0);
    // The ceiling: three sends refused, nothing more.
    expect(proxy.stats.injectedStatus).toBe(3);
  }, 20_000);

  it('a node cancelled while its send is out stays cancelled when the send proves undelivered: not sent again', async () => {
    const { agent: a } = await agent({ versions: ['1.0'], scenarios: { echo: (ctx) => ctx.status('completed') } });
    const proxy: FaultProxy = await startFaultProxy({ target: a.origin });
    closers.push(() => proxy.close());
    proxy.addFault({ kind: 'status', status: 503, times: Infinity, match: { rpcMethod: /SendStreamingMessage/ } });
    // Two engine attempts a second apart (no jitter: a jittered wait can be a few ms), the cancel in between.
    const client = await connect(proxy.url, { cardCache: false, preferredBindings: ['JSONRPC'], random: () => 1, resilience: { initialDelayMs: 1_000, maxDelayMs: 1_000, maxSendAttempts: 2 } });
    const flow = await run({ id: 'l-cancel-undelivered', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => 'x' }] });
    while (proxy.stats.injectedStatus < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    await flow.cancel({ node: 'n', by: 'ann', reason: 'not needed' });
    const summary = await flow.done();
    expect(summary.record.nodes['n']).toMatchObject({ state: 'canceled', cancel: { by: 'ann', outcome: 'not-started' } });
    expect(summary.record.nodes['n']?.attempts).toHaveLength(1);
    expect(summary.state).toBe('canceled');
    expect(proxy.stats.injectedStatus).toBe(2);
    expect(a.tasks.list()).toHaveLength(0);
  }, 20_000);

  it('a send reset after it went out, that the engine looked for within its budget and did not find, is unresolved: not sent again (issue 16)', async () => {
    const { agent: a } = await agent({ versions: ['1.0'], scenarios: { echo: (ctx) => ctx.status('completed') } });
    const proxy: FaultProxy = await startFaultProxy({ target: a.origin });
    closers.push(() => proxy.close());
    proxy.addFault({ kind: 'dropRequest', times: Infinity, match: { rpcMethod: /SendStreamingMessage/ } });
    const client = await connect(proxy.url, { cardCache: false, preferredBindings: ['JSONRPC'], resilience: { initialDelayMs: 5, maxDelayMs: 20, lostSendLookupMs: 300 } });
    const flow = await run({ id: 'l7', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => 'x' }] });
    const summary = await flow.done();
    expect(summary.record.nodes['n']?.state).toBe('unresolved');
    const sends = summary.record.ledger.filter((e) => e.operation === 'SendMessage');
    expect(sends).toHaveLength(1);
    expect(sends[0]?.outcome).toBe('unresolved');
    expect(sends[0]?.history.map((h) => h.outcome)).toEqual(['intended', 'unknown', 'unresolved']);
    expect(proxy.stats.droppedRequests).toBe(1); // sent once, never again
  }, 20_000);

  it('a send whose answer was lost where nothing can look for it (v0.3) is unresolved: not sent again, reported', async () => {
    const s = await service();
    const { agent: a } = await agent({ versions: ['0.3'], scenarios: { echo: actionScenario(s, { operation: 'publish' }) } });
    const proxy: FaultProxy = await startFaultProxy({ target: a.origin });
    closers.push(() => proxy.close());
    proxy.addFault({ kind: 'loseAnswer', match: { rpcMethod: /message\/stream/ } });
    const client = await connect(proxy.url, { cardCache: false, preferredBindings: ['JSONRPC'], resilience: { initialDelayMs: 10 } });
    const flow = await run({ id: 'l5', goal: 'g', agents: { pub: client }, hops: [{ id: 'publish', agent: 'pub', input: () => 'the report' }] });
    const summary = await flow.done();
    expect(summary.record.nodes['publish']?.state).toBe('unresolved');
    expect(summary.record.ledger[0]?.outcome).toBe('unresolved');
    expect(summary.unresolved.some((u) => u.startsWith('publish:') && u.includes('not sent again'))).toBe(true);
    expect(s.effects).toHaveLength(1); // the agent did act, once
    expect(a.tasks.list()).toHaveLength(1);
    expect(summary.state).toBe('failed');
  });
});

describe('done() and actions in flight', () => {
  it('done() waits for an action admitted while the last hop ran: the summary holds its outcome', async () => {
    const { client } = await agent({
      scenarios: {
        echo: (ctx: ScenarioContext) => {
          ctx.status('working');
          ctx.artifact({ artifactId: 'out', text: 'done', lastChunk: true });
          ctx.status('completed');
        },
      },
    });
    const flow = await run({ id: 'r-inflight', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => 'go' }] });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const acted = flow.act({ revision: flow.revision, target: 'mail', operation: 'send', key: 'k1', input: { to: 'x' }, perform: async () => (await released, 'sent') });
    let settled = false;
    void flow.done().then(() => (settled = true));
    for await (const e of flow.events()) if (e.type === 'node' && e.node === 'n' && e.state === 'completed') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(settled).toBe(false);
    release();
    const summary = await flow.done();
    expect(await acted).toBe('sent');
    expect(summary.record.ledger.find((e) => e.key === 'k1')?.outcome).toBe('confirmed-success');
    expect(summary.state).toBe('completed');
  });
});

describe('redirecting running work', () => {
  it('a correction supersedes the running child: stop requested, a successor task carries the new revision, the late result is rejected', async () => {
    const { agent: late } = await agent({ scenarios: { echo: lateScenario({ delayMs: 400, label: 'summary' }) } });
    const { agent: fast, client: fastClient } = await agent({
      scenarios: {
        echo: (ctx) => {
          ctx.artifact({ artifactId: 'facts', text: 'otters hold hands', lastChunk: true });
          ctx.status('completed');
        },
      },
    });
    const lateClient = await connect(late.url, { cardCache: false });
    const flow = await run({
      id: 'r1',
      goal: 'summarize otters for children',
      cancelWaitMs: 100,
      agents: { retrieval: fastClient, summarizer: lateClient },
      hops: [
        { id: 'retrieve', agent: 'retrieval', input: () => 'facts about otters' },
        { id: 'summarize', agent: 'summarizer', dependsOn: ['retrieve'], input: ({ revision, results }) => `${revision.text}: ${results['retrieve']?.text ?? ''}` },
      ],
    });
    const oldTask = await untilRunning(flow, 'summarize');
    const decidedUnder = flow.revision;
    const update = await flow.update({ kind: 'correction', text: 'summarize otters for biologists', affects: ['summarize'], by: 'carol' });
    expect(update).toMatchObject({ seq: 1, kind: 'correction', revision: 2, affects: ['summarize'], by: 'carol' });
    // The gate: an action decided under revision 1 is refused and never runs.
    const s = await service();
    await expect(flow.act(booking(s, decidedUnder, 'too-late'))).rejects.toMatchObject({ code: 'SUPERSEDED' });
    expect(s.calls).toHaveLength(0);
    const events: WorkflowEvent[] = [];
    for await (const e of flow.events()) events.push(e);
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    const node = summary.record.nodes['summarize'];
    expect(node?.attempts).toHaveLength(2);
    const [old, successor] = node?.attempts ?? [];
    // Stop requested, not taken for a stop: the agent kept working and finished late.
    expect(old).toMatchObject({ taskId: oldTask, revision: 1, adopted: false, taskState: 'completed' });
    expect(old?.cancel).toMatchObject({ by: 'carol', outcome: 'ignored', state: 'completed' });
    expect(summary.unresolved).toEqual([]); // the task ended: nothing about it is pending any more
    expect(old?.rejectedReason).toMatch(/revision/);
    expect(events.some((e) => e.type === 'late-result' && e.taskId === oldTask)).toBe(true);
    // The successor: a new task, same context, referencing the old one, under revision 2 — and its result is the one adopted.
    expect(successor).toMatchObject({ revision: 2, adopted: true, referenceTaskIds: [oldTask] });
    const sent = late.tasks.get(successor?.taskId ?? '')?.history[0];
    expect(sent?.contextId).toBe(flow.contextId);
    expect(sent?.referenceTaskIds).toEqual([oldTask]);
    expect(sent?.metadata?.['a2a-tether/revision']).toBe(2);
    const adoptedText = successor?.artifacts?.[0]?.artifact.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    expect(adoptedText).toBe('summary for: summarize otters for biologists: otters hold hands');
    expect(summary.results.find((r) => r.node === 'summarize')?.taskId).toBe(successor?.taskId);
    // The unaffected hop was not run again; the summary says what changed and what was done before.
    expect(fast.tasks.list()).toHaveLength(1);
    expect(summary.changed.map((u) => u.kind)).toEqual(['correction']);
    expect(summary.completedBeforeChange.some((c) => c.startsWith('retrieve:') && c.endsWith('kept'))).toBe(true);
    expect(summary.record.revisions.map((r) => r.text)).toEqual(['summarize otters for children', 'summarize otters for biologists']);
    // A checkpoint of the transition: the new revision, the effects realized, what is reused.
    const checkpoint = summary.record.checkpoints.find((c) => c.reason === 'update 1 (correction)');
    expect(checkpoint).toMatchObject({ revision: 2, reusable: [{ node: 'retrieve' }] });
    expect(summary.record.ledger.find((e) => e.key === 'too-late')?.outcome).toBe('refused');
  });

  it('an action already admitted when an update arrives stays in the ledger until its result is known', async () => {
    const s = await service();
    const { client } = await agent({ scenarios: { echo: lateScenario({ delayMs: 300 }) } });
    const flow = await run({ id: 'r-admitted', goal: 'g', cancelWaitMs: 50, agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: ({ revision }) => revision.text }] });
    await untilRunning(flow, 'n');
    s.delayNextAnswers(1, 300);
    const pending = flow.act(booking(s, flow.revision, 'admitted-1'));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the POST is on its way
    await flow.update({ kind: 'correction', text: 'new instructions' });
    const receipt = await pending;
    expect(receipt.key).toBe('admitted-1');
    const entry = flow.snapshot.ledger.find((e) => e.key === 'admitted-1');
    expect(entry?.history.map((h) => h.outcome)).toEqual(['intended', 'confirmed-success']);
    expect(s.count('admitted-1')).toBe(1);
    await flow.done();
  });

  it('an agent that answers for another revision than it was given is not adopted', async () => {
    const { client } = await agent({
      scenarios: {
        echo: (ctx) => {
          ctx.artifact({ artifactId: 'out', text: 'stale', lastChunk: true, metadata: { 'a2a-tether/revision': 7 } });
          ctx.status('completed');
        },
      },
    });
    const flow = await run({ id: 'r2', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => 'x' }] });
    const summary = await flow.done();
    expect(summary.record.nodes['n']?.state).toBe('failed');
    expect(summary.record.nodes['n']?.attempts[0]?.rejectedReason).toBe('the agent answered for revision 7, not 1');
    expect(summary.record.nodes['n']?.attempts[0]?.adopted).not.toBe(true);
    expect(summary.results).toEqual([]);
  });

  it('a pause stops new hops from starting while running ones go on; resume lets them start; a question changes nothing', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { agent: a, client } = await agent({
      scenarios: {
        echo: async (ctx) => {
          ctx.status('working');
          if (ctx.text === 'first') await held;
          ctx.artifact({ artifactId: 'out', text: ctx.text, lastChunk: true });
          ctx.status('completed');
        },
      },
    });
    const flow = await run({
      id: 'r3',
      goal: 'g',
      agents: { a: client },
      hops: [
        { id: 'first', agent: 'a', input: () => 'first' },
        { id: 'second', agent: 'a', dependsOn: ['first'], input: () => 'second' },
      ],
    });
    await untilRunning(flow, 'first');
    await flow.update({ kind: 'question', text: 'how far along are you?' });
    await flow.update({ kind: 'pause', text: 'hold on' });
    expect(flow.snapshot.state).toBe('paused');
    release();
    for await (const e of flow.events()) if (e.type === 'node' && e.node === 'first' && e.state === 'completed') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(flow.snapshot.nodes['first']?.state).toBe('completed'); // the running hop was not cancelled
    expect(flow.snapshot.nodes['second']?.state).toBe('pending'); // and nothing new started
    expect(a.tasks.list()).toHaveLength(1);
    await flow.update({ kind: 'resume', text: 'go on' });
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    expect(summary.revision).toBe(1);
    expect(summary.record.updates.map((u) => u.kind)).toEqual(['question', 'pause', 'resume']);
  });
});

describe('requiring the revision echo (seed 003: the accepted revision must be in each result)', () => {
  /** An agent that answers `text`; `echo(ctx)` gives the metadata its artifact and final status carry. */
  function answering(echo: (ctx: ScenarioContext) => { artifact?: Record<string, unknown>; status?: Record<string, unknown> }): TestAgentOptions {
    return {
      scenarios: {
        echo: (ctx) => {
          const { artifact, status } = echo(ctx);
          ctx.status('working');
          ctx.artifact({ artifactId: 'out', text: `answer to ${ctx.text}`, lastChunk: true, ...(artifact ? { metadata: artifact } : {}) });
          ctx.status('completed', 'done', status ? { metadata: status } : undefined);
        },
      },
    };
  }
  const given = (ctx: ScenarioContext): unknown => ctx.userMessage.metadata?.['a2a-tether/revision'];

  it('a result that carries no revision is recorded, not adopted, where the hop requires the echo (and adopted where it does not)', async () => {
    const { client } = await agent(answering(() => ({})));
    const flow = await run({
      id: 'echo-missing',
      goal: 'g',
      agents: { a: client },
      hops: [
        { id: 'draft', agent: 'a', requireRevisionEcho: true, input: () => 'draft' },
        { id: 'publish', agent: 'a', dependsOn: ['draft'], input: ({ results }) => `publish ${results['draft']?.text ?? ''}` },
        { id: 'loose', agent: 'a', input: () => 'loose' },
      ],
    });
    const summary = await flow.done();
    const draft = summary.record.nodes['draft'];
    const why = 'the answer does not carry revision 1 (a2a-tether/revision in its metadata), which this hop requires (requireRevisionEcho)';
    expect(draft).toMatchObject({ state: 'failed', reason: why });
    // Recorded for audit: the task, its state and its artifacts — but not adopted, and not passed on.
    expect(draft?.attempts).toHaveLength(1);
    expect(draft?.attempts[0]).toMatchObject({ state: 'failed', taskState: 'completed', rejectedReason: why });
    expect(draft?.attempts[0]?.adopted).not.toBe(true);
    expect(draft?.attempts[0]?.artifacts?.[0]?.artifact.parts).toEqual([{ kind: 'text', text: 'answer to draft' }]);
    expect(summary.record.ledger.find((e) => e.node === 'draft' && e.operation === 'SendMessage')?.outcome).toBe('confirmed-success');
    expect(summary.record.nodes['publish']).toMatchObject({ state: 'skipped', reason: 'draft ended failed' });
    expect(summary.record.nodes['loose']?.state).toBe('completed');
    expect(summary.results.map((r) => r.node)).toEqual(['loose']);
    expect(summary.state).toBe('partial');
    expect(formatTree(summary)).toContain(`not adopted: ${why}`);
  });

  it('an agent that echoes the revision in its final status or its artifacts is adopted; after a correction, only the successor is', async () => {
    const { agent: inStatus, client: statusClient } = await agent(answering((ctx) => ({ status: { 'a2a-tether/revision': given(ctx) } })));
    const { agent: late } = await agent({ scenarios: { echo: lateScenario({ delayMs: 300, label: 'summary' }) } }); // echoes in its artifact
    const flow = await run({
      id: 'echo-kept',
      goal: 'for children',
      cancelWaitMs: 100,
      agents: { facts: statusClient, summarizer: await connect(late.url, { cardCache: false }) },
      hops: [
        { id: 'retrieve', agent: 'facts', requireRevisionEcho: true, input: () => 'otters' },
        { id: 'summarize', agent: 'summarizer', requireRevisionEcho: true, dependsOn: ['retrieve'], input: ({ revision, results }) => `${revision.text}: ${results['retrieve']?.text ?? ''}` },
      ],
    });
    const oldTask = await untilRunning(flow, 'summarize');
    await flow.update({ kind: 'correction', text: 'for biologists', affects: ['summarize'] });
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    expect(summary.record.nodes['retrieve']?.attempts[0]).toMatchObject({ revision: 1, adopted: true });
    const [old, successor] = summary.record.nodes['summarize']?.attempts ?? [];
    expect(old).toMatchObject({ taskId: oldTask, revision: 1, adopted: false });
    expect(successor).toMatchObject({ revision: 2, adopted: true, state: 'completed' });
    expect(successor?.artifacts?.[0]?.artifact.metadata).toEqual({ 'a2a-tether/revision': 2 });
    expect(inStatus.tasks.list()).toHaveLength(1);
  });

  it('a result that names another revision anywhere is not adopted, even beside the accepted one (with or without the option)', async () => {
    const { client } = await agent(answering((ctx) => ({ status: { 'a2a-tether/revision': given(ctx) }, artifact: { 'a2a-tether/revision': '7' } })));
    const flow = await run({
      id: 'echo-mixed',
      goal: 'g',
      agents: { a: client },
      hops: [
        { id: 'strict', agent: 'a', requireRevisionEcho: true, input: () => 'x' },
        { id: 'lenient', agent: 'a', input: () => 'y' },
      ],
    });
    const summary = await flow.done();
    for (const id of ['strict', 'lenient']) {
      expect(summary.record.nodes[id], id).toMatchObject({ state: 'failed', reason: 'the agent answered for revision 7, not 1' });
      expect(summary.record.nodes[id]?.attempts[0]?.adopted, id).not.toBe(true);
    }
    expect(summary.results).toEqual([]);
  });

  it('a direct message answer carries no revision: not adopted where the hop requires the echo', async () => {
    const { client } = await agent({ scenarios: { echo: (ctx) => ctx.message(`reply to ${ctx.text}`) } });
    const flow = await run({
      id: 'echo-message',
      goal: 'g',
      agents: { a: client },
      hops: [
        { id: 'strict', agent: 'a', requireRevisionEcho: true, input: () => 'x' },
        { id: 'lenient', agent: 'a', input: () => 'y' },
      ],
    });
    const summary = await flow.done();
    expect(summary.record.nodes['strict']).toMatchObject({ state: 'failed', reason: expect.stringContaining('does not carry revision 1') });
    expect(summary.record.nodes['strict']?.attempts[0]?.adopted).not.toBe(true);
    expect(summary.record.nodes['strict']?.attempts[0]?.artifacts?.[0]?.artifact.parts).toEqual([{ kind: 'text', text: 'reply to x' }]);
    expect(summary.record.nodes['lenient']?.state).toBe('completed');
    expect(summary.results.map((r) => r.node)).toEqual(['lenient']);
  });
});
