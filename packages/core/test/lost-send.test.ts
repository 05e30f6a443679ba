import { startFaultProxy, startTestAgent, type FaultProxy, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Task } from '../src/index.js';

let agent: TestAgent | undefined;
let proxy: FaultProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await agent?.close();
});

/** How many times the agent received a message with this text (each logical send has one messageId). */
function received(a: TestAgent, text: string): string[] {
  const ids: string[] = [];
  for (const r of a.requests) {
    const body = JSON.stringify(r.body ?? '');
    if (!body.includes(text)) continue;
    const match = /"messageId":"([^"]+)"/.exec(body);
    if (match?.[1]) ids.push(match[1]);
  }
  return ids;
}

describe.each([
  ['JSONRPC', /SendStreamingMessage/, undefined],
  ['HTTP+JSON', undefined, /message:stream/],
] as const)('a send whose answer is lost, v1.0 %s', (binding, rpcMethod, path) => {
  it('is found with ListTasks and adopted: the agent receives the message exactly once', async () => {
    agent = await startTestAgent({ versions: ['1.0'] });
    proxy = await startFaultProxy({ target: agent.origin });
    proxy.addFault({ kind: 'loseAnswer', match: rpcMethod ? { rpcMethod } : { path } });
    const client = await connect(proxy.url, { cardCache: false, preferredBindings: [binding], resilience: { initialDelayMs: 10 } });
    const handle = await client.start('stream updates=2 chunks=4 delayMs=20 lost-send-probe');
    const final = (await handle.done()) as Task;
    expect(final.status.state).toBe('completed');
    expect(proxy.stats.lostAnswers).toBe(1);
    const ids = received(agent, 'lost-send-probe');
    expect(ids).toHaveLength(1);
    expect(agent.tasks.list().filter((t) => t.history.some((m) => JSON.stringify(m).includes('lost-send-probe')))).toHaveLength(1);
    expect(final.id).toBe(agent.tasks.list().find((t) => JSON.stringify(t.history).includes('lost-send-probe'))?.id);
  });
});

describe('a send that never reached the agent', () => {
  it('is sent again with the same messageId, and the agent gets it once', async () => {
    agent = await startTestAgent({ versions: ['1.0'] });
    proxy = await startFaultProxy({ target: agent.origin });
    proxy.addFault({ kind: 'dropRequest', match: { rpcMethod: /SendStreamingMessage/ } });
    const client = await connect(proxy.url, { cardCache: false, preferredBindings: ['JSONRPC'], resilience: { initialDelayMs: 10 } });
    const handle = await client.start('stream updates=1 chunks=2 delayMs=5 dropped-probe');
    expect(((await handle.done()) as Task).status.state).toBe('completed');
    expect(proxy.stats.droppedRequests).toBe(1);
    const sentIds = proxy.log.filter((l) => l.rpcMethod === 'SendStreamingMessage').length;
    expect(sentIds).toBe(2);
    expect(received(agent, 'dropped-probe')).toHaveLength(1);
  });
});
