import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, MemoryTaskStore } from '@a2a-tether/node';
import { createRelay, toNodeHandler } from '@a2a-tether/node/relay';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import type { UIMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { A2AChatTransport } from '../src/index.js';
import { chunksOf, messageOf, textOfMessage } from './helpers.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** The agent (no CORS) behind a relay on a port of its own; returns the agent and the relay's URL for it. */
async function agentBehindRelay(): Promise<{ agent: TestAgent; url: string }> {
  const agent = await startTestAgent({ cors: false });
  const relay = createRelay({ basePath: '/api/a2a', agents: { helper: agent.url }, owner: () => 'alice' });
  const server: Server = createServer(toNodeHandler(relay));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => agent.close(), () => new Promise((resolve) => server.close(resolve)));
  return { agent, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/a2a/helper` };
}

const SENDS = new Set(['SendMessage', 'SendStreamingMessage']);
function contextsSent(agent: TestAgent): (string | undefined)[] {
  return agent.requests
    .filter((r) => SENDS.has((r.body as { method?: string } | undefined)?.method ?? ''))
    .map((r) => (r.body as { params: { message: { contextId?: string } } }).params.message.contextId);
}

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

describe('A2AChatTransport through the relay route', () => {
  it('the chat id as a context the relay never saw created (TaskNotFound, nothing started): the message once more without it; the next turn uses the agent\'s context', async () => {
    const { agent, url } = await agentBehindRelay();
    const transport = new A2AChatTransport({ client: await connect(url, { cardCache: false, store: new MemoryTaskStore() }) });
    const turn = (messages: UIMessage[]) => transport.sendMessages({ trigger: 'submit-message', chatId: 'chat-relay', messageId: undefined, messages, abortSignal: undefined });
    const first = await chunksOf(await turn([user('u1', 'stream updates=0 chunks=2 delayMs=1')]));
    expect(textOfMessage(await messageOf(first))).toBe('chunk-1;chunk-2;');
    // The relay refused the chat id before anything reached the agent: the agent saw one send, without it.
    expect(contextsSent(agent)).toEqual([undefined]);
    const context = agent.tasks.list()[0]?.contextId;
    const second = await chunksOf(await turn([user('u1', 'stream updates=0 chunks=2 delayMs=1'), user('u2', 'stream updates=0 chunks=1 delayMs=1')]));
    expect(textOfMessage(await messageOf(second))).toBe('chunk-1;');
    expect(contextsSent(agent)).toEqual([undefined, context]);
  });
});
