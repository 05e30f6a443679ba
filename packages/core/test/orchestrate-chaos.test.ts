// Seeded runs of a small workflow whose agents sit behind a chaos proxy (cut streams, 503/429 answers,
// lost send answers), some with a correction in the middle. Whatever the faults, the workflow must end,
// no external effect may happen twice, every task an agent created must be known to the workflow, and
// nothing superseded may be adopted. `pnpm chaos --workflows N [--seed S]` runs N of them (CI: 12, from
// seed 20261201); WORKFLOW_CHAOS_VERBOSE=1 prints one line per run.
import { actionScenario, SeededRandom, startActionService, startFaultProxy, startTestAgent, type FaultProxy, type TestAgent } from '@a2a-tether/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../src/index.js';
import { formatTree, startWorkflow, type Workflow } from '../src/orchestrate-entry.js';

const RUNS = Number(process.env['WORKFLOW_CHAOS_RUNS'] ?? 12);
const BASE_SEED = Number(process.env['WORKFLOW_CHAOS_SEED'] ?? 20261201);

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function behindChaos(agent: TestAgent, seed: number): Promise<FaultProxy> {
  const proxy = await startFaultProxy({ target: agent.origin, seed });
  closers.push(() => proxy.close());
  proxy.chaos({ cutProbability: 0.4, statusProbability: 0.15, maxEventsBeforeCut: 4 });
  proxy.addFault({ kind: 'loseAnswer', probability: 0.35, times: Infinity, match: { rpcMethod: /SendStreamingMessage/ } });
  return proxy;
}

describe('workflows under chaos', () => {
  it.each(Array.from({ length: RUNS }, (_, i) => BASE_SEED + i))(
    'seed %i: ends, performs every effect at most once, knows every task, adopts nothing superseded',
    async (seed) => {
      const random = new SeededRandom(seed);
      const service = await startActionService({ dedupe: false }); // a repeated send would show as a second effect
      closers.push(() => service.close());
      const worker = await startTestAgent({
        versions: ['1.0'],
        cancelWaitMs: 50,
        scenarios: {
          echo: async (ctx) => {
            ctx.status('working');
            for (let i = 1; i <= 6; i++) {
              await ctx.sleep(10);
              ctx.artifact({ artifactId: 'out', text: `${ctx.text.slice(0, 20)}#${i};`, append: i > 1, lastChunk: i === 6 });
            }
            ctx.status('completed');
          },
        },
      });
      const actor = await startTestAgent({ versions: ['1.0'], cancelWaitMs: 50, scenarios: { echo: actionScenario(service, { operation: 'publish', delayMs: 10 }) } });
      closers.push(() => worker.close(), () => actor.close());
      const [workerProxy, actorProxy] = [await behindChaos(worker, seed), await behindChaos(actor, seed + 1)];
      const resilience = { initialDelayMs: 5, maxDelayMs: 50 };
      const agents = {
        worker: await connect(workerProxy.url, { cardCache: false, preferredBindings: ['JSONRPC'], resilience }),
        actor: await connect(actorProxy.url, { cardCache: false, preferredBindings: ['JSONRPC'], resilience }),
      };
      const flow: Workflow = await startWorkflow({
        id: `chaos-${seed}`,
        goal: 'otters',
        agents,
        cancelWaitMs: 200,
        hops: [
          { id: 'gather', agent: 'worker', input: ({ revision }) => `gather ${revision.text}` },
          { id: 'left', agent: 'actor', dependsOn: ['gather'], input: ({ revision }) => `left ${revision.text}` },
          { id: 'right', agent: 'worker', dependsOn: ['gather'], input: ({ results }) => `right ${results['gather']?.text ?? ''}` },
          { id: 'publish', agent: 'actor', dependsOn: ['left', 'right'], input: ({ revision }) => `publish ${revision.text}` },
        ],
      });
      closers.push(() => flow.stop());
      const correct = random.next() < 0.5;
      if (correct) {
        // The correction lands while the hop it affects runs (or, if the faults made it finish first, after).
        const target = random.next() < 0.5 ? 'left' : 'right';
        for await (const e of flow.events()) if (e.type === 'node' && e.node === target && (e.taskId !== undefined || e.state === 'completed')) break;
        await flow.update({ kind: 'correction', text: 'sea otters only', affects: [target] });
      }
      if (process.env['WORKFLOW_CHAOS_VERBOSE']) {
        const t = setTimeout(() => console.log('STUCK', seed, JSON.stringify(flow.snapshot, null, 1), formatTree(flow.summary())), 5_000);
        void flow.done().finally(() => clearTimeout(t));
      }
      const summary = await flow.done();
      const tree = formatTree(summary);
      const record = summary.record;

      if (process.env['WORKFLOW_CHAOS_VERBOSE']) {
        const faults = [workerProxy.stats, actorProxy.stats].map((st) => st.cuts.reset + st.cuts.end + st.injectedStatus + st.lostAnswers);
        const superseded = Object.values(record.nodes).flatMap((n) => n.attempts.filter((a) => a.rejectedReason !== undefined)).length;
        console.log(`chaos ${seed}: ${summary.state}, revision ${record.revision}, faults ${faults[0] ?? 0}+${faults[1] ?? 0}, effects ${service.effects.length}, superseded attempts ${superseded}`);
      }
      // Ends, with every node final and nothing left unknown.
      expect(Object.values(record.nodes).every((n) => n.state !== 'pending' && n.state !== 'running'), tree).toBe(true);
      expect(record.ledger.filter((e) => e.outcome === 'intended' || e.outcome === 'unknown'), tree).toEqual([]);
      // No effect twice: each performed key once, and each is a send the ledger knows.
      const sends = new Set(record.ledger.filter((e) => e.operation === 'SendMessage').map((e) => e.key));
      for (const effect of service.effects) {
        expect(service.count(effect.key), tree).toBe(1);
        expect(sends.has(effect.key), `${effect.key} is not a send of the workflow\n${tree}`).toBe(true);
      }
      // Every task an agent created belongs to an attempt of the workflow.
      const known = new Set(Object.values(record.nodes).flatMap((n) => n.attempts.map((a) => a.taskId)));
      for (const task of [...worker.tasks.list(), ...actor.tasks.list()]) expect(known.has(task.id), `task ${task.id} unknown to the workflow\n${tree}`).toBe(true);
      // Nothing superseded is adopted; a completed node's result is of the revision in force.
      for (const node of Object.values(record.nodes)) {
        for (const a of node.attempts) if (a.adopted) expect(a.revision === record.revision || !(record.updates[0]?.affects ?? []).includes(node.id), tree).toBe(true);
        expect(node.attempts.filter((a) => a.adopted).length, tree).toBeLessThanOrEqual(1);
      }
      // v1.0 agents can always be asked (ListTasks), so no node is left unresolved.
      expect(Object.values(record.nodes).filter((n) => n.state === 'unresolved'), tree).toEqual([]);
      // A ceiling on requests: bounded however the faults fall.
      expect(workerProxy.stats.requests + actorProxy.stats.requests, tree).toBeLessThan(400);
    },
    30_000,
  );
});
