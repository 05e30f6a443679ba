import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, MemoryTaskStore } from '@a2a-tether/node';
import type { A2AClient, ProtocolVersion, ResilienceOptions, Task } from '@a2a-tether/node';
import { A2AChatTransport } from '@a2a-tether/ai-sdk';
import { AbstractChat, readUIMessageStream } from 'ai';
import type { ChatState, ChatStatus, UIMessage, UIMessageChunk } from 'ai';
import { startOfficialV03Server } from '../src/official-v03-server.js';
import { startOfficialV1Server } from '../src/official-v1-server.js';
import type { OfficialServer } from '../src/official-server.js';

// A2AChatTransport (@a2a-tether/ai-sdk) against the official @a2a-js/sdk servers, v1.0 (1.3.0) and
// v0.3 (0.3.14), through the AI SDK's own chat logic (AbstractChat, as useChat runs it):
// - both keep the contextId the client chooses (the chat id), so a chat is one A2A context;
// - a reload mid-answer (a new client and transport on the same store) follows the same task: the
//   executor received one message, and the final text is the agent's artifact exactly;
// - `input` pauses at input-required; the chat's next message goes to the same task as its answer.

const RESILIENCE: Partial<ResilienceOptions> = { initialDelayMs: 20, maxDelayMs: 200, maxAttempts: 10, maxElapsedMs: 8_000, pollMinMs: 50, pollMaxMs: 200 };

let v1: OfficialServer;
let v03: OfficialServer;

beforeAll(async () => {
  [v1, v03] = await Promise.all([startOfficialV1Server(), startOfficialV03Server()]);
});
afterAll(async () => {
  await Promise.all([v1?.close(), v03?.close()]);
});

/** A plain in-memory `ChatState`, as the framework bindings keep theirs. */
class MemoryChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (message: UIMessage): void => void (this.messages = [...this.messages, message]);
  popMessage = (): void => void (this.messages = this.messages.slice(0, -1));
  replaceMessage = (index: number, message: UIMessage): void => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class TestChat extends AbstractChat<UIMessage> {
  constructor(id: string, transport: A2AChatTransport, messages: UIMessage[] = []) {
    super({ id, transport, state: new MemoryChatState(messages) });
  }
}

function textOf(message: UIMessage | undefined): string {
  return (message?.parts ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
}

function artifactText(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts.map((p) => (p.kind === 'text' ? p.text : ''))).join('');
}

async function messageOf(chunks: readonly UIMessageChunk[]): Promise<UIMessage | undefined> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}

const servers: { name: string; version: ProtocolVersion; server: () => OfficialServer }[] = [
  { name: 'v1.0 (@a2a-js/sdk 1.3.0)', version: '1.0', server: () => v1 },
  { name: 'v0.3 (@a2a-js/sdk 0.3.14)', version: '0.3', server: () => v03 },
];

describe.each(servers)('A2AChatTransport against the official server $name', ({ version, server }) => {
  const client = (store: MemoryTaskStore): Promise<A2AClient> =>
    connect(server().cardUrl, { preferredBindings: ['JSONRPC'], protocolVersions: [version], cardCache: false, resilience: RESILIENCE, store });

  it('a streamed answer: the final text is the agent\'s artifact, in the chat id\'s context', async () => {
    const tether = await client(new MemoryTaskStore());
    const chat = new TestChat(`chat-stream-${version}`, new A2AChatTransport({ client: tether }));
    await chat.sendMessage({ text: 'stream updates=3 chunks=12 delayMs=5' });
    expect(chat.status).toBe('ready');
    const [record] = await tether.tasks();
    const task = await tether.getTask(record?.taskId as string);
    expect(task.contextId).toBe(`chat-stream-${version}`);
    expect(chat.messages[1]?.id).toBe(`a2a-${task.id}`);
    expect(textOf(chat.messages[1])).toBe(artifactText(task));
    expect(artifactText(task)).toBe(Array.from({ length: 12 }, (_, i) => `chunk-${i};`).join(''));
  });

  it('a reload mid-answer continues the same task: one message at the executor, the final text the artifact', async () => {
    const store = new MemoryTaskStore();
    const chatId = `chat-reload-${version}`;
    const before = server().executions;
    const first = new A2AChatTransport({ client: await client(store) });
    const user: UIMessage = { id: 'u-reload', role: 'user', parts: [{ type: 'text', text: 'slow steps=50 delayMs=20' }] };
    const reader = (await first.sendMessages({ trigger: 'submit-message', chatId, messageId: undefined, messages: [user], abortSignal: undefined })).getReader();
    const seen: UIMessageChunk[] = [];
    while (!seen.some((c) => c.type === 'text-delta' && c.delta.includes('chunk-2;'))) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended early');
      seen.push(value);
    }
    // The page goes away: its stream and follow stop; the task runs on at the agent (for about a
    // second more, so that the reload finds it live even on a slow machine).
    await reader.cancel();
    const partial = (await messageOf(seen)) as UIMessage;

    const tether = await client(store);
    const chat = new TestChat(chatId, new A2AChatTransport({ client: tether }), [user, partial]);
    await chat.resumeStream();
    expect(chat.status).toBe('ready');
    const task = await tether.getTask(partial.id.replace(/^a2a-/, ''));
    expect(task.status.state).toBe('completed');
    expect(server().executions - before).toBe(1);
    expect(chat.messages.map((m) => m.id)).toEqual(['u-reload', partial.id]);
    expect(textOf(chat.messages[1])).toBe(artifactText(task));
    expect(artifactText(task)).toBe(Array.from({ length: 50 }, (_, i) => `chunk-${i};`).join(''));
  });

  it('a pause answered through the chat: the next user message goes to the same task', async () => {
    const tether = await client(new MemoryTaskStore());
    const chat = new TestChat(`chat-pause-${version}`, new A2AChatTransport({ client: tether }));
    const before = server().receivedMessageIds.length;
    await chat.sendMessage({ text: 'input' });
    const pause = chat.messages[1]?.parts.find((p) => p.type === 'data-a2a-pause') as { data: { taskId: string; state: string; text?: string } } | undefined;
    expect(pause?.data).toMatchObject({ state: 'input-required', text: 'need input' });
    await chat.sendMessage({ text: 'blue' });
    expect(chat.status).toBe('ready');
    const task = await tether.getTask(pause?.data.taskId as string);
    expect(task.status.state).toBe('completed');
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(chat.messages[3]?.id).toBe(`a2a-${task.id}-1`);
    expect(textOf(chat.messages[3])).toBe('got: blue');
    expect(server().receivedMessageIds.length - before).toBe(2);
    expect((await tether.tasks()).map((r) => r.taskId)).toEqual([task.id]);
  });
});
