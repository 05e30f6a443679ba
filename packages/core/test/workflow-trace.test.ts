import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connect, type FrameworkSpan, type FrameworkSpanEnd, type TetherPlugin } from '../src/index.js';
import { MemoryWorkflowStore, startWorkflow, type Workflow } from '../src/orchestrate-entry.js';

// Issue 18, point 3 for workflows: a workflow's hops and every request of their tasks share one trace
// id, with or without a tracer plugin; the trace is kept in the workflow's record, so an orchestrator
// restarted from its store continues it; plugins see the workflow's and each hop's span open and end.

const agents: TestAgent[] = [];
const flows: Workflow[] = [];
afterEach(async () => {
  for (const flow of flows.splice(0)) flow.stop();
  await Promise.all(agents.splice(0).map((a) => a.close()));
  vi.restoreAllMocks();
});

async function agent(): Promise<TestAgent> {
  const started = await startTestAgent();
  agents.push(started);
  return started;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;
const traceId = (tp: unknown): string => (TRACEPARENT.exec(String(tp)) ?? [])[1] ?? 'none';

/** A plugin that records the framework spans it is shown, in order, and gives each a context of its own. */
function spanRecorder(): TetherPlugin & { log: string[]; spans: FrameworkSpan[]; ends: FrameworkSpanEnd[] } {
  let n = 0;
  const plugin = {
    name: 'spans',
    log: [] as string[],
    spans: [] as FrameworkSpan[],
    ends: [] as FrameworkSpanEnd[],
    onSpanStart(span: FrameworkSpan) {
      plugin.spans.push(span);
      plugin.log.push(`start ${span.kind} ${span.node ?? span.workflowId}`);
      const trace = traceId(span.parent?.traceparent);
      return { traceparent: `00-${trace === 'none' ? 'a'.repeat(32) : trace}-${(++n).toString(16).padStart(16, '0')}-01` };
    },
    onSpanEnd(span: FrameworkSpan, end: FrameworkSpanEnd) {
      plugin.ends.push(end);
      plugin.log.push(`end ${span.kind} ${span.node ?? span.workflowId} ${end.state ?? '?'}`);
    },
  };
  return plugin;
}

const TWO_HOPS = [
  { id: 'one', agent: 'a', input: () => 'stream updates=2 chunks=2 delayMs=5' },
  { id: 'two', agent: 'b', parent: 'one', dependsOn: ['one'], input: () => 'stream updates=2 chunks=2 delayMs=5' },
];

describe('a workflow is one trace', () => {
  it('without a tracer: every request of every hop continues the caller\'s trace, and the record keeps it', async () => {
    const [a, b] = await Promise.all([agent(), agent()]);
    const [ca, cb] = await Promise.all([connect(a.url, { cardCache: false }), connect(b.url, { cardCache: false })]);
    a.requests.length = 0;
    b.requests.length = 0;
    const caller = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const flow = await startWorkflow({ id: 'w1', goal: 'g', agents: { a: ca, b: cb }, hops: TWO_HOPS, traceContext: { traceparent: caller } });
    flows.push(flow);
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    const posts = [...a.requests, ...b.requests].filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(2);
    for (const r of posts) expect(traceId(r.headers['traceparent'])).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(traceId(summary.record.trace?.traceparent)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    // The workflow's own span is a new one in that trace, not the caller's.
    expect(summary.record.trace?.traceparent).not.toBe(caller);
  });

  it('plugins see the workflow open, each hop open and end with its task and state, then the workflow end; hop two names its parent task', async () => {
    const [a, b] = await Promise.all([agent(), agent()]);
    const plugin = spanRecorder();
    const [ca, cb] = await Promise.all([connect(a.url, { cardCache: false, plugins: [plugin] }), connect(b.url, { cardCache: false, plugins: [plugin] })]);
    const flow = await startWorkflow({ id: 'w2', name: 'pipeline', goal: 'g', agents: { a: ca, b: cb }, hops: TWO_HOPS });
    flows.push(flow);
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    // One plugin on both clients is told once per span (the workflow takes the distinct plugins of its agents).
    expect(plugin.log).toEqual(['start workflow w2', 'start hop one', 'end hop one completed', 'start hop two', 'end hop two completed', 'end workflow w2 completed']);
    const [workflow, one, two] = plugin.spans;
    expect(workflow).toMatchObject({ kind: 'workflow', workflowName: 'pipeline', contextId: summary.record.contextId, resumed: false });
    expect(one).toMatchObject({ kind: 'hop', node: 'one', attempt: 1, agent: { name: ca.card.name }, parentTaskId: undefined });
    const taskOne = summary.record.nodes['one']?.attempts[0]?.taskId;
    expect(two?.parentTaskId).toBe(taskOne);
    expect(plugin.ends[0]).toMatchObject({ state: 'completed', taskId: taskOne, error: undefined });
    // The hop's context is what the plugin returned: the hop's requests are its children.
    expect(one?.parent?.traceparent).toBe(summary.record.trace?.traceparent);
    const hopSpan = '0000000000000002';
    const posts = a.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(1);
    for (const r of posts) expect(traceId(r.headers['traceparent'])).toBe(traceId(summary.record.trace?.traceparent));
    expect(posts[0]?.headers['traceparent']).not.toContain(hopSpan); // a child span of the hop, not the hop itself
  });

  it('a plugin whose onSpanStart throws is reported once and the workflow runs on, still one trace', async () => {
    const [a, b] = await Promise.all([agent(), agent()]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const broken: TetherPlugin = {
      name: 'broken',
      onSpanStart() {
        throw new Error('no spans today');
      },
    };
    const [ca, cb] = await Promise.all([connect(a.url, { cardCache: false }), connect(b.url, { cardCache: false })]);
    const flow = await startWorkflow({ id: 'w3', goal: 'g', agents: { a: ca, b: cb }, hops: TWO_HOPS, plugins: [broken] });
    flows.push(flow);
    expect((await flow.done()).state).toBe('completed');
    const messages = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('"broken"'));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('onSpanStart');
    const posts = [...a.requests, ...b.requests].filter((r) => r.method === 'POST');
    expect(new Set(posts.map((r) => traceId(r.headers['traceparent']))).size).toBe(1);
  });

  it('an orchestrator restarted from its store continues the workflow\'s trace: the resumed follow\'s requests carry the same trace id', async () => {
    const a = await agent();
    const store = new MemoryWorkflowStore();
    const hops = [{ id: 'long', agent: 'a', input: () => 'stream updates=12 chunks=12 delayMs=25' }];
    const before = spanRecorder();
    const first = await startWorkflow({ id: 'w4', goal: 'g', store, agents: { a: await connect(a.url, { cardCache: false, plugins: [before] }) }, hops });
    flows.push(first);
    for await (const event of first.events()) if (event.type === 'node' && event.taskId !== undefined) break;
    first.stop();
    // Stopping ends the open spans: the hop's (detached: its task runs on), then the workflow's.
    expect(before.log).toEqual(['start workflow w4', 'start hop long', 'end hop long detached', 'end workflow w4 stopped']);
    const trace = traceId((await store.load('w4'))?.trace?.traceparent);
    expect(trace).not.toBe('none');
    a.requests.length = 0;
    const plugin = spanRecorder();
    const second = await startWorkflow({ id: 'w4', goal: 'g', store, agents: { a: await connect(a.url, { cardCache: false, plugins: [plugin] }) }, hops });
    flows.push(second);
    expect((await second.done()).state).toBe('completed');
    const posts = a.requests.filter((r) => r.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(1);
    for (const r of posts) expect(traceId(r.headers['traceparent'])).toBe(trace);
    expect(plugin.spans[0]).toMatchObject({ kind: 'workflow', resumed: true });
    expect(traceId(plugin.spans[0]?.parent?.traceparent)).toBe(trace);
    expect(plugin.spans[1]).toMatchObject({ kind: 'hop', node: 'long', resumed: true });
  });
});
