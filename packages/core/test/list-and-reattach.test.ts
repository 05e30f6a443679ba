// ListTasks as an iterator over pages, and reattach() (issue 21): every task of every page, a paging budget
// and a circular token refused; the unfinished tasks of a conversation found by contextId and followed
// again when the local store is gone.
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, MemoryTaskStore, type Task, type TaskPage, type TetherError } from '../src/index.js';
import { taskPages } from '../src/protocol-entry.js';

let agent: TestAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

describe('taskPages(client, query)', () => {
  it('every page of ListTasks, each page once, each task once', async () => {
    agent = await startTestAgent();
    const client = await connect(agent.url);
    for (let i = 0; i < 7; i++) await client.sendMessage(`stream updates=0 chunks=1 delayMs=0 n=${i}`);
    const first = await client.listTasks({ pageSize: 3 });
    expect(first.tasks).toHaveLength(3);
    expect(first.nextPageToken).toBeTruthy();
    const all: Task[] = [];
    const sizes: number[] = [];
    for await (const page of taskPages(client, { pageSize: 3 })) {
      sizes.push(page.tasks.length);
      all.push(...page.tasks);
    }
    expect(sizes).toEqual([3, 3, 1]);
    expect(new Set(all.map((t) => t.id)).size).toBe(7);
    // A budget: more pages than maxPages is an error, not a quietly partial list.
    const over = await (async () => {
      for await (const _ of taskPages(client, { pageSize: 3 }, { maxPages: 2 })) void _;
    })().catch((e: unknown) => e);
    expect((over as TetherError).code).toBe('INVALID_RESPONSE');
  });

  it('an agent whose page tokens go in a circle: PROTOCOL_VIOLATION, not a loop', async () => {
    agent = await startTestAgent();
    const client = await connect(agent.url);
    await client.sendMessage('echo hi');
    // A fetch that answers every ListTasks with the same next page.
    const looping = await connect(agent.url, {
      fetch: async (input, init) => {
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { id?: unknown; method?: string }) : {};
        if (body.method !== 'ListTasks') return fetch(input as string, init as RequestInit);
        const page: Record<string, unknown> = { tasks: [], nextPageToken: 'again' };
        return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: page }), { headers: { 'Content-Type': 'application/json' } });
      },
    });
    const pages: TaskPage[] = [];
    const error = await (async () => {
      for await (const page of taskPages(looping)) pages.push(page);
    })().catch((e: unknown) => e);
    expect((error as TetherError).code).toBe('PROTOCOL_VIOLATION');
    expect(pages).toHaveLength(2);
  });
});

describe('client.reattach({ contextId })', () => {
  it('finds the unfinished tasks of a conversation with the store gone, follows them to the end; finished ones are left', async () => {
    agent = await startTestAgent();
    const before = await connect(agent.url, { store: new MemoryTaskStore() });
    const running = await before.start('slow steps=6 delayMs=30');
    const contextId = running.view?.contextId ?? '';
    expect(contextId).not.toBe('');
    const second = await before.start({ text: 'slow steps=4 delayMs=30', contextId });
    const done = await before.sendMessage({ text: 'stream updates=0 chunks=1 delayMs=0', contextId });
    const other = await before.start('slow steps=4 delayMs=30'); // another conversation
    running.detach();
    second.detach();
    other.detach();

    // A new client, a new (empty) store: the records are gone.
    const after = await connect(agent.url, { store: new MemoryTaskStore() });
    const handles = await after.reattach({ contextId });
    expect(handles.map((h) => h.taskId).sort()).toEqual([running.taskId, second.taskId].sort());
    expect(handles.map((h) => h.taskId)).not.toContain(done.kind === 'task' ? done.id : '');
    const results = await Promise.all(handles.map((h) => h.done()));
    expect(results.map((r) => r.status.state)).toEqual(['completed', 'completed']);
    // Called again while they are followed (or finished): nothing new.
    expect(await after.reattach({ contextId })).toEqual([]);
  });

  it('needs a contextId, and a v1.0 agent', async () => {
    agent = await startTestAgent({ versions: ['0.3'] });
    const client = await connect(agent.url);
    expect(((await client.reattach({ contextId: '' }).catch((e: unknown) => e)) as TetherError).code).toBe('INVALID_ARGUMENT');
    expect(((await client.reattach({ contextId: 'c' }).catch((e: unknown) => e)) as TetherError).code).toBe('UNSUPPORTED_OPERATION');
  });
});
