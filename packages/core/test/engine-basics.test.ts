import { startTestAgent, type ScenarioContext, type TestAgent, type TestAgentOptions } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, MemoryTaskStore, TetherError, type A2AClient, type ConnectOptions, type Part, type TaskEvent } from '../src/index.js';

const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function setup(options: TestAgentOptions = {}, connectOptions: ConnectOptions = {}): Promise<{ agent: TestAgent; client: A2AClient }> {
  const agent = await startTestAgent(options);
  agents.push(agent);
  const client = await connect(agent.url, { cardCache: false, ...connectOptions });
  return { agent, client };
}

const text = (parts: Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

/** Rebuilds artifacts from the app's events, as an app would. */
function rebuild(events: TaskEvent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of events) {
    if (e.type === 'artifact') out[e.artifactId] = (e.append ? (out[e.artifactId] ?? '') : '') + text(e.parts);
  }
  return out;
}

/** A door a scenario waits at until the test opens it: the agent moves on only when the test says so. */
interface Gate {
  open(): void;
  readonly opened: Promise<void>;
}

function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open: () => open(), opened };
}

/** Resolves when the agent is asked to cancel the task (or closes). */
function cancelRequested(ctx: ScenarioContext): Promise<void> {
  return new Promise((resolve) => {
    if (ctx.cancelled.aborted) resolve();
    ctx.cancelled.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** Chunk `i` of artifact `result`, as the built-in scenarios send it. */
function chunk(ctx: ScenarioContext, i: number, last = false): void {
  ctx.artifact({ artifactId: 'result', name: 'result', text: `chunk-${i};`, append: i > 1, lastChunk: last });
}

async function collect(iterable: AsyncIterable<TaskEvent>, until?: (e: TaskEvent) => boolean): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const e of iterable) {
    out.push(e);
    if (until?.(e)) break;
  }
  return out;
}

describe.each(['stream', 'poll'] as const)('client.start with delivery %s', (delivery) => {
  it('follows a chunked task to the end; events rebuild the final artifact; the store keeps its final record', async () => {
    const store = new MemoryTaskStore();
    const { client } = await setup({}, { store, resilience: { pollMinMs: 5, pollMaxMs: 20 } });
    const task = await client.start('stream updates=3 chunks=6 delayMs=5', { delivery });
    expect(task.kind).toBe('task');
    expect(await store.get(client.taskKey(task.taskId as string))).toMatchObject({ taskId: task.taskId, agentUrl: client.cardUrl }); // G1
    const events = await collect(task.events());
    const final = await task.done();
    expect(final.status.state).toBe('completed');
    expect(rebuild(events)['result']).toBe(text(final.artifacts[0]?.parts ?? []));
    expect(text(final.artifacts[0]?.parts ?? [])).toBe('chunk-1;chunk-2;chunk-3;chunk-4;chunk-5;chunk-6;');
    const statuses = events.flatMap((e) => (e.type === 'status' ? [e.state] : []));
    expect(statuses.at(-1)).toBe('completed');
    expect(events.at(-1)).toEqual({ type: 'connection', state: 'closed' });
    expect(task.view).toMatchObject({ state: 'completed', connection: 'closed' });
    await task.flush();
    // The record outlives the task (until its retention ends): final state and outcome, not active.
    expect(await store.get(client.taskKey(task.taskId as string))).toMatchObject({ state: 'completed', outcome: { kind: 'finished', state: 'completed' } });
    expect(await store.list({ active: true })).toEqual([]);
  });

  it('pauses at input-required, continues the same task with reply()', async () => {
    const { client } = await setup({}, { resilience: { pollMinMs: 5, pollMaxMs: 20 } });
    const task = await client.start('input', { delivery });
    const first = await collect(task.events(), (e) => e.type === 'status' && e.state === 'input-required');
    expect(first.findLast((e) => e.type === 'status')).toMatchObject({ state: 'input-required', message: { parts: [{ text: 'need input' }] } });
    expect(task.view.state).toBe('input-required');
    await task.reply('blue');
    const final = await task.done();
    expect(final.id).toBe(task.taskId);
    expect(final.status.state).toBe('completed');
    expect(text(final.artifacts.at(-1)?.parts ?? [])).toBe('got: blue');
    await expect(task.reply('again')).rejects.toThrow(/no longer followed|not waiting for input/);
  });
});

describe('a handle nobody reads (an app that only awaits done())', () => {
  it('holds a few events, not the whole run: a late reader gets a resync of the view, the artifact whole', async () => {
    const { client } = await setup();
    const task = await client.start('slow steps=300 delayMs=0');
    const final = await task.done();
    // 300 steps: 600 events the app never read. Past maxBufferedEvents (50) the buffer became a resync.
    const events = await collect(task.events());
    expect(events.length).toBeLessThanOrEqual(70);
    expect(events.some((e) => e.type === 'artifact' && e.recovered === true)).toBe(true);
    expect(rebuild(events)['result']).toBe(text(final.artifacts[0]?.parts ?? []));
    expect(text(final.artifacts[0]?.parts ?? [])).toMatch(/^chunk-1;.*chunk-300;$/);
  });
});

describe('resumeAll() and the tasks a client follows', () => {
  it('skips a task this client follows already, with a plain store (no leases): no second follow', async () => {
    const { client } = await setup({ versions: ['1.0'] });
    const handle = await client.start('slow steps=200 delayMs=20');
    const again = await client.resumeAll();
    expect(again).toEqual([]);
    await handle.cancel();
  });
});

describe('TaskView.incompleteArtifacts', () => {
  it('names an artifact until its last chunk arrives, and keeps naming the partial output of a task that failed midway', async () => {
    const more = gate();
    const { client } = await setup({
      scenarios: {
        halves: async (ctx) => {
          ctx.status('working');
          chunk(ctx, 1);
          ctx.artifact({ artifactId: 'notes', text: 'whole', lastChunk: true });
          await more.opened;
          chunk(ctx, 2);
          ctx.status('failed', 'ran out of sources');
        },
      },
    });
    const handle = await client.start('halves', { delivery: 'stream' });
    await collect(handle.events(), (e) => e.type === 'artifact' && e.artifactId === 'notes');
    expect(handle.view.incompleteArtifacts).toEqual(['result']);
    more.open();
    const task = await handle.done();
    expect(task.status.state).toBe('failed');
    expect(handle.view.artifacts.map((a) => a.artifactId)).toEqual(['result', 'notes']);
    expect(text(handle.view.artifacts[0]?.parts ?? [])).toBe('chunk-1;chunk-2;');
    expect(handle.view.incompleteArtifacts).toEqual(['result']);
  });
});

describe('client.start', () => {
  it('resolves a direct message reply with a message handle', async () => {
    const { client } = await setup();
    const handle = await client.start('echo hi');
    expect(handle.kind).toBe('message');
    expect(handle.taskId).toBeUndefined();
    expect(await handle.result()).toMatchObject({ kind: 'message', parts: [{ text: 'echo: echo hi' }] });
    expect(handle.message).toMatchObject({ kind: 'message', parts: [{ text: 'echo: echo hi' }] });
    await expect(handle.done()).rejects.toMatchObject({ code: 'NO_TASK' });
    expect(await collect(handle.events())).toMatchObject([{ type: 'message' }]);
  });

  it('polls when the card says the agent cannot stream', async () => {
    const { agent, client } = await setup({ capabilities: { streaming: false } }, { resilience: { pollMinMs: 5, pollMaxMs: 20 } });
    const task = await client.start('stream updates=2 chunks=3 delayMs=5');
    const events = await collect(task.events());
    expect(events.some((e) => e.type === 'connection' && e.state === 'polling')).toBe(true);
    expect((await task.done()).status.state).toBe('completed');
    expect(rebuild(events)['result']).toBe('chunk-1;chunk-2;chunk-3;');
    const methods = agent.requests.map((r) => `${r.method} ${r.path} ${(r.body as { method?: string } | undefined)?.method ?? ''}`);
    expect(methods.filter((m) => /Streaming|SubscribeToTask|message\/stream|resubscribe|:stream|:subscribe/.test(m))).toEqual([]);
    expect(methods.some((m) => /GetTask|tasks\/get/.test(m))).toBe(true);
  });

  it('cancel confirms when the agent really stops: the task is then seen canceled', async () => {
    const { agent, client } = await setup({
      scenarios: {
        // Works until asked to cancel, then stops (the testkit agent then marks the task canceled).
        stops: async (ctx) => {
          ctx.status('working');
          await cancelRequested(ctx);
        },
      },
    });
    const task = await client.start('stops');
    const id = task.taskId as string;
    expect(await task.cancel({ reason: 'user left' })).toEqual({ requested: true, confirmed: true, state: 'canceled' });
    expect(agent.tasks.get(id)?.state).toBe('canceled');
    expect((await task.done()).status.state).toBe('canceled');
    const cancels = agent.requests.filter((r) => /CancelTask|tasks\/cancel/.test(JSON.stringify(r.body ?? '')) || r.path.includes(':cancel'));
    expect(cancels).toHaveLength(1);
    expect(JSON.stringify(cancels[0]?.body)).toContain('"a2a-tether/cancel-reason":"user left"');
  });

  it('cancel does not confirm when the agent finishes the task instead: confirmed false, state completed', async () => {
    const { agent, client } = await setup({
      scenarios: {
        // Asked to cancel, it completes the task anyway (a cancel request is not a cancellation).
        finishes: async (ctx) => {
          ctx.status('working');
          await cancelRequested(ctx);
          chunk(ctx, 1, true);
          ctx.status('completed');
        },
      },
    });
    const task = await client.start('finishes');
    expect(await task.cancel()).toEqual({ requested: true, confirmed: false, state: 'completed' });
    expect(agent.tasks.get(task.taskId as string)?.state).toBe('completed');
    const final = await task.done();
    expect(final.status.state).toBe('completed');
    expect(text(final.artifacts[0]?.parts ?? [])).toBe('chunk-1;');
  });

  it('cancel does not confirm while the agent keeps working: confirmed false, state working after waitMs', async () => {
    const release = gate();
    const { agent, client } = await setup({
      scenarios: {
        // Ignores the cancel request: works until the test lets it finish.
        ignores: async (ctx) => {
          ctx.status('working');
          await release.opened;
          chunk(ctx, 1, true);
          ctx.status('completed');
        },
      },
    });
    const task = await client.start('ignores');
    expect(await task.cancel({ waitMs: 50 })).toEqual({ requested: true, confirmed: false, state: 'working' });
    expect(agent.tasks.get(task.taskId as string)?.state).toBe('working');
    release.open();
    expect((await task.done()).status.state).toBe('completed');
  });

  // Issue 20: it sent a CancelTask (which the agent refuses) and said `requested: true`.
  it('cancelling a task that already finished sends nothing: requested false, its final state', async () => {
    const { agent, client } = await setup();
    const finished = await client.start('stream updates=1 chunks=1 delayMs=1');
    await finished.done();
    const before = agent.requests.length;
    expect(await finished.cancel()).toEqual({ requested: false, confirmed: false, state: 'completed' });
    expect(agent.requests.slice(before), 'no request at all').toEqual([]);
  });

  it('cancelling a task already canceled sends nothing either: requested false, confirmed', async () => {
    const { agent, client } = await setup({ scenarios: { stops: async (ctx) => { ctx.status('working'); await cancelRequested(ctx); } } });
    const task = await client.start('stops');
    expect(await task.cancel()).toEqual({ requested: true, confirmed: true, state: 'canceled' });
    const before = agent.requests.length;
    expect(await task.cancel()).toEqual({ requested: false, confirmed: true, state: 'canceled' });
    expect(agent.requests.slice(before)).toEqual([]);
  });

  it('detach stops watching without cancelling; resume follows the task again from the store', async () => {
    const store = new MemoryTaskStore();
    const unwatched = gate();
    const resumed = gate();
    const { agent, client } = await setup(
      {
        scenarios: {
          // One chunk while watched, two while nobody watches, two after the resume.
          paced: async (ctx) => {
            ctx.status('working');
            chunk(ctx, 1);
            await unwatched.opened;
            chunk(ctx, 2);
            chunk(ctx, 3);
            await resumed.opened;
            chunk(ctx, 4);
            chunk(ctx, 5, true);
            ctx.status('completed');
          },
        },
      },
      { store },
    );
    const task = await client.start('paced');
    const id = task.taskId as string;
    task.detach();
    unwatched.open();
    await expect.poll(() => agent.tasks.get(id)?.artifacts[0]?.parts.length ?? 0).toBe(3);
    await expect(task.done()).rejects.toMatchObject({ code: 'ABORTED', taskId: id });
    expect(agent.tasks.get(id)?.state).toBe('working');
    expect(agent.requests.some((r) => JSON.stringify(r.body ?? '').includes('Cancel') || r.path.includes(':cancel'))).toBe(false);
    const [again] = await client.resumeAll();
    expect(again?.taskId).toBe(id);
    const handle = again as NonNullable<typeof again>;
    // What happened while nobody watched comes back recovered; then the agent goes on, live.
    const caughtUp = await collect(handle.events(), (e) => e.type === 'artifact');
    expect(caughtUp.at(-1)).toMatchObject({ type: 'artifact', recovered: true });
    resumed.open();
    const events = [...caughtUp, ...(await collect(handle.events()))];
    const final = await handle.done();
    expect(final.status.state).toBe('completed');
    expect(text(final.artifacts[0]?.parts ?? [])).toBe('chunk-1;chunk-2;chunk-3;chunk-4;chunk-5;');
    expect(rebuild(events)['result']).toBe(text(final.artifacts[0]?.parts ?? []));
  });

  it('aborting events() stops reading only: the task is followed to the end and never cancelled', async () => {
    const { agent, client } = await setup();
    const task = await client.start('stream updates=2 chunks=8 delayMs=5');
    const controller = new AbortController();
    const seen: TaskEvent[] = [];
    for await (const e of task.events({ signal: controller.signal })) {
      seen.push(e);
      if (e.type === 'artifact') controller.abort();
    }
    expect(seen.filter((e) => e.type === 'artifact')).toHaveLength(1);
    const final = await task.done();
    expect(final.status.state).toBe('completed');
    expect(agent.requests.some((r) => r.path.includes(':cancel') || /CancelTask|tasks\/cancel/.test(JSON.stringify(r.body ?? '')))).toBe(false);
    // A new reader picks up where the first stopped: the rest of the chunks, nothing twice.
    const rest = await collect(task.events());
    expect(rebuild([...seen, ...rest])['result']).toBe(text(final.artifacts[0]?.parts ?? []));
  });

  it('fails done() with INPUT_TIMEOUT when nobody answers, and can cancel then', async () => {
    const { agent, client } = await setup();
    const task = await client.start('input', { inputTimeoutMs: 50, cancelOnInputTimeout: true });
    const error = await task.done().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'INPUT_TIMEOUT', taskId: task.taskId });
    await expect.poll(() => agent.tasks.get(task.taskId as string)?.state).toBe('canceled');
  });
});
