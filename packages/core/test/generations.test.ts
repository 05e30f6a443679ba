import { startTestAgent, type ScenarioFn, type TestAgent, type TestAgentOptions } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { A2AError, connect, TetherError, type A2AClient, type ConnectOptions, type Part, type TaskEvent } from '../src/index.js';
import { decodeStreamEvent, decodeTask, generationMismatch } from '../src/protocol-entry.js';

// The A2A v1.1 draft's task generation (§3.2.7), behind `experimental: { generations: true }`, against
// the testkit agent's `behaviour.generations`: a gap filled by GetTask, a replay dropped by its
// generation alone, a guarded reply refused, GetTask long-polled — and an agent that does not keep
// generations (0, a repeat, none at all), or a client without the flag, followed as before.

const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

const text = (parts: Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

/** The artifacts an app rebuilds from the events, by id. */
function rebuild(events: TaskEvent[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of events) {
    if (e.type !== 'artifact') continue;
    const held = e.append ? (out[e.artifactId] ?? '') : e.from !== undefined ? (out[e.artifactId] ?? '').slice(0, e.from) : '';
    out[e.artifactId] = held + text(e.parts);
  }
  return out;
}

/** What the app was shown, without times: states (with their message text) and artifact changes. */
function shown(events: TaskEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type === 'status') return [`status ${e.state}${e.message ? ` ${text(e.message.parts)}` : ''}`];
    if (e.type === 'artifact') return [`artifact ${e.artifactId} ${e.append ? '+' : '='}${text(e.parts)}`];
    return [];
  });
}

/** Working, then four chunks of artifact `result` (the creation is event 1, `working` 2, chunk i is 2 + i), then completed (7). */
const gen: ScenarioFn = (ctx) => {
  ctx.status('working');
  for (let i = 1; i <= 4; i++) ctx.artifact({ artifactId: 'result', text: `chunk-${i};`, append: i > 1, lastChunk: i === 4 });
  ctx.status('completed');
};
const WHOLE = 'chunk-1;chunk-2;chunk-3;chunk-4;';

/** Asks (input-required, event 2), then answers with what it was told and completes. */
const ask: ScenarioFn = async (ctx) => {
  ctx.status('input-required', 'colour?');
  const answer = await ctx.waitForInput();
  ctx.artifact({ artifactId: 'answer', text: answer, lastChunk: true });
  ctx.status('completed');
};

/** A door the `door` scenario waits at until the test opens it. */
let open: () => void = () => undefined;
const door: ScenarioFn = async (ctx) => {
  const opened = new Promise<void>((resolve) => (open = resolve));
  ctx.status('working');
  await opened;
  ctx.artifact({ artifactId: 'result', text: 'done', lastChunk: true });
  ctx.status('completed');
};

type Binding = 'JSONRPC' | 'HTTP+JSON';

async function setup(binding: Binding, generations: boolean, flag: boolean, extra: ConnectOptions = {}): Promise<{ agent: TestAgent; client: A2AClient }> {
  const options: TestAgentOptions = {
    versions: ['1.0'],
    bindings: [binding],
    behaviour: { generations, generationHoldMs: 60_000 },
    scenarios: { gen, ask, door },
  };
  const agent = await startTestAgent(options);
  agents.push(agent);
  const client = await connect(agent.url, { cardCache: false, experimental: { generations: flag }, ...extra });
  return { agent, client };
}

/** Starts `command` and follows it to the end: every event the app saw, and the final task. */
async function follow(client: A2AClient, command: string, delivery: 'stream' | 'poll' = 'stream') {
  const handle = await client.start(command, { delivery });
  const events: TaskEvent[] = [];
  for await (const event of handle.events()) events.push(event);
  return { handle, events, task: await handle.done() };
}

/** The GetTask requests the agent received, each with the `currentGeneration` it carried (if any). */
function getTasks(agent: TestAgent): { currentGeneration: string | undefined }[] {
  return agent.requests.flatMap((r) => {
    const body = r.body as { method?: string; params?: Record<string, unknown> } | undefined;
    if (r.method === 'POST' && body?.method === 'GetTask') return [{ currentGeneration: body.params?.['currentGeneration'] as string | undefined }];
    if (r.method === 'GET' && /\/tasks\/[^/:]+$/.test(r.path)) return [{ currentGeneration: new URLSearchParams(r.search).get('currentGeneration') ?? undefined }];
    return [];
  });
}

describe('decoding a generation (v1.0 dialect)', () => {
  const update = (generation: unknown) => ({ statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, generation } });

  it('reads an int64 as ProtoJSON writes it (a string) or as a number, on tasks and both updates', () => {
    expect(decodeStreamEvent(update('5'), 'v1')).toMatchObject({ kind: 'status-update', generation: 5 });
    expect(decodeStreamEvent(update(7), 'v1')).toMatchObject({ generation: 7 });
    const artifact = { artifactUpdate: { taskId: 't', artifact: { artifactId: 'a', parts: [{ text: 'x' }] }, generation: '3' } };
    expect(decodeStreamEvent(artifact, 'v1')).toMatchObject({ kind: 'artifact-update', generation: 3 });
    expect(decodeTask({ id: 't', status: { state: 'TASK_STATE_WORKING' }, generation: '12' }, 'v1').generation).toBe(12);
  });

  it('leaves out 0 (the proto default: not kept), anything not a non-negative safe integer, and every v0.3 generation', () => {
    for (const bad of [0, '0', -1, '-1', 1.5, '1.5', 'x', '', true, {}, 2 ** 53, '99999999999999999']) {
      expect(decodeStreamEvent(update(bad), 'v1')).not.toHaveProperty('generation');
    }
    const v03 = { kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'working' }, final: false, generation: 4 };
    expect(decodeStreamEvent(v03, 'v03')).not.toHaveProperty('generation');
  });
});

describe.each<Binding>(['JSONRPC', 'HTTP+JSON'])('generations over %s', (binding) => {
  it('fills a gap the generations reveal with the snapshot of a GetTask: the artifact is whole, in order', async () => {
    const { agent, client } = await setup(binding, true, true);
    const { events, task } = await follow(client, 'gen misbehave=dropEvent mbDropAt=4');
    // Chunk 2 (event 4) never came on the stream: the GetTask that filled the gap brought it, before chunk 3.
    expect(getTasks(agent).length).toBeGreaterThanOrEqual(1);
    expect(rebuild(events)).toEqual({ result: WHOLE });
    expect(task.artifacts.map((a) => text(a.parts))).toEqual([WHOLE]);
    expect(task.status.state).toBe('completed');
  });

  it.each([
    ['an artifact chunk', 3],
    ['a status', 2],
  ])('drops %s replayed with its old generation, though its content would pass for news', async (_what, of) => {
    const { events, task } = await follow((await setup(binding, true, true)).client, `gen misbehave=replayOld mbReplayAt=4 mbReplayOf=${of}`);
    expect(shown(events).filter((line) => line.includes('REPLAYED'))).toEqual([]);
    expect(rebuild(events)).toEqual({ result: WHOLE });
    expect(task.artifacts.map((a) => text(a.parts))).toEqual([WHOLE]);
  });

  it('refuses a reply guarded by a stale generation with the typed mismatch (nothing delivered); the guarded reply that follows completes the task', async () => {
    const { agent, client } = await setup(binding, true, true);
    const handle = await client.start('ask');
    const events: TaskEvent[] = [];
    const reading = (async () => {
      for await (const event of handle.events()) events.push(event);
    })();
    await vi.waitFor(() => expect(handle.view.state).toBe('input-required'));
    // The task is at generation 2 (created, then input-required): 1 is stale.
    const refused = await handle.reply('red', { ifGenerationMatch: 1 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(A2AError);
    expect(refused).toMatchObject({ a2aCode: -32010, maybeDelivered: false, isRetryable: false });
    expect(generationMismatch(refused)).toEqual({ taskId: handle.taskId, expectedGeneration: 1, currentGeneration: 2 });
    expect(generationMismatch(new TetherError('NETWORK', 'x'))).toBeUndefined();
    expect(handle.view.state).toBe('input-required');
    await handle.reply('blue', { ifGenerationMatch: 'last' });
    const task = await handle.done();
    await reading;
    expect(task.artifacts.map((a) => text(a.parts))).toEqual(['blue']);
    // The refused message never reached the task: its history holds the first message and the one reply.
    const record = agent.tasks.get(task.id);
    expect(record?.history.filter((m) => m.role === 'user').map((m) => m.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''))).toEqual(['ask', 'blue']);
    expect(shown(events).filter((line) => line.startsWith('status input-required'))).toEqual(['status input-required colour?']);
  });

  it('long-polls while polling: GetTask carries currentGeneration and the agent holds it until the task moves', async () => {
    const { agent, client } = await setup(binding, true, true, { resilience: { pollMinMs: 20, pollMaxMs: 50 } });
    const following = follow(client, 'door', 'poll');
    // A GetTask that asks to get past the task's current generation: the agent holds it.
    await vi.waitFor(() => {
      const current = String(agent.tasks.list()[0]?.generation ?? 0);
      expect(getTasks(agent).some((g) => g.currentGeneration === current)).toBe(true);
    });
    open();
    const { task, events } = await following;
    expect(task.status.state).toBe('completed');
    expect(rebuild(events)).toEqual({ result: 'done' });
    const held = agent.longPolls.filter((poll) => poll.held);
    expect(held.length).toBeGreaterThanOrEqual(1);
    for (const poll of held) expect(poll.answered).toBeGreaterThan(poll.currentGeneration);
  });

  it('a v1.0 agent (no generations): polls as before, without currentGeneration, and the task ends the same', async () => {
    const { agent, client } = await setup(binding, false, true, { resilience: { pollMinMs: 20, pollMaxMs: 50 } });
    const following = follow(client, 'door', 'poll');
    await vi.waitFor(() => expect(getTasks(agent).length).toBeGreaterThanOrEqual(2));
    open();
    const { task, events } = await following;
    expect(task.status.state).toBe('completed');
    expect(rebuild(events)).toEqual({ result: 'done' });
    expect(getTasks(agent).every((g) => g.currentGeneration === undefined)).toBe(true);
    expect(agent.longPolls).toEqual([]);
  });

  it.each([
    ['generation 0 from event 5 on', 'zeroGeneration,replayOld mbZeroAt=5 mbReplayAt=6 mbReplayOf=3'],
    ['the same generation on two events in a row', 'repeat,replayOld mbReplayAt=4 mbReplayOf=3 mbSeed=1'],
  ])('falls back to the reconciler for the rest of the task after %s: the app sees what it sees without the flag', async (_what, misbehave) => {
    const command = `gen misbehave=${misbehave}`;
    const withFlag = await follow((await setup(binding, true, true)).client, command);
    const withoutFlag = await follow((await setup(binding, true, false)).client, command);
    expect(shown(withFlag.events)).toEqual(shown(withoutFlag.events));
    // The old event, no longer told apart by its generation, passed the reconciler's rules (as it does without the flag).
    expect(shown(withFlag.events).some((line) => line.includes('REPLAYED'))).toBe(true);
    expect(withFlag.task.artifacts.map((a) => text(a.parts))).toEqual(withoutFlag.task.artifacts.map((a) => text(a.parts)));
  });

  it('without the flag, generations change nothing: no currentGeneration is sent, replays pass as before, and only an explicit guard goes out', async () => {
    const { agent, client } = await setup(binding, true, false, { resilience: { pollMinMs: 20, pollMaxMs: 50 } });
    const replay = await follow(client, 'gen misbehave=replayOld mbReplayAt=4 mbReplayOf=3');
    expect(shown(replay.events).some((line) => line.includes('REPLAYED'))).toBe(true);
    const polled = follow(client, 'door', 'poll');
    await vi.waitFor(() => expect(getTasks(agent).length).toBeGreaterThanOrEqual(2));
    open();
    await polled;
    const asked = await client.start('ask');
    await vi.waitFor(() => expect(asked.view.state).toBe('input-required'));
    await expect(asked.reply('x', { ifGenerationMatch: 'last' })).rejects.toMatchObject({ a2aCode: -32010 });
    expect(getTasks(agent).every((g) => g.currentGeneration === undefined)).toBe(true);
    expect(agent.longPolls).toEqual([]);
    const sends = agent.requests.filter((r) => JSON.stringify(r.body ?? '').includes('"message"'));
    expect(sends.filter((r) => JSON.stringify(r.body).includes('ifGenerationMatch')).length).toBe(1);
  });
});
