import { startFaultProxy, startTestAgent, type FaultProxy, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type FetchLike } from '../src/index.js';

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

describe('a send that never reached the agent', () => {
  it('is sent again with the same messageId, and the agent gets it once', async () => {
    agent = await startTestAgent({ versions: ['1.0'] });
    proxy = await startFaultProxy({ target: agent.origin });
    proxy.addFault({ kind: 'dropRequest', match: { rpcMethod: /SendStreamingMessage/ } });
    const { fetch, sentIds } = recordingFetch();
    const client = await connect(proxy.url, { fetch, cardCache: false, preferredBindings: ['JSONRPC'], resilience: { initialDelayMs: 10 } });
    const handle = await client.start('stream updates=1 chunks=2 delayMs=5 dropped-probe');
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    expect(proxy.stats.droppedRequests).toBe(1);
    // Two sends left the client (the first was dropped), both with the one message id.
    expect(sentIds).toHaveLength(2);
    const [id] = sentIds as [string];
    expect(sentIds).toEqual([id, id]);
    expect(receivedIds(agent, 'dropped-probe')).toEqual([id]);
    expect(tasksWith(agent, id)).toEqual([final.id]);
  });
});
