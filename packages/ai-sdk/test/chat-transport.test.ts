import { connect, MemoryTaskStore, type A2AClient } from '@a2a-tether/node';
import { ScenarioError, startFaultProxy, startTestAgent, type FaultProxy, type ScenarioFn, type TestAgent } from '@a2a-tether/testkit';
import type { ChatTransport, UIMessage, UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { A2AChatTransport, type ChatMessageStore, type StopReport } from '../src/index.js';
import { chunksOf, deltas, gate, messageOf, TestChat, textOfMessage, when } from './helpers.js';

const RESILIENCE = { initialDelayMs: 20, maxDelayMs: 200, maxElapsedMs: 10_000 };

const agents: TestAgent[] = [];
const proxies: FaultProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await Promise.all(agents.splice(0).map((a) => a.close()));
});


function client(url: string, store = new MemoryTaskStore()): Promise<A2AClient> {
  return connect(url, { cardCache: false, store, resilience: RESILIENCE });
}

const SEND_METHODS = new Set(['SendMessage', 'SendStreamingMessage', 'message/send', 'message/stream']);
const SUBSCRIBE_METHODS = new Set(['SubscribeToTask', 'tasks/resubscribe']);

function method(body: unknown): string | undefined {
  return typeof body === 'object' && body !== null ? ((body as { method?: unknown }).method as string | undefined) : undefined;
}

/** The messages the agent was sent (every SendMessage / SendStreamingMessage). */
function sends(agent: TestAgent): { taskId: string | undefined; contextId: string | undefined; text: string }[] {
  return agent.requests
    .filter((r) => SEND_METHODS.has(method(r.body) ?? ''))
    .map((r) => {
      const message = (r.body as { params: { message: { taskId?: string; contextId?: string; parts: { text?: string }[] } } }).params.message;
      return { taskId: message.taskId, contextId: message.contextId, text: message.parts.map((p) => p.text ?? '').join('') };
    });
}

/** The text of the agent's artifacts of a task, as it holds them. */
function artifactText(agent: TestAgent, taskId: string): string {
  const task = agent.tasks.get(taskId);
  return (task?.artifacts ?? []).flatMap((a) => a.parts.map((p) => ('text' in p ? p.text : ''))).join('');
}

/** How many CancelTask requests the agent got. */
function cancels(agent: TestAgent): number {
  return agent.requests.filter((r) => ['CancelTask', 'tasks/cancel'].includes(method(r.body) ?? '')).length;
}

/** Sends `user` as a chat's turn, reads its answer to the gated scenario's gate, then goes away (the page unloads): the partial message. */
async function readToGate(transport: ChatTransport<UIMessage>, chatId: string, user: UIMessage): Promise<UIMessage> {
  const reader = (await send(transport, chatId, [user])).getReader();
  const seen: UIMessageChunk[] = [];
  while (!deltas(seen).includes('part-5; ')) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended before the gate');
    seen.push(value);
  }
  await reader.cancel();
  return (await messageOf(seen)) as UIMessage;
}

function userMessage(id: string, text: string): UIMessage {
  return { id, role: 'user', parts: [{ type: 'text', text }] };
}

function send(transport: ChatTransport<UIMessage>, chatId: string, messages: UIMessage[], abortSignal?: AbortSignal): Promise<ReadableStream<UIMessageChunk>> {
  return transport.sendMessages({ trigger: 'submit-message', chatId, messageId: undefined, messages, abortSignal });
}

function startChunk(chunks: readonly UIMessageChunk[]): string | undefined {
  const first = chunks[0];
  return first?.type === 'start' ? first.messageId : undefined;
}

/** `gated`: 5 chunks of artifact `answer`, then waits for the test's gate (or a cancel), then 5 more and completes. */
function gatedScenario(wait: Promise<void>): ScenarioFn {
  return async (ctx) => {
    const cancelled = new Promise<void>((resolve) => ctx.cancelled.addEventListener('abort', () => resolve(), { once: true }));
    ctx.status('working', 'thinking');
    for (let i = 1; i <= 10; i++) {
      if (i === 6) {
        await Promise.race([wait, cancelled]);
        await ctx.sleep(0); // rejects once the task was canceled: the agent then ends it canceled
      }
      ctx.artifact({ artifactId: 'answer', name: 'answer', text: `part-${i}; `, append: i > 1, lastChunk: i === 10 });
      await ctx.sleep(1);
    }
    ctx.status('completed');
  };
}

describe.each(['1.0', '0.3'] as const)('A2AChatTransport against the testkit agent, A2A v%s', (version) => {
  async function agentWith(scenarios: Record<string, ScenarioFn> = {}): Promise<TestAgent> {
    const agent = await startTestAgent({ versions: [version], scenarios });
    agents.push(agent);
    return agent;
  }

  it('a streamed answer: start with the task\'s message id, status as a data part, the final text exactly the artifact, then finish', async () => {
    const agent = await agentWith();
    const transport = new A2AChatTransport({ client: await client(agent.url) });
    const chunks = await chunksOf(await send(transport, 'chat-1', [userMessage('u1', 'stream updates=4 chunks=40 delayMs=2')]));
    const taskId = agent.tasks.list()[0]?.id as string;
    expect(startChunk(chunks)).toBe(`a2a-${taskId}`);
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    const message = await messageOf(chunks);
    expect(textOfMessage(message)).toBe(artifactText(agent, taskId));
    expect(artifactText(agent, taskId)).toMatch(/^chunk-1;chunk-2;.*chunk-40;$/);
    // One text part (the artifact's), the status a data part updated in place.
    expect(message?.parts.filter((p) => p.type === 'text')).toHaveLength(1);
    const status = message?.parts.filter((p) => p.type === 'data-a2a-status');
    expect(status).toHaveLength(1);
    expect(status?.[0]).toMatchObject({ id: 'status', data: { taskId, state: 'completed' } });
    expect(chunks.filter((c) => c.type === 'data-a2a-status').map((c) => (c as { data: { text?: string } }).data.text)).toContain('step 4');
  });

  it('chatId → contextId on the wire; the task\'s record is tagged with the chat, the user message and the prompt', async () => {
    const agent = await agentWith();
    const tether = await client(agent.url);
    const transport = new A2AChatTransport({ client: tether });
    await chunksOf(await send(transport, 'chat-ctx', [userMessage('u-ctx', 'stream updates=1 chunks=2 delayMs=1')]));
    expect(sends(agent)).toEqual([{ taskId: undefined, contextId: 'chat-ctx', text: 'stream updates=1 chunks=2 delayMs=1' }]);
    const task = agent.tasks.list()[0];
    expect(task?.contextId).toBe('chat-ctx');
    const [record] = await tether.tasks();
    expect(record?.tags).toEqual({ chatId: 'chat-ctx', userMessageId: 'u-ctx', prompt: 'stream updates=1 chunks=2 delayMs=1' });
  });

  it('a reload mid-answer: a new client and transport on the same store continue the same task (one send), replayed from its beginning, the final text exactly the artifact', async () => {
    const open = gate();
    const agent = await agentWith({ gated: gatedScenario(open.wait) });
    const store = new MemoryTaskStore();
    const first = new A2AChatTransport({ client: await client(agent.url, store) });
    const user = userMessage('u-reload', 'gated');
    const reader = (await send(first, 'chat-reload', [user])).getReader();
    const seen: UIMessageChunk[] = [];
    while (!deltas(seen).includes('part-5; ')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended before the gate');
      seen.push(value);
    }
    // The page goes away mid-answer: its stream and its follow stop; the task runs on at the agent.
    await reader.cancel();
    const partial = await messageOf(seen);
    const taskId = agent.tasks.list()[0]?.id as string;
    expect(partial?.id).toBe(`a2a-${taskId}`);

    const second = new A2AChatTransport({ client: await client(agent.url, store) });
    // The agent goes on only once the reloaded page has found its task again.
    const opening: ChatTransport<UIMessage> = {
      resumeStreamIsReplay: second.resumeStreamIsReplay,
      sendMessages: (o) => second.sendMessages(o),
      reconnectToStream: async (o) => {
        const stream = await second.reconnectToStream(o);
        open.open();
        return stream;
      },
    };
    const chat = new TestChat({ id: 'chat-reload', transport: opening, messages: [user, partial as UIMessage] });
    await chat.resumeStream();
    expect(chat.status).toBe('ready');
    expect(sends(agent)).toHaveLength(1);
    expect(agent.tasks.get(taskId)?.state).toBe('completed');
    expect(chat.messages.map((m) => m.id)).toEqual(['u-reload', `a2a-${taskId}`]);
    const expected = Array.from({ length: 10 }, (_, i) => `part-${i + 1}; `).join('');
    expect(artifactText(agent, taskId)).toBe(expected);
    expect(textOfMessage(chat.messages[1])).toBe(expected);
    expect(chat.messages[1]?.parts.filter((p) => p.type === 'text')).toHaveLength(1);
  });

  it('a pause answered through the chat: the message ends with the pause part; the next user message is the reply to the same task', async () => {
    const agent = await agentWith();
    const transport = new A2AChatTransport({ client: await client(agent.url) });
    const chat = new TestChat({ id: 'chat-pause', transport });
    await chat.sendMessage({ text: 'input' });
    const taskId = agent.tasks.list()[0]?.id as string;
    expect(chat.status).toBe('ready');
    const paused = chat.messages[1];
    expect(paused?.id).toBe(`a2a-${taskId}`);
    expect(paused?.parts.find((p) => p.type === 'data-a2a-pause')).toMatchObject({ id: 'pause', data: { taskId, state: 'input-required', text: 'need input' } });
    // The question is the agent's message: its text, beside the pause part.
    expect(textOfMessage(paused)).toBe('need input');

    await chat.sendMessage({ text: 'blue' });
    expect(chat.status).toBe('ready');
    expect(agent.tasks.list()).toHaveLength(1);
    expect(sends(agent)).toEqual([
      { taskId: undefined, contextId: 'chat-pause', text: 'input' },
      { taskId, contextId: 'chat-pause', text: 'blue' },
    ]);
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(chat.messages[3]?.id).toBe(`a2a-${taskId}-1`);
    expect(textOfMessage(chat.messages[3])).toBe('got: blue');
    expect(agent.tasks.get(taskId)?.state).toBe('completed');
  });

  it('a pause across a reload: reconnectToStream replays up to the pause; the answer goes to the same task and shows only what came after', async () => {
    const agent = await agentWith({
      ask: async (ctx) => {
        ctx.status('working');
        ctx.artifact({ artifactId: 'draft', text: 'before the question. ', lastChunk: false });
        ctx.status('input-required', 'which colour?');
        const answer = await ctx.waitForInput();
        ctx.artifact({ artifactId: 'draft', text: `colour: ${answer}`, append: true, lastChunk: true });
        ctx.status('completed');
      },
    });
    const store = new MemoryTaskStore();
    const first = new TestChat({ id: 'chat-ask', transport: new A2AChatTransport({ client: await client(agent.url, store) }) });
    await first.sendMessage({ text: 'ask' });
    const taskId = agent.tasks.list()[0]?.id as string;
    expect(textOfMessage(first.messages[1])).toBe('before the question. which colour?');

    const second = new A2AChatTransport({ client: await client(agent.url, store) });
    const replay = await second.reconnectToStream({ chatId: 'chat-ask' });
    const chunks = await chunksOf(replay as ReadableStream<UIMessageChunk>);
    expect(startChunk(chunks)).toBe(`a2a-${taskId}`);
    expect(deltas(chunks)).toBe('before the question. which colour?');
    expect(chunks.slice(-2)).toEqual([
      { type: 'data-a2a-pause', id: 'pause', data: { taskId, contextId: 'chat-ask', state: 'input-required', text: 'which colour?' } },
      { type: 'finish', finishReason: 'other' },
    ]);

    const chat = new TestChat({ id: 'chat-ask', transport: second, messages: first.messages });
    await chat.sendMessage({ text: 'green' });
    expect(chat.messages[3]?.id).toBe(`a2a-${taskId}-1`);
    expect(textOfMessage(chat.messages[3])).toBe('colour: green');
    expect(textOfMessage(chat.messages[1]).replace('which colour?', '') + textOfMessage(chat.messages[3])).toBe(artifactText(agent, taskId));
    expect(sends(agent).map((s) => s.taskId)).toEqual([undefined, taskId]);

    // A reload now: the task is finished, nothing to follow.
    const third = new A2AChatTransport({ client: await client(agent.url, store) });
    expect(await third.reconnectToStream({ chatId: 'chat-ask' })).toBeNull();
  });

  it('a stream cut mid-answer: the follow resubscribes; nothing lost, nothing repeated', async () => {
    const agent = await agentWith();
    const proxy = await startFaultProxy({ target: agent.origin, seed: 7 });
    proxies.push(proxy);
    proxy.addFault({ kind: 'cut', afterEvents: 3, mode: 'reset', times: 1, match: { sse: true } });
    const transport = new A2AChatTransport({ client: await client(proxy.url) });
    const chunks = await chunksOf(await send(transport, 'chat-cut', [userMessage('u-cut', 'stream updates=2 chunks=30 delayMs=5')]));
    const taskId = agent.tasks.list()[0]?.id as string;
    expect(agent.requests.some((r) => SUBSCRIBE_METHODS.has(method(r.body) ?? ''))).toBe(true);
    expect(deltas(chunks)).toBe(artifactText(agent, taskId));
    expect(textOfMessage(await messageOf(chunks))).toBe(artifactText(agent, taskId));
    expect(chunks.filter((c) => c.type === 'text-start')).toHaveLength(1);
    expect(sends(agent)).toHaveLength(1);
  });

  it('a failed task ends with an error chunk carrying the agent\'s reason; the chat shows the error', async () => {
    const agent = await agentWith();
    const transport = new A2AChatTransport({ client: await client(agent.url) });
    const chunks = await chunksOf(await send(transport, 'chat-fail', [userMessage('u-fail', 'fail')]));
    const error = chunks.at(-1);
    expect(error?.type).toBe('error');
    expect((error as { errorText: string }).errorText).toMatch(/failed: failed on purpose$/);

    const chat = new TestChat({ id: 'chat-fail-2', transport });
    await chat.sendMessage({ text: 'reject' });
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toMatch(/rejected: rejected on purpose$/);
  });

  it('a direct message answer: its text as the message, then finish', async () => {
    const agent = await agentWith();
    const transport = new A2AChatTransport({ client: await client(agent.url) });
    const chunks = await chunksOf(await send(transport, 'chat-echo', [userMessage('u-echo', 'echo hello')]));
    expect(startChunk(chunks)).toMatch(/^a2a-message-/);
    expect(textOfMessage(await messageOf(chunks))).toBe('echo: echo hello');
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(agent.tasks.list()).toHaveLength(0);
  });

  it('stop() cancels the task by default: the agent confirms, onStop says so, and a reload does not follow it', async () => {
    const open = gate();
    const agent = await agentWith({ gated: gatedScenario(open.wait) });
    const store = new MemoryTaskStore();
    let reported!: (report: StopReport) => void;
    const report = new Promise<StopReport>((resolve) => (reported = resolve));
    const transport = new A2AChatTransport({ client: await client(agent.url, store), onStop: (r) => reported(r) });
    const abort = new AbortController();
    const reader = (await send(transport, 'chat-stop', [userMessage('u-stop', 'gated')], abort.signal)).getReader();
    const seen: UIMessageChunk[] = [];
    while (!deltas(seen).includes('part-5; ')) seen.push((await reader.read()).value as UIMessageChunk);
    abort.abort();
    await reader.cancel();
    const stopped = await report;
    const taskId = agent.tasks.list()[0]?.id as string;
    expect(stopped).toMatchObject({ taskId, mode: 'cancel', outcome: { requested: true, confirmed: true, state: 'canceled' } });
    expect(agent.tasks.get(taskId)?.state).toBe('canceled');
    const again = new A2AChatTransport({ client: await client(agent.url, store) });
    expect(await again.reconnectToStream({ chatId: 'chat-stop' })).toBeNull();
  });

  it("stop: 'detach' only stops the stream: no cancel is sent, the task runs on, and a reload follows it to its end", async () => {
    const open = gate();
    const agent = await agentWith({ gated: gatedScenario(open.wait) });
    const store = new MemoryTaskStore();
    let reported!: (report: StopReport) => void;
    const report = new Promise<StopReport>((resolve) => (reported = resolve));
    const transport = new A2AChatTransport({ client: await client(agent.url, store), stop: 'detach', onStop: (r) => reported(r) });
    const abort = new AbortController();
    const reader = (await send(transport, 'chat-detach', [userMessage('u-detach', 'gated')], abort.signal)).getReader();
    const seen: UIMessageChunk[] = [];
    while (!deltas(seen).includes('part-5; ')) seen.push((await reader.read()).value as UIMessageChunk);
    abort.abort();
    await reader.cancel();
    const taskId = agent.tasks.list()[0]?.id as string;
    expect(await report).toEqual({ taskId, mode: 'detach' });
    expect(agent.requests.some((r) => ['CancelTask', 'tasks/cancel'].includes(method(r.body) ?? ''))).toBe(false);
    expect(agent.tasks.get(taskId)?.state).toBe('working');

    const again = new A2AChatTransport({ client: await client(agent.url, store) });
    const replay = await again.reconnectToStream({ chatId: 'chat-detach' });
    open.open();
    const chunks = await chunksOf(replay as ReadableStream<UIMessageChunk>);
    expect(deltas(chunks)).toBe(artifactText(agent, taskId));
    expect(sends(agent)).toHaveLength(1);
  });

  it('a reload mid-answer under StrictMode (useChat({ resume: true }) resumes twice: mount, unmount, mount): the first resume is aborted by the second, the task is not canceled, and the answer continues (one send)', async () => {
    const open = gate();
    const agent = await agentWith({ gated: gatedScenario(open.wait) });
    const store = new MemoryTaskStore();
    const user = userMessage('u-strict', 'gated');
    const partial = await readToGate(new A2AChatTransport({ client: await client(agent.url, store) }), 'chat-strict-reload', user);
    const taskId = agent.tasks.list()[0]?.id as string;

    const second = new A2AChatTransport({ client: await client(agent.url, store) });
    let reconnects = 0;
    const opening: ChatTransport<UIMessage> = {
      sendMessages: (o) => second.sendMessages(o),
      reconnectToStream: async (o) => {
        const stream = await second.reconnectToStream(o);
        if (++reconnects === 2) open.open();
        return stream;
      },
    };
    const chat = new TestChat({ id: 'chat-strict-reload', transport: opening, messages: [user, partial] });
    // What useChat's resume effect does under StrictMode: resumeStream(), its cleanup, resumeStream() again.
    const first = chat.resumeStream();
    const again = chat.resumeStream();
    await Promise.all([first, again]);
    expect(cancels(agent)).toBe(0);
    expect(agent.tasks.get(taskId)?.state).toBe('completed');
    expect(sends(agent)).toHaveLength(1);
    expect(chat.status).toBe('ready');
    expect(chat.messages.map((m) => m.id)).toEqual(['u-strict', `a2a-${taskId}`]);
    expect(textOfMessage(chat.messages[1])).toBe(artifactText(agent, taskId));
  });

  it('a chat unmounted mid-answer and mounted again under StrictMode (a new chat on the same transport resumes twice): the old stream only detaches, the agent saw one message, no CancelTask', async () => {
    const open = gate();
    const agent = await agentWith({ gated: gatedScenario(open.wait) });
    const store = new MemoryTaskStore();
    const transport = new A2AChatTransport({ client: await client(agent.url, store) });
    const streaming = when<string>((status) => status === 'streaming');
    const before = new TestChat({ id: 'chat-remount', transport, onStatus: streaming.tell });
    const sent = before.sendMessage({ text: 'gated' });
    await streaming.reached;
    const taskId = agent.tasks.list()[0]?.id as string;
    // Unmounted: useChat does nothing to its chat. Mounted again: a new chat of the same id, resumed twice.
    let reconnects = 0;
    const opening: ChatTransport<UIMessage> = {
      sendMessages: (o) => transport.sendMessages(o),
      reconnectToStream: async (o) => {
        const stream = await transport.reconnectToStream(o);
        if (++reconnects === 2) open.open();
        return stream;
      },
    };
    const after = new TestChat({ id: 'chat-remount', transport: opening, messages: before.messages.slice(0, 1) });
    await Promise.all([after.resumeStream(), after.resumeStream()]);
    await sent;
    expect(cancels(agent)).toBe(0);
    expect(sends(agent)).toHaveLength(1);
    expect(agent.tasks.get(taskId)?.state).toBe('completed');
    expect(after.messages.map((m) => m.id)).toEqual([before.messages[0]?.id, `a2a-${taskId}`]);
    expect(textOfMessage(after.messages[1])).toBe(artifactText(agent, taskId));
  });

  it('Stop after a StrictMode double resume: exactly one CancelTask, the task canceled, and a reload does not follow it', async () => {
    const open = gate();
    const agent = await agentWith({ gated: gatedScenario(open.wait) });
    const store = new MemoryTaskStore();
    const user = userMessage('u-strict-stop', 'gated');
    const partial = await readToGate(new A2AChatTransport({ client: await client(agent.url, store) }), 'chat-strict-stop', user);
    const taskId = agent.tasks.list()[0]?.id as string;

    let reported!: (report: StopReport) => void;
    const report = new Promise<StopReport>((resolve) => (reported = resolve));
    const second = new A2AChatTransport({ client: await client(agent.url, store), onStop: (r) => reported(r) });
    // The chat follows the task again (its replay may not have begun: a v0.3 resubscribe replays nothing).
    const streaming = when<string>((status) => status === 'submitted' || status === 'streaming');
    const watched: ChatTransport<UIMessage> = {
      sendMessages: (o) => second.sendMessages(o),
      reconnectToStream: (o) => second.reconnectToStream(o),
    };
    const chat = new TestChat({ id: 'chat-strict-stop', transport: watched, messages: [user, partial], onStatus: streaming.tell });
    const resumed = Promise.all([chat.resumeStream(), chat.resumeStream()]);
    await streaming.reached;
    await chat.stop();
    await resumed;
    expect(await report).toMatchObject({ taskId, mode: 'cancel', outcome: { confirmed: true, state: 'canceled' } });
    expect(cancels(agent)).toBe(1);
    expect(agent.tasks.get(taskId)?.state).toBe('canceled');
    const again = new A2AChatTransport({ client: await client(agent.url, store) });
    expect(await again.reconnectToStream({ chatId: 'chat-strict-stop' })).toBeNull();
  });

  it('the chat persists whole: after a reload, loadMessages() gives the user\'s messages, the answers and the pause\'s question as the chat showed them; mid-answer, the user\'s message is kept and the answer continues into the kept chat', async () => {
    const open = gate();
    const agent = await agentWith({ gated: gatedScenario(open.wait) });
    const store = new MemoryTaskStore();
    const kept = new Map<string, UIMessage[]>();
    const chats: ChatMessageStore = { get: async (id) => structuredClone(kept.get(id)), set: async (id, messages) => void kept.set(id, structuredClone(messages)) };
    const first = new TestChat({ id: 'chat-keep', transport: new A2AChatTransport({ client: await client(agent.url, store), messages: chats }) });
    await first.sendMessage({ text: 'stream updates=1 chunks=3 delayMs=1' });
    await first.sendMessage({ text: 'input' });
    expect(first.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    // A reload: a new transport on the same stores gives the chat back as it was shown.
    const second = new A2AChatTransport({ client: await client(agent.url, store), messages: chats });
    const restored = await second.loadMessages('chat-keep');
    expect(restored).toEqual(first.messages);
    expect(textOfMessage(restored[0])).toBe('stream updates=1 chunks=3 delayMs=1');
    expect(textOfMessage(restored[1])).toBe(artifactText(agent, agent.tasks.list()[0]?.id as string));
    expect(textOfMessage(restored[3])).toBe('need input');
    expect(restored[3]?.parts.some((p) => p.type === 'data-a2a-pause')).toBe(true);
    expect(await second.loadMessages('chat-never')).toEqual([]);

    // Mid-answer: the user's message is kept before it is sent (and what a stream cancelled mid-answer
    // showed); after a reload the answer continues and is kept whole.
    const user = userMessage('u-keep-gated', 'gated');
    const writes: UIMessage[][] = [];
    const watching: ChatMessageStore = {
      get: (id) => chats.get(id),
      set: async (id, messages) => {
        writes.push(structuredClone(messages));
        await chats.set(id, messages);
      },
    };
    const partial = await readToGate(new A2AChatTransport({ client: await client(agent.url, store), messages: watching }), 'chat-keep-2', user);
    expect(writes[0]).toEqual([user]);
    const midAnswer = await second.loadMessages('chat-keep-2');
    expect(midAnswer.map((m) => m.id)).toEqual([user.id, partial.id]);
    expect(textOfMessage(midAnswer[1])).toMatch(/^part-1; .*part-5; /);
    const third = new A2AChatTransport({ client: await client(agent.url, store), messages: chats });
    const chat = new TestChat({ id: 'chat-keep-2', transport: third, messages: await third.loadMessages('chat-keep-2') });
    const resumed = Promise.all([chat.resumeStream(), chat.resumeStream()]);
    open.open();
    await resumed;
    const taskId = agent.tasks.list().at(-1)?.id as string;
    expect(agent.tasks.get(taskId)?.state).toBe('completed');
    expect(await third.loadMessages('chat-keep-2')).toEqual(chat.messages);
    expect(textOfMessage(chat.messages[1])).toBe(artifactText(agent, taskId));
  });

  it('reconnectToStream: null for a chat whose latest task finished, and for a chat without tasks', async () => {
    const agent = await agentWith();
    const transport = new A2AChatTransport({ client: await client(agent.url) });
    await chunksOf(await send(transport, 'chat-done', [userMessage('u-done', 'stream updates=1 chunks=2 delayMs=1')]));
    expect(await transport.reconnectToStream({ chatId: 'chat-done' })).toBeNull();
    expect(await transport.reconnectToStream({ chatId: 'chat-none' })).toBeNull();
  });

  it('an agent that refuses the chat id as contextId (InvalidParams, nothing started): the message once more without it; the chat keeps the agent\'s context', async () => {
    const agent = await agentWith({
      strict: async (ctx) => {
        if (ctx.task.contextId.startsWith('chat-')) throw new ScenarioError(-32602, 'contextId: this agent names its contexts');
        ctx.status('working');
        ctx.artifact({ artifactId: 'a', text: `ok ${ctx.params['n'] ?? ''}`, lastChunk: true });
        ctx.status('completed');
      },
    });
    const transport = new A2AChatTransport({ client: await client(agent.url) });
    const first = await chunksOf(await send(transport, 'chat-strict', [userMessage('u1', 'strict n=1')]));
    expect(textOfMessage(await messageOf(first))).toBe('ok 1');
    const [refused, accepted] = sends(agent);
    expect(refused?.contextId).toBe('chat-strict');
    expect(accepted?.contextId).toBeUndefined();
    const context = agent.tasks.list()[0]?.contextId;
    const second = await chunksOf(await send(transport, 'chat-strict', [userMessage('u1', 'strict n=1'), userMessage('u2', 'strict n=2')]));
    expect(textOfMessage(await messageOf(second))).toBe('ok 2');
    expect(sends(agent)[2]?.contextId).toBe(context);
    expect(sends(agent)).toHaveLength(3);
  });

  it('{ url }: connects on first use, once (the card is fetched once for two turns)', async () => {
    const agent = await agentWith();
    const transport = new A2AChatTransport({ url: agent.url, cardCache: false, store: new MemoryTaskStore() });
    expect(agent.requests).toHaveLength(0);
    await chunksOf(await send(transport, 'chat-url', [userMessage('u1', 'echo one')]));
    await chunksOf(await send(transport, 'chat-url', [userMessage('u1', 'echo one'), userMessage('u2', 'echo two')]));
    expect(agent.requests.filter((r) => r.path.includes('/.well-known/'))).toHaveLength(1);
    expect(sends(agent).map((s) => s.text)).toEqual(['echo one', 'echo two']);
  });

  it('typed errors: no client or URL, an unknown stop mode, and a last message that is not the user\'s', async () => {
    const agent = await agentWith();
    expect(() => new A2AChatTransport({} as never)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => new A2AChatTransport({ url: agent.url, stop: 'pause' as never })).toThrow(/stop must be 'cancel' or 'detach'/);
    const transport = new A2AChatTransport({ client: await client(agent.url) });
    const assistant: UIMessage = { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'hi' }] };
    await expect(send(transport, 'chat-x', [assistant])).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(sends(agent)).toHaveLength(0);
  });
});
