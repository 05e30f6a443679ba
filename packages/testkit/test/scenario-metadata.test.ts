import { afterEach, describe, expect, it } from 'vitest';
import { startTestAgent } from '../src/index.js';
import type { ScenarioFn, TestAgent } from '../src/index.js';
import { COMBOS } from './helpers.js';
import type { Json } from './helpers.js';

// Scenario metadata (status message and artifact) reaches clients in every dialect.

let agent: TestAgent | undefined;

afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** working (message with metadata) → artifact with metadata → completed (metadata, no text). */
const meta: ScenarioFn = (ctx) => {
  ctx.status('working', 'on it', { metadata: { step: 1 } });
  ctx.artifact({ artifactId: 'out', name: 'out', text: 'x', lastChunk: true, metadata: { 'a2a-tether/revision': 3 } });
  ctx.status('completed', undefined, { metadata: { cost: { amount: 2, unit: 'USD' } } });
};

/** Two chunks of one artifact, each with its own metadata. */
const appended: ScenarioFn = (ctx) => {
  ctx.artifact({ artifactId: 'out', text: 'a', metadata: { first: true, shared: 1 } });
  ctx.artifact({ artifactId: 'out', text: 'b', append: true, lastChunk: true, metadata: { shared: 2 } });
  ctx.status('completed');
};

describe.each(COMBOS)('$name', (combo) => {
  it('a send answers with the status message and artifact metadata', async () => {
    agent = await startTestAgent({ scenarios: { meta } });
    const { result } = await combo.send(agent, 'meta');
    const task = combo.taskOfSend(result!)!;
    expect(task['status'].message.metadata).toEqual({ cost: { amount: 2, unit: 'USD' } });
    expect(combo.messageText(task['status'].message)).toBe('');
    expect(task['artifacts'][0].metadata).toEqual({ 'a2a-tether/revision': 3 });
    const fetched = await combo.get(agent, task['id'] as string);
    expect(fetched.result!['artifacts'][0].metadata).toEqual({ 'a2a-tether/revision': 3 });
  });

  it('stream events carry the metadata', async () => {
    agent = await startTestAgent({ scenarios: { meta } });
    const { frames } = await combo.stream(agent, 'meta');
    const events = frames.map((frame) => combo.event(frame));
    const working = events.find((event) => event.kind === 'status' && event.state === 'working');
    expect(working?.text).toBe('on it');
    expect((working?.raw['status'] as Json)['message'].metadata).toEqual({ step: 1 });
    const artifact = events.find((event) => event.kind === 'artifact');
    expect(artifact?.raw['artifact'].metadata).toEqual({ 'a2a-tether/revision': 3 });
  });
});

describe('artifact metadata on append', () => {
  it('merges over the stored metadata; the update carries only its own', async () => {
    agent = await startTestAgent({ scenarios: { appended } });
    const { frames } = await COMBOS[0]!.stream(agent, 'appended');
    const updates = frames.map((frame) => COMBOS[0]!.event(frame)).filter((event) => event.kind === 'artifact');
    expect(updates.map((update) => update.raw['artifact'].metadata)).toEqual([{ first: true, shared: 1 }, { shared: 2 }]);
    const [task] = agent.tasks.list();
    expect(task?.artifacts[0]?.metadata).toEqual({ first: true, shared: 2 });
  });

  it('a status without text or metadata has no message', async () => {
    agent = await startTestAgent({ scenarios: { appended } });
    await COMBOS[0]!.send(agent, 'appended');
    expect(agent.tasks.list()[0]?.statusMessage).toBeUndefined();
  });
});
