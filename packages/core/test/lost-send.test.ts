import { startFaultProxy, startTestAgent, type FaultProxy, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type FetchLike, type Resend } from '../src/index.js';
import { MemoryWorkflowStore, startWorkflow, type LedgerEntry } from '../src/orchestrate-entry.js';

let agent: TestAgent | undefined;
let proxy: FaultProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await agent?.close();
});

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/** The message a send carries (JSON-RPC `params.message` or a REST body's `message`), if any. */
function sentMessage(body: unknown): { messageId: string; text: string } | undefined {
  const holder = isJson(body) && isJson(body['params']) ? body['params'] : body;
  const message = isJson(holder) ? holder['message'] : undefined;
  if (!isJson(message) || typeof message['messageId'] !== 'string') return undefined;
  return { messageId: message['messageId'], text: JSON.stringify(message['parts'] ?? message['content'] ?? '') };
}

/** The message ids of the sends carrying `probe`, in the order the agent received them. */
function receivedIds(a: TestAgent, probe: string): string[] {
  return a.requests.flatMap((r) => {
    const message = sentMessage(r.body);
    return message?.text.includes(probe) ? [message.messageId] : [];
  });
}

/** A fetch that notes the message id of every send the client makes (what left the client, faults or not). */
function recordingFetch(): { fetch: FetchLike; sentIds: string[] } {
  const sentIds: string[] = [];
  const fetch: FetchLike = (input, init) => {
    if (typeof init?.body === 'string') {
      const message = sentMessage(JSON.parse(init.body) as unknown);
      if (message) sentIds.push(message.messageId);
    }
    return globalThis.fetch(input, init);
  };
  return { fetch, sentIds };
}

/** The agent's tasks whose history holds this message id. */
function tasksWith(a: TestAgent, messageId: string): string[] {
  return a.tasks.list().flatMap((t) => (t.history.some((m) => m.messageId === messageId) ? [t.id] : []));
}

describe.each([
  ['JSONRPC', /SendStreamingMessage/, undefined],
  ['HTTP+JSON', undefined, /message:stream/],
] as const)('a send whose answer is lost, v1.0 %s', (binding, rpcMethod, path) => {
  it('is found with ListTasks and adopted: the message is sent once, and the agent receives it once', async () => {
    agent = await startTestAgent({ versions: ['1.0'] });
    proxy = await startFaultProxy({ target: agent.origin });
    proxy.addFault({ kind: 'loseAnswer', match: rpcMethod ? { rpcMethod } : { path } });
    const { fetch, sentIds } = recordingFetch();
    const client = await connect(proxy.url, { fetch, cardCache: false, preferredBindings: [binding], resilience: { initialDelayMs: 10 } });
    const handle = await client.start('stream updates=2 chunks=4 delayMs=20 lost-send-probe');
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    expect(proxy.stats.lostAnswers).toBe(1);
    expect(sentIds).toHaveLength(1);
    const [id] = sentIds as [string];
    expect(receivedIds(agent, 'lost-send-probe')).toEqual([id]);
    expect(tasksWith(agent, id)).toEqual([final.id]);
  });
});

describe('a send that never reached the agent (reset after it went out: the client cannot tell)', () => {
  it('is not sent again: looked for within lostSendLookupMs, then DELIVERY_UNKNOWN', async () => {
    agent = await startTestAgent({ versions: ['1.0'] });
    proxy = await startFaultProxy({ target: agent.origin });
    proxy.addFault({ kind: 'dropRequest', match: { rpcMethod: /SendStreamingMessage/ } });
    const { fetch, sentIds } = recordingFetch();
    const client = await connect(proxy.url, { fetch, cardCache: false, preferredBindings: ['JSONRPC'], resilience: { initialDelayMs: 10, lostSendLookupMs: 500 } });
    const error = await client.start('stream updates=1 chunks=2 delayMs=5 dropped-probe').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'DELIVERY_UNKNOWN', messageId: sentIds[0] });
    expect(proxy.stats.droppedRequests).toBe(1);
    expect(sentIds).toHaveLength(1);
    expect(receivedIds(agent, 'dropped-probe')).toEqual([]);
  });

  it('resendUnknownDeliveries (an agent that deduplicates): sent again with the same messageId, reported to onResend', async () => {
    agent = await startTestAgent({ versions: ['1.0'] });
    proxy = await startFaultProxy({ target: agent.origin });
    proxy.addFault({ kind: 'dropRequest', match: { rpcMethod: /SendStreamingMessage/ } });
    const { fetch, sentIds } = recordingFetch();
    const client = await connect(proxy.url, {
      fetch,
      cardCache: false,
      preferredBindings: ['JSONRPC'],
      resilience: { initialDelayMs: 10, lostSendLookupMs: 500, resendUnknownDeliveries: true },
    });
    const resends: Resend[] = [];
    const handle = await client.start('stream updates=1 chunks=2 delayMs=5 dropped-probe', { onResend: (r) => resends.push(r) });
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    // Two sends left the client (the first was dropped), both with the one message id.
    const [id] = sentIds as [string];
    expect(sentIds).toEqual([id, id]);
    expect(resends).toEqual([expect.objectContaining({ messageId: id, attempt: 2, reason: 'unknown', purpose: 'start' })]);
    expect(receivedIds(agent, 'dropped-probe')).toEqual([id]);
    expect(tasksWith(agent, id)).toEqual([final.id]);
  });
});

describe('an agent that takes the message and stores its task 4 s later, the first answer lost (issue 16)', () => {
  const TASK = 'stream updates=1 chunks=2 delayMs=5 createAfterMs=4000';

  async function slowAgent(): Promise<TestAgent> {
    agent = await startTestAgent({ versions: ['1.0'], behaviour: { loseAnswers: 1 } });
    return agent;
  }

  /** Waits (bounded: 100 × 100 ms) until the agent holds a task with this message, then a little longer for a second one. */
  async function settledTasksWith(a: TestAgent, messageId: string): Promise<string[]> {
    for (let i = 0; i < 100 && tasksWith(a, messageId).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 300));
    return tasksWith(a, messageId);
  }

  it('client.start(): looked for until the task appears, adopted; sent once, run once', async () => {
    const a = await slowAgent();
    const { fetch, sentIds } = recordingFetch();
    const client = await connect(a.url, { fetch, cardCache: false, preferredBindings: ['JSONRPC'] });
    const resends: Resend[] = [];
    const handle = await client.start(`${TASK} slow-create-probe`, { onResend: (r) => resends.push(r) });
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    const [id] = sentIds as [string];
    expect(sentIds).toEqual([id]);
    expect(resends).toEqual([]);
    expect(receivedIds(a, 'slow-create-probe')).toEqual([id]);
    expect(await settledTasksWith(a, id)).toEqual([final.id]);
  }, 20_000);

  it('a workflow: the ledger shows the one send, confirmed with the task the agent ran once', async () => {
    const a = await slowAgent();
    const client = await connect(a.url, { cardCache: false, preferredBindings: ['JSONRPC'] });
    const flow = await startWorkflow({ id: 'slow-create', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => `${TASK} wf-probe` }] });
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    const sends = summary.record.ledger.filter((e) => e.operation === 'SendMessage');
    expect(sends).toHaveLength(1);
    const [send] = sends as [LedgerEntry];
    expect(send.outcome).toBe('confirmed-success');
    expect(send.history.some((h) => h.note?.startsWith('sent again'))).toBe(false);
    const ran = await settledTasksWith(a, send.key);
    expect(ran).toHaveLength(1);
    expect(send.result).toEqual({ taskId: ran[0] });
    expect(receivedIds(a, 'wf-probe')).toEqual([send.key]);
  }, 20_000);

  it('a workflow stopped while its send is looked for and started again at once: the restart keeps looking too; sent once, run once', async () => {
    const a = await slowAgent();
    const store = new MemoryWorkflowStore();
    const hops = [{ id: 'n', agent: 'a', input: () => `${TASK} wf-restart-probe` }];
    const client = await connect(a.url, { cardCache: false, preferredBindings: ['JSONRPC'] });
    const first = await startWorkflow({ id: 'restart-lookup', goal: 'g', store, agents: { a: client }, hops });
    // The message reached the agent (its answer is lost; the task comes 4 s later): the process "dies".
    for (let i = 0; i < 100 && receivedIds(a, 'wf-restart-probe').length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 200));
    first.stop();
    const again = await connect(a.url, { cardCache: false, preferredBindings: ['JSONRPC'] });
    const second = await startWorkflow({ id: 'restart-lookup', goal: 'g', store, agents: { a: again }, hops });
    const summary = await second.done();
    expect(summary.state).toBe('completed');
    const sends = summary.record.ledger.filter((e) => e.operation === 'SendMessage');
    expect(sends).toHaveLength(1);
    const [send] = sends as [LedgerEntry];
    expect(receivedIds(a, 'wf-restart-probe')).toEqual([send.key]);
    expect(await settledTasksWith(a, send.key)).toHaveLength(1);
    expect(send.outcome).toBe('confirmed-success');
  }, 30_000);

  it('a lookup budget shorter than the agent takes: DELIVERY_UNKNOWN, nothing sent again; a workflow records it unresolved', async () => {
    const a = await slowAgent();
    const { fetch, sentIds } = recordingFetch();
    const client = await connect(a.url, { fetch, cardCache: false, preferredBindings: ['JSONRPC'], resilience: { lostSendLookupMs: 1_000 } });
    const error = await client.start(`${TASK} short-budget-probe`).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'DELIVERY_UNKNOWN', messageId: sentIds[0], maybeDelivered: true });
    expect(sentIds).toHaveLength(1);
    expect(await settledTasksWith(a, sentIds[0] as string)).toHaveLength(1); // the agent ran it, once

    a.setBehaviour({ loseAnswers: 1 });
    const flow = await startWorkflow({ id: 'short-budget', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => `${TASK} wf-short-probe` }] });
    const summary = await flow.done();
    expect(summary.record.nodes['n']?.state).toBe('unresolved');
    const sends = summary.record.ledger.filter((e) => e.operation === 'SendMessage');
    expect(sends).toHaveLength(1);
    expect(sends[0]?.outcome).toBe('unresolved');
    expect(sends[0]?.history.map((h) => h.outcome)).toEqual(['intended', 'unknown', 'unresolved']);
    expect(receivedIds(a, 'wf-short-probe')).toEqual([sends[0]?.key]);
    expect(await settledTasksWith(a, sends[0]?.key as string)).toHaveLength(1);
  }, 30_000);

  it('resendUnknownDeliveries with a short budget: sent again, and the workflow ledger records the second send', async () => {
    const a = await slowAgent();
    const client = await connect(a.url, { cardCache: false, preferredBindings: ['JSONRPC'], resilience: { lostSendLookupMs: 500, resendUnknownDeliveries: true } });
    const flow = await startWorkflow({ id: 'resend', goal: 'g', agents: { a: client }, hops: [{ id: 'n', agent: 'a', input: () => `${TASK} wf-resend-probe` }] });
    const summary = await flow.done();
    expect(summary.state).toBe('completed');
    const [send] = summary.record.ledger.filter((e) => e.operation === 'SendMessage') as [LedgerEntry];
    const notes = send.history.flatMap((h) => (h.note === undefined ? [] : [h.note]));
    expect(notes.filter((n) => n.startsWith('sent again (send 2, the same message id)'))).toHaveLength(1);
    expect(send.outcome).toBe('confirmed-success');
    // This agent does not deduplicate (the opt-in was wrong for it): it ran the message twice — and the ledger says it was sent twice.
    expect(receivedIds(a, 'wf-resend-probe')).toEqual([send.key, send.key]);
  }, 20_000);
});
