import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, InternalError, InvalidParamsError, TaskNotFoundError, TetherError, UnsupportedOperationError, type A2AClient, type A2AError, type Binding, type ProtocolVersion, type StreamEvent, type Task } from '../src/index.js';

// Issue 33, point 8: real servers' deviations from the spec, each reproduced by a testkit misbehaviour,
// on every binding and version the fake agent speaks. Every cut case ends with the agent's exact result.

let agent: TestAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

const COMBOS = [
  ['1.0', 'JSONRPC'],
  ['1.0', 'HTTP+JSON'],
  ['0.3', 'JSONRPC'],
  ['0.3', 'HTTP+JSON'],
] as const satisfies ReadonlyArray<readonly [ProtocolVersion, Binding]>;

async function clientOf(a: TestAgent, version: ProtocolVersion, binding: Binding): Promise<A2AClient> {
  const client = await connect(a.url, {
    cardCache: false,
    protocolVersions: [version],
    preferredBindings: [binding],
    resilience: { initialDelayMs: 5, maxDelayMs: 20, pollMinMs: 10, streamRetryMs: 20 },
  });
  expect([client.interface.protocolVersion, client.interface.binding]).toEqual([version, binding]);
  return client;
}

/** Each artifact as `id name: text`, the text of all its parts joined (chunks are parts). */
function artifactTexts(artifacts: ReadonlyArray<{ artifactId: string; name?: string | undefined; parts: ReadonlyArray<{ kind: string; text?: string }> }>): string[] {
  return artifacts.map((a) => `${a.artifactId} ${a.name ?? ''}: ${a.parts.map((p) => (p.kind === 'text' ? p.text : `[${p.kind}]`)).join('')}`);
}

/** The follow's result is the agent's task: its final state, and its artifacts exactly. */
function expectAgentsResult(a: TestAgent, final: Task): void {
  const own = a.tasks.get(final.id);
  expect(own?.state).toBe(final.status.state);
  expect(artifactTexts(final.artifacts)).toEqual(artifactTexts(own?.artifacts ?? []));
  expect(final.artifacts.length).toBeGreaterThan(0);
}

describe.each(COMBOS)('a subscription to a finished task refused as the reference server does, v%s %s', (version, binding) => {
  it('is followed by one GetTask: done() is the completed task with its artifacts', async () => {
    agent = await startTestAgent({ versions: [version] });
    const client = await clientOf(agent, version, binding);
    // The stream ends cleanly just before the terminal status; the resubscribe finds the task finished.
    const handle = await client.start('stream updates=1 chunks=3 delayMs=5 misbehave=terminalViaGet,refuseFinished');
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    expectAgentsResult(agent, final);
    const subscriptions = agent.requests.filter((r) => /SubscribeToTask|tasks\/resubscribe|:subscribe/.test(JSON.stringify([r.path, r.body])));
    expect(subscriptions.length).toBeGreaterThanOrEqual(1);
  });
});

/** Reads a raw stream to its end: its events' kinds, and what it threw. */
async function drain(stream: AsyncIterable<StreamEvent>): Promise<{ kinds: string[]; taskIds: Set<string>; error: unknown }> {
  const kinds: string[] = [];
  const taskIds = new Set<string>();
  try {
    for await (const event of stream) {
      kinds.push(event.kind);
      if (event.kind === 'task') taskIds.add(event.id);
      else if (event.kind !== 'message') taskIds.add(event.taskId);
    }
    return { kinds, taskIds, error: undefined };
  } catch (error) {
    return { kinds, taskIds, error };
  }
}

describe.each(COMBOS)('a stream reset mid-way (resetStream), v%s %s', (version, binding) => {
  it('a raw streamMessage() throws STREAM_INTERRUPTED with the task id (the reset in its cause)', async () => {
    agent = await startTestAgent({ versions: [version] });
    const client = await clientOf(agent, version, binding);
    const read = await drain(client.streamMessage('stream updates=0 chunks=5 delayMs=15 misbehave=resetStream mbResetAt=4'));
    expect(read.kinds.length).toBeGreaterThanOrEqual(1);
    expect(read.taskIds.size).toBe(1);
    const [taskId] = read.taskIds;
    expect(read.error).toBeInstanceOf(TetherError);
    expect(read.error).toMatchObject({ code: 'STREAM_INTERRUPTED', taskId, isRetryable: true });
    expect((read.error as TetherError).cause).toMatchObject({ code: 'NETWORK' });
  });

  it('a raw subscribe() throws STREAM_INTERRUPTED with the task id', async () => {
    agent = await startTestAgent({ versions: [version] });
    const client = await clientOf(agent, version, binding);
    const sent = await client.sendMessage('slow steps=8 delayMs=25 misbehave=resetStream mbResetAt=4', { returnImmediately: true });
    expect(sent.kind).toBe('task');
    const taskId = (sent as Task).id;
    const read = await drain(client.subscribe(taskId));
    expect(read.error).toMatchObject({ code: 'STREAM_INTERRUPTED', taskId });
  });

  it('a followed task resumes after the reset and ends with the agent\'s exact result', async () => {
    agent = await startTestAgent({ versions: [version] });
    const client = await clientOf(agent, version, binding);
    const handle = await client.start('stream updates=2 chunks=4 delayMs=5 misbehave=resetStream mbResetAt=4');
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    expectAgentsResult(agent, final);
  });
});

describe.each(COMBOS)('a CancelTask whose answer is cut (cutCancel), v%s %s', (version, binding) => {
  it('cancel() looks (GetTask) instead of rejecting: requested, confirmed by what it saw; done() is the agent\'s task', async () => {
    agent = await startTestAgent({ versions: [version] });
    const client = await clientOf(agent, version, binding);
    const handle = await client.start('slow steps=60 delayMs=15 misbehave=cutCancel');
    for await (const event of handle.events()) if (event.type === 'artifact') break;
    const outcome = await handle.cancel({ reason: 'enough' });
    expect(outcome).toMatchObject({ requested: true, confirmed: true, state: 'canceled', answerLost: { code: 'NETWORK' } });
    const final = await handle.done();
    expect(final.status.state).toBe('canceled');
    expectAgentsResult(agent, final);
    const cancels = agent.requests.filter((r) => /CancelTask|tasks\/cancel|:cancel/.test(JSON.stringify([r.path, r.body])));
    expect(cancels).toHaveLength(1);
  });
});

describe('a CancelTask whose answer is cut, on an agent that finishes the task instead (G5)', () => {
  it('cancel() reports what it saw: requested, not confirmed, completed', async () => {
    agent = await startTestAgent({
      versions: ['1.0'],
      behaviour: { misbehave: ['cutCancel'] },
      scenarios: {
        // Asked to cancel, it completes the task anyway.
        finishes: async (ctx) => {
          ctx.status('working');
          await new Promise((resolve) => ctx.cancelled.addEventListener('abort', resolve, { once: true }));
          ctx.artifact({ artifactId: 'result', name: 'result', text: 'done anyway', lastChunk: true });
          ctx.status('completed');
        },
      },
    });
    const client = await clientOf(agent, '1.0', 'JSONRPC');
    const handle = await client.start('finishes');
    expect(await handle.cancel()).toMatchObject({ requested: true, confirmed: false, state: 'completed', answerLost: { code: 'NETWORK' } });
    const final = await handle.done();
    expectAgentsResult(agent, final);
  });
});

describe('an HTTP+JSON error frame without ErrorInfo (noErrorInfo): the agent\'s error, not a malformed event', () => {
  it.each([
    [-32001, TaskNotFoundError],
    [-32004, UnsupportedOperationError],
    [-32602, InvalidParamsError],
    [-32603, InternalError],
  ] as const)('a raw stream: code %s is read from its status as that A2A error class', async (code, cls) => {
    agent = await startTestAgent({ versions: ['1.0'] });
    const client = await clientOf(agent, '1.0', 'HTTP+JSON');
    const read = await drain(client.streamMessage(`stream updates=1 chunks=3 delayMs=5 misbehave=streamError,noErrorInfo mbErrorAt=3 mbCode=${code}`));
    expect(read.kinds).toHaveLength(2);
    expect(read.error).toBeInstanceOf(cls);
    expect(read.error).toMatchObject({ a2aCode: code, inStream: true });
  });

  it('a followed task ends with the agent\'s error, the same class as over JSON-RPC (with ErrorInfo)', async () => {
    agent = await startTestAgent({ versions: ['1.0'] });
    const text = 'stream updates=1 chunks=3 delayMs=5 misbehave=streamError,noErrorInfo mbErrorAt=3 mbCode=-32004';
    const errors: unknown[] = [];
    for (const binding of ['HTTP+JSON', 'JSONRPC'] as const) {
      const handle = await (await clientOf(agent, '1.0', binding)).start(text);
      errors.push(await handle.done().catch((e: unknown) => e));
    }
    for (const error of errors) expect(error).toBeInstanceOf(UnsupportedOperationError);
    expect(errors.map((e) => (e as A2AError).inStream)).toEqual([true, true]);
  });
});
