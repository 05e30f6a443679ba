import { startTestAgent, type ScenarioFn, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type A2AClient, type Binding, type Part, type ProtocolVersion, type TaskEvent } from '../src/index.js';

// A pause answered from anywhere (issue 34, point 3): a stateless server answers a paused task with
// `client.start({ text, taskId, contextId })` — a fresh client, no store shared with the one that saw the
// pause. The answer's stream may open with the task still at the pause it answers (`stalePause`, as the
// official v1.0 server does every time): that is the pause being answered, not a new one — as for
// `task.reply()`. A new question the agent asks after the answer is a new pause.

const COMBOS = [
  ['1.0', 'JSONRPC'],
  ['1.0', 'HTTP+JSON'],
  ['0.3', 'JSONRPC'],
  ['0.3', 'HTTP+JSON'],
] as const satisfies ReadonlyArray<readonly [ProtocolVersion, Binding]>;

/** `twice`: asks, then — right after the answer, with no `working` between — asks again; the second answer completes it. */
const twice: ScenarioFn = async (ctx) => {
  ctx.status('working');
  ctx.status('input-required', 'which colour?');
  const colour = await ctx.waitForInput();
  ctx.status('input-required', `which shade of ${colour}?`);
  const shade = await ctx.waitForInput();
  ctx.status('working');
  ctx.artifact({ artifactId: 'answer', name: 'answer', text: `got: ${shade} ${colour}`, lastChunk: true });
  ctx.status('completed');
};

const agents: TestAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

async function clientOf(agent: TestAgent, version: ProtocolVersion, binding: Binding): Promise<A2AClient> {
  return connect(agent.url, {
    cardCache: false,
    protocolVersions: [version],
    preferredBindings: [binding],
    resilience: { initialDelayMs: 5, maxDelayMs: 20, pollMinMs: 5, pollMaxMs: 20, streamRetryMs: 20 },
  });
}

const text = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

/** What the app saw of the task's state: `state` or `state: question`. */
const pauses = (events: readonly TaskEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'status' ? [e.message ? `${e.state}: ${text(e.message.parts)}` : e.state] : []));

/** Reads events until (and with) the first pause or the end; the loop ends with the stream of events. */
async function untilPause(events: AsyncIterable<TaskEvent>): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const e of events) {
    out.push(e);
    if (e.type === 'status' && (e.state === 'input-required' || e.state === 'completed')) break;
  }
  return out;
}

/** Starts `command` on a client of its own and leaves it at its first pause: the task's id and context. */
async function paused(agent: TestAgent, version: ProtocolVersion, binding: Binding, command: string): Promise<{ taskId: string; contextId: string }> {
  const asker = await clientOf(agent, version, binding);
  const handle = await asker.start(command);
  await untilPause(handle.events());
  handle.detach();
  return { taskId: handle.taskId as string, contextId: handle.view.contextId };
}

describe.each(COMBOS)('start({ taskId }) answering a pause, v%s %s', (version, binding) => {
  describe.each(['stream', 'poll'] as const)('delivery %s', (delivery) => {
    it('the stale pause the answer opens with is not surfaced: the task goes on to completed', async () => {
      const agent = await startTestAgent({ versions: [version] });
      agents.push(agent);
      const ids = await paused(agent, version, binding, 'input misbehave=stalePause');
      const answerer = await clientOf(agent, version, binding);
      const handle = await answerer.start({ text: 'blue', ...ids }, { delivery });
      const seen = await untilPause(handle.events());
      expect(pauses(seen)).not.toContain('input-required: need input');
      expect(pauses(seen).at(-1)).toBe('completed');
      const final = await handle.done();
      expect(final.status.state).toBe('completed');
      expect(text(final.artifacts.at(-1)?.parts ?? [])).toBe('got: blue');
    });

    it('a new question right after the answer is a new pause, surfaced once', async () => {
      const agent = await startTestAgent({ versions: [version], scenarios: { twice }, behaviour: { misbehave: ['stalePause'] } });
      agents.push(agent);
      const ids = await paused(agent, version, binding, 'twice');
      const answerer = await clientOf(agent, version, binding);
      const handle = await answerer.start({ text: 'blue', ...ids }, { delivery });
      const seen = await untilPause(handle.events());
      expect(pauses(seen)).toEqual(['input-required: which shade of blue?']);
      await handle.reply('navy');
      const final = await handle.done();
      expect(final.status.state).toBe('completed');
      expect(text(final.artifacts.at(-1)?.parts ?? [])).toBe('got: navy blue');
    });
  });
});
