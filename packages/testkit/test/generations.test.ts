import { afterEach, describe, expect, it } from 'vitest';
import { startTestAgent } from '../src/index.js';
import type { TestAgent, TestAgentOptions } from '../src/index.js';
import { V1_HEADERS, rest, rpc, until, v03JsonRpc, v1JsonRpc, v1Message, v1Rest } from './helpers.js';
import type { Combo, Json, SseFrame } from './helpers.js';

// The A2A v1.1 draft's task generation (§3.2.7) on the wire, with plain fetch: `behaviour.generations`
// stamps tasks and events, holds GetTask for `currentGeneration`, refuses a stale `ifGenerationMatch`;
// the misbehaviours `dropEvent`, `replayOld` and `zeroGeneration` bend it.

const agents: TestAgent[] = [];

afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function start(options: TestAgentOptions = {}): Promise<TestAgent> {
  const agent = await startTestAgent(options);
  agents.push(agent);
  return agent;
}

/** A streaming send's frames in the combo's dialect. */
async function openStream(combo: Combo, agent: TestAgent, text: string): Promise<{ frames: SseFrame[] }> {
  return combo.stream(agent, text);
}

/** The id of the task a stream created (its first frame, a Task). */
function createdTaskId(stream: { frames: SseFrame[] }): string {
  const data = stream.frames[0]?.data;
  return ((data?.['result'] ?? data)?.['task'] as Json)['id'] as string;
}

/** Start a task without waiting for it (returnImmediately); resolves with its id. */
async function startTask(agent: TestAgent, text: string): Promise<string> {
  const { result } = await v1JsonRpc.send(agent, text, { blocking: false });
  return result!['task'].id as string;
}

/** The generation a v1 frame carries (its Task's, or its update's), if any. */
function generationOf(frame: SseFrame): string | undefined {
  const payload = (frame.data['result'] ?? frame.data) as Json;
  const inner = (payload['task'] ?? payload['statusUpdate'] ?? payload['artifactUpdate']) as Json | undefined;
  return inner?.['generation'] as string | undefined;
}

const V1_COMBOS = [v1JsonRpc, v1Rest].map((c) => [c.name, c] as const);

describe('generations (v1.1 draft): every task and event carries one, and dropEvent, replayOld, zeroGeneration bend them', () => {
  it.each(V1_COMBOS)('%s: 1 at creation, +1 per event, as an int64 string; GetTask shows the same', async (_, combo) => {
    const agent = await start({ behaviour: { generations: true } });
    const stream = await openStream(combo, agent, 'stream updates=2 chunks=2 delayMs=1');
    const generations = stream.frames.map(generationOf);
    expect(generations).toEqual(generations.map((_g, i) => String(i + 1)));
    const id = createdTaskId(stream);
    expect(agent.tasks.get(id)?.generation).toBe(generations.length);
    const { result } = await combo.get(agent, id);
    expect((result?.['task'] ?? result)?.['generation']).toBe(String(generations.length));
  });

  it('without the behaviour, and on v0.3, no frame carries one', async () => {
    const plain = await start();
    for (const frame of (await openStream(v1JsonRpc, plain, 'stream updates=1 chunks=1 delayMs=1')).frames) expect(generationOf(frame)).toBeUndefined();
    const agent = await start({ behaviour: { generations: true } });
    for (const frame of (await openStream(v03JsonRpc, agent, 'stream updates=1 chunks=1 delayMs=1')).frames) {
      expect(JSON.stringify(frame.data)).not.toContain('generation');
    }
  });

  it.each(V1_COMBOS)('%s: dropEvent leaves event mbDropAt out of the stream (a gap); replayOld sends an old one again, other text; zeroGeneration says 0', async (_, combo) => {
    const agent = await start({ behaviour: { generations: true } });
    const dropped = await openStream(combo, agent, 'stream updates=2 chunks=2 delayMs=1 misbehave=dropEvent mbDropAt=3');
    expect(dropped.frames.map(generationOf)).toEqual(['1', '2', '4', '5', '6']);
    const replayed = await openStream(combo, agent, 'stream updates=2 chunks=2 delayMs=1 misbehave=replayOld mbReplayAt=4 mbReplayOf=3');
    expect(replayed.frames.map(generationOf)).toEqual(['1', '2', '3', '4', '3', '5', '6']);
    expect(JSON.stringify(replayed.frames[4]?.data)).toContain('REPLAYED');
    expect(JSON.stringify(replayed.frames[2]?.data)).not.toContain('REPLAYED');
    const zeroed = await openStream(combo, agent, 'stream updates=2 chunks=2 delayMs=1 misbehave=zeroGeneration mbZeroAt=3');
    expect(zeroed.frames.map(generationOf)).toEqual(['1', '2', '0', '0', '0', '0']);
  });

  it('ifGenerationMatch: another generation is -32010 on JSON-RPC and 409 on HTTP+JSON, with ErrorInfo metadata; the matching one is taken', async () => {
    const agent = await start({ behaviour: { generations: true } });
    const id = await startTask(agent, 'input');
    await until(() => agent.tasks.get(id)?.state === 'input-required');
    const generation = agent.tasks.get(id)!.generation;
    const contextId = agent.tasks.get(id)!.contextId;
    const body = (match: number): Json => ({ message: v1Message('late', { taskId: id, contextId }), configuration: { ifGenerationMatch: String(match) } });
    const metadata = { taskId: id, expectedGeneration: String(generation - 1), currentGeneration: String(generation) };
    const viaRpc = await rpc(agent, 'SendMessage', body(generation - 1), { version: '1.0' });
    expect(viaRpc.body['error']).toMatchObject({ code: -32010, data: [{ reason: 'TASK_GENERATION_MISMATCH', metadata }] });
    const viaRest = await rest(agent, 'POST', '/message:send', body(generation - 1), V1_HEADERS);
    expect(viaRest.status).toBe(409);
    expect(viaRest.body['error']).toMatchObject({ code: 409, status: 'ABORTED', details: [{ reason: 'TASK_GENERATION_MISMATCH', metadata }] });
    expect(agent.tasks.get(id)?.history.filter((m) => m.role === 'user')).toHaveLength(1);
    const taken = await rest(agent, 'POST', '/message:send', { ...body(generation), configuration: { ifGenerationMatch: generation, returnImmediately: true } }, V1_HEADERS);
    expect(taken.status).toBe(200);
  });

  it('GetTask with currentGeneration holds until the task moves past it, and answers at once when it has', async () => {
    const agent = await start({ behaviour: { generations: true, generationHoldMs: 60_000 } });
    const id = await startTask(agent, 'input');
    await until(() => agent.tasks.get(id)?.state === 'input-required');
    const generation = agent.tasks.get(id)!.generation;
    const early = await rest(agent, 'GET', `/tasks/${id}?currentGeneration=${generation - 1}`, undefined, V1_HEADERS);
    expect(early.body['generation']).toBe(String(generation));
    const held = rpc(agent, 'GetTask', { id, currentGeneration: String(generation) }, { version: '1.0' });
    await until(() => agent.requests.filter((r) => JSON.stringify(r.body ?? '').includes('currentGeneration')).length === 1);
    expect(agent.longPolls.map((p) => p.held)).toEqual([false]);
    const contextId = agent.tasks.get(id)!.contextId;
    await rpc(agent, 'SendMessage', { message: v1Message('go', { taskId: id, contextId }), configuration: { returnImmediately: true } }, { version: '1.0' });
    const answer = await held;
    expect(Number(answer.body['result']['generation'])).toBeGreaterThan(generation);
    expect(agent.longPolls.at(-1)).toMatchObject({ taskId: id, currentGeneration: generation, held: true });
  });
});
