import { describe, expect, it } from 'vitest';
import { startTestAgent } from '@a2a-tether/testkit';
import { connect, NODE_MAX_STREAMS, type Task, type TaskHandle } from '../src/index.js';

// Issue 7: more tasks than sockets. 3,000 concurrent long tasks against one agent from one process,
// through node's own pool (1,024 sockets per origin, 1,000 of them for streams): every start()
// resolves, every task ends with the agent's artifacts; tasks past the stream slots are polled and take
// a stream when one frees. Heap per followed task and request rate are printed (not asserted: timing).

const TASKS = 3_000;
const STEPS = 8;

const textOf = (parts: readonly { kind: string; text?: string }[]): string => parts.map((p) => (p.kind === 'text' ? (p.text ?? '') : '')).join('');

describe('more tasks than sockets', () => {
  it(`${TASKS} concurrent long tasks from one process: every start() resolves, every task ends with the agent's artifacts`, async () => {
    const agent = await startTestAgent({ versions: ['1.0'] });
    try {
      const client = await connect(agent.origin, { cardCache: false });
      global.gc?.();
      const heapBefore = process.memoryUsage().heapUsed;
      const started = Date.now();
      const handles: TaskHandle[] = await Promise.all(
        Array.from({ length: TASKS }, (_, i) => client.start(`slow steps=${STEPS} delayMs=1000 label=m${i}`)),
      );
      const startMs = Date.now() - started;
      // Sends that could not stream went out unary (then the task was polled): the agent saw them.
      const rpc = (method: string): number => agent.requests.filter((r) => (r.body as { method?: string } | undefined)?.method === method).length;
      const polled = rpc('SendMessage');
      global.gc?.();
      const heapPerTask = (process.memoryUsage().heapUsed - heapBefore) / TASKS;
      const finals: Task[] = await Promise.all(handles.map((h) => h.done()));
      const totalMs = Date.now() - started;
      const requests = agent.requests.length;
      for (const final of finals) {
        const truth = agent.tasks.get(final.id);
        expect(final.status.state).toBe('completed');
        expect(truth?.state).toBe('completed');
        expect(final.artifacts.map((a) => textOf(a.parts))).toEqual(truth?.artifacts.map((a) => textOf(a.parts as { kind: string; text?: string }[])));
        expect(final.artifacts[0]?.parts).toHaveLength(STEPS);
      }
      expect(new Set(finals.map((f) => f.id)).size).toBe(TASKS);
      // Past the stream slots, tasks were sent unary and polled rather than waiting on a socket: never more
      // streaming sends than slots, however slowly the starts went (a slot freed by a finished task is reused).
      expect(polled).toBeGreaterThan(0);
      expect(rpc('SendStreamingMessage') + polled).toBe(TASKS);
      console.log(
        `${TASKS} tasks: all start() resolved in ${startMs} ms; ${polled} polled at first (maxStreams ${NODE_MAX_STREAMS}); ` +
          `all done in ${totalMs} ms; heap ≈ ${(heapPerTask / 1024).toFixed(1)} KB per followed task (the agent, in the same process, included); ` +
          `${requests} requests to the agent (${Math.round((requests / totalMs) * 1000)}/s)`,
      );
    } finally {
      await agent.close();
    }
  }, 180_000);
});
