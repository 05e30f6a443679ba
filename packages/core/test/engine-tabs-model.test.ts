import { SeededRandom, startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, MemoryTaskStore, type A2AClient, type Part, type TaskEvent, type TaskHandle } from '../src/index.js';
import { collect, FakeTabs, streamsOpened } from './helpers/fake-tabs.js';

// A seeded model check of tab coordination (issue 8): three clients share a store and a coordinator whose
// messages take a random time to arrive; the clients join at random moments; the driver goes away at
// random moments (up to twice), and a waiting client takes over. Whatever the interleaving, every client
// that follows the task to its end rebuilds exactly the agent's artifact from its own events, writes no
// chunk twice, sees one terminal status, and the agent sees one stream per driver.

const text = (parts: Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

/** What an app renders from the events: the artifact text, and how many times each chunk was written. */
function render(events: TaskEvent[]): { text: string; twice: string[]; terminal: number } {
  let shown = '';
  const writes = new Map<string, number>();
  let terminal = 0;
  for (const e of events) {
    if (e.type === 'artifact') {
      const parts = e.parts.map((p) => (p.kind === 'text' ? p.text : ''));
      shown = (e.append ? shown : '') + parts.join('');
      for (const p of parts) writes.set(p, (writes.get(p) ?? 0) + 1);
    }
    if (e.type === 'status' && ['completed', 'failed', 'canceled', 'rejected'].includes(e.state)) terminal++;
  }
  return { text: shown, twice: [...writes].filter(([, n]) => n > 1).map(([p]) => p), terminal };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const CHUNKS = 30;
const EXPECTED = Array.from({ length: CHUNKS }, (_, i) => `chunk-${i + 1};`).join('');
const RUNS = Number(process.env['TABS_RUNS'] ?? 24);

describe('tabs: a seeded model check of joins and handovers', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.close());

  it(`${RUNS} seeded runs: every client that follows to the end shows exactly the agent's artifact, once`, { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    for (let seed = 1; seed <= RUNS; seed++) {
      const seeded = new SeededRandom(seed);
      const random = (): number => seeded.next();
      agent.requests.length = 0;
      // Messages take 0–20 ms each; a released lock reaches the next client after 0–30 ms.
      const hub = new FakeTabs();
      hub.latency = () => Math.floor(random() * 20);
      hub.grantDelay = () => Math.floor(random() * 30);
      const store = new MemoryTaskStore();
      const clients: A2AClient[] = [];
      for (let i = 0; i < 3; i++) clients.push(await connect(agent.url, { cardCache: false, store, coordinator: hub.coordinator(i), preferredBindings: ['JSONRPC'] }));
      const [first, ...others] = clients as [A2AClient, ...A2AClient[]];
      const handles = new Map<number, { handle: TaskHandle; seen: ReturnType<typeof collect>; detached: boolean }>();
      const started = await first.start(`stream updates=2 chunks=${CHUNKS} delayMs=12`);
      handles.set(0, { handle: started, seen: collect(started), detached: false });
      // The others join at random moments; the driver goes away at random moments (at most twice, never the last one).
      const joins = others.map(async (client, i) => {
        await sleep(Math.floor(random() * 250));
        const [h] = await client.resumeAll();
        if (h) handles.set(i + 1, { handle: h, seen: collect(h), detached: false });
      });
      const departures = (async () => {
        for (let k = 0; k < 2; k++) {
          await sleep(80 + Math.floor(random() * 150));
          const holder = hub.holder(started.taskId as string);
          const driver = holder && !holder.released ? handles.get(holder.client) : undefined;
          if (driver && !driver.detached && [...handles.values()].filter((h) => !h.detached).length > 1) {
            driver.detached = true;
            driver.handle.detach();
          }
        }
      })();
      await Promise.all([...joins, departures]);
      const alive = [...handles.values()].filter((h) => !h.detached);
      const settled = await Promise.allSettled(alive.map((h) => h.handle.done()));
      await Promise.all(alive.map((h) => h.seen.ended));
      const truth = await first.getTask(started.taskId as string);
      const why = (m: string): void => void failures.push(`seed ${seed}: ${m}`);
      if (text(truth.artifacts[0]?.parts ?? []) !== EXPECTED) why('the agent did not finish the artifact');
      settled.forEach((s, i) => {
        if (s.status === 'rejected') why(`client ${i} done() rejected: ${String(s.reason)}`);
      });
      for (const [i, h] of alive.entries()) {
        const shown = render(h.seen.events);
        if (shown.text !== EXPECTED) why(`client ${i} shows ${shown.text.length} chars, not the ${EXPECTED.length} expected`);
        if (shown.twice.length > 0) why(`client ${i} wrote ${shown.twice.slice(0, 3).join(' ')} twice`);
        if (shown.terminal !== 1) why(`client ${i} saw ${shown.terminal} terminal statuses`);
      }
      const streams = streamsOpened(agent);
      // One stream per driver at most (a handover after the end needs none); a mirror never opens one.
      if (streams < 1 || streams > 1 + hub.handovers) why(`${streams} streams for ${hub.handovers} handovers`);
    }
    expect(failures).toEqual([]);
  });
});
