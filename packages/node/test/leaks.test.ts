// G8 (architecture.md §5): memory per task is bounded and nothing outlives a task — no timers,
// no abort listeners, no sockets. 5,000 task lifetimes (a few overlapping) against an in-process
// test agent, in every shape a task can end: streamed or polled to completion, detached mid-stream,
// cancelled, cut by a proxy and followed through the reconnect path, continued with reply(), a
// direct message reply.
import { getEventListeners } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startFaultProxy, startTestAgent, type FaultProxy, type TestAgent } from '@a2a-tether/testkit';
import type { Agent } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import {
  connect,
  createNodeFetch,
  MemoryTaskStore,
  taskKey,
  type A2AClient,
  type Part,
  type Scheduler,
  type TaskEvent,
  type TaskHandle,
  type TimerHandle,
} from '../src/index.js';

// A collectable heap without a CLI flag: contexts created after this see `gc`.
setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;

const TASKS = 5_000;
const WARMUP = 250;
const SAMPLE_EVERY = 500;
/** Tasks in flight at once (each lane runs its tasks one after another). */
const LANES = 4;
/** Least-squares heap growth allowed per task: a leak detector, not a budget. */
const MAX_SLOPE_BYTES_PER_TASK = 2048;
/** How long a finished task may take to release its listeners (a few event-loop turns). */
const RELEASE_WITHIN_MS = 2_000;

/** Real timers, counted: whatever the task engine arms and never fires or clears stays in `outstanding`. */
class CountingScheduler implements Scheduler {
  readonly outstanding = new Set<ReturnType<typeof setTimeout>>();
  created = 0;
  peak = 0;

  now(): number {
    return Date.now();
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const handle = setTimeout(() => {
      this.outstanding.delete(handle);
      callback();
    }, ms);
    this.outstanding.add(handle);
    this.created++;
    this.peak = Math.max(this.peak, this.outstanding.size);
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
    this.outstanding.delete(handle as ReturnType<typeof setTimeout>);
  }
}

/** Node's view of what keeps the event loop alive, by type (`TCPSocketWrap`, `Timeout` …). */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/**
 * heapUsed after full collections, with event-loop turns in between so FinalizationRegistry
 * callbacks run (undici releases each request's hold on the caller's signal in one).
 */
async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await delay(5);
  }
  gc();
  return process.memoryUsage().heapUsed;
}

/** Bytes per task: the least-squares slope of heapUsed over the task count. */
function slope(samples: [tasks: number, heap: number][]): number {
  const n = samples.length;
  const mx = samples.reduce((s, [x]) => s + x, 0) / n;
  const my = samples.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = samples.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = samples.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxy / sxx;
}

/**
 * Polls `check` until it holds and returns how long that took; throws when `ms` pass first, with
 * `missing()` saying what was not seen (read at that moment).
 */
async function within(ms: number, check: () => boolean, missing: () => string): Promise<number> {
  const started = Date.now();
  for (let i = 0; i < 10_000; i++) {
    if (check()) return Date.now() - started;
    if (Date.now() - started > ms) break;
    await delay(i < 5 ? 0 : 10);
  }
  throw new Error(`not within ${ms} ms: ${missing()}`);
}

const text = (parts: Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

function rebuild(events: TaskEvent[]): string {
  let out = '';
  for (const e of events) if (e.type === 'artifact' && e.artifactId === 'result') out = (e.append ? out : '') + text(e.parts);
  return out;
}

type Variant = 'stream' | 'poll' | 'echo' | 'detach' | 'cancel' | 'cut' | 'reply';
/** One cycle of ten tasks: every way a task can end, each lifetime fully sequential. */
const CYCLE: Variant[] = ['stream', 'cut', 'stream', 'detach', 'poll', 'echo', 'cancel', 'stream', 'reply', 'stream'];

interface Totals {
  byVariant: Record<Variant, number>;
  reconnects: number;
  cutsApplied: number;
  /** Tasks whose listeners were still attached when done() settled and events() ended (released later). */
  lateListenerReleases: string[];
  /** Longest wait, at a checkpoint, for the last aborted request to leave its pool. */
  maxPoolDrainMs: number;
  agentRequests: number;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

describe('G8: bounded memory, no leaked resources', () => {
  it(
    `${TASKS.toLocaleString('en')} sequential tasks leave no timers, listeners or sockets behind`,
    async () => {
      let agent: TestAgent = await startTestAgent();
      const port = agent.port;
      cleanups.push(() => agent.close());
      let proxy: FaultProxy = await startFaultProxy({ target: agent.origin, seed: 8 });
      const proxyPort = proxy.port;
      cleanups.push(() => proxy.close());

      // Nothing but the two listening servers is open yet: the baseline every count returns to.
      await within(
        2_000,
        () => (activeResources()['TCPSocketWrap'] ?? 0) === 0,
        () => `${activeResources()['TCPSocketWrap']} TCP sockets open before the first task (only the two listening servers should be)`,
      );
      const baseline = activeResources();

      const scheduler = new CountingScheduler();
      const store = new MemoryTaskStore();
      const directFetch = createNodeFetch({ keepAliveTimeoutMs: 100 });
      const proxiedFetch = createNodeFetch({ keepAliveTimeoutMs: 100 });
      cleanups.push(() => directFetch.dispatcher.close(), () => proxiedFetch.dispatcher.close());
      const common = { cardCache: false as const, scheduler, store };
      const direct: A2AClient = await connect(agent.url, { ...common, fetch: directFetch, resilience: { pollMinMs: 2, pollMaxMs: 10 } });
      // Through the proxy, reconnects come fast so the cut tasks do not dominate the run time.
      const proxied: A2AClient = await connect(proxy.url, {
        ...common,
        fetch: proxiedFetch,
        resilience: { initialDelayMs: 5, maxDelayMs: 50 },
      });

      // One long-lived signal per lane for events({ signal }): every reader must unhook from it.
      const laneSignals = Array.from({ length: LANES }, () => new AbortController().signal);
      const totals: Totals = {
        byVariant: { stream: 0, poll: 0, echo: 0, detach: 0, cancel: 0, cut: 0, reply: 0 },
        reconnects: 0,
        cutsApplied: 0,
        lateListenerReleases: [],
        maxPoolDrainMs: 0,
        agentRequests: 0,
      };
      const poolStats = (): string =>
        JSON.stringify([directFetch, proxiedFetch].map((f) => (f.dispatcher as Agent).stats));
      let detachedInBatch = new Set<string>();

      async function readAll(handle: TaskHandle, lane: number, onEvent?: (e: TaskEvent) => Promise<void> | void): Promise<TaskEvent[]> {
        const events: TaskEvent[] = [];
        for await (const e of handle.events({ signal: laneSignals[lane] })) {
          events.push(e);
          await onEvent?.(e);
        }
        return events;
      }

      async function runOne(i: number, lane: number): Promise<void> {
        const variant = CYCLE[i % CYCLE.length] as Variant;
        const call = new AbortController();
        const signal = call.signal;
        totals.byVariant[variant]++;
        switch (variant) {
          case 'stream': {
            const handle = await direct.start('stream updates=1 chunks=2 delayMs=0', { signal });
            const events = await readAll(handle, lane);
            const final = await handle.done();
            expect(final.status.state).toBe('completed');
            expect(rebuild(events)).toBe('chunk-1;chunk-2;');
            await handle.flush();
            break;
          }
          case 'poll': {
            const handle = await direct.start('stream updates=1 chunks=2 delayMs=1', { signal, delivery: 'poll' });
            const events = await readAll(handle, lane);
            expect(events.some((e) => e.type === 'connection' && e.state === 'polling')).toBe(true);
            const final = await handle.done();
            expect(text(final.artifacts[0]?.parts ?? [])).toBe('chunk-1;chunk-2;');
            await handle.flush();
            break;
          }
          case 'echo': {
            const handle = await direct.start(`echo ${i}`, { signal });
            expect(handle.kind).toBe('message');
            expect(await readAll(handle, lane)).toHaveLength(1);
            await handle.result();
            break;
          }
          case 'detach': {
            const handle = await direct.start('slow steps=20 delayMs=5', { signal });
            const events = await readAll(handle, lane, (e) => {
              if (e.type === 'artifact') handle.detach();
            });
            expect(events.at(-1)).toEqual({ type: 'connection', state: 'closed' });
            // Not `expect(…).rejects`: vitest keeps those assertions (and so the handles) until the test ends.
            const error: unknown = await handle.done().then(
              () => undefined,
              (e: unknown) => e,
            );
            expect(error).toMatchObject({ code: 'ABORTED' });
            await handle.flush();
            detachedInBatch.add(handle.taskId as string);
            break;
          }
          case 'cancel': {
            const handle = await direct.start('slow steps=50 delayMs=5', { signal });
            let cancelled: Promise<unknown> | undefined;
            await readAll(handle, lane, (e) => {
              if (e.type === 'artifact' && !cancelled) {
                cancelled = handle.cancel({ reason: 'leak test' });
                cancelled.catch(() => undefined); // awaited below, after the events ended
              }
            });
            await cancelled;
            expect((await handle.done()).status.state).toBe('canceled');
            await handle.flush();
            break;
          }
          case 'cut': {
            // The next event stream through the proxy ends (cleanly or by reset) after two events.
            proxy.addFault({ kind: 'cut', afterEvents: 2, mode: i % 20 < 10 ? 'end' : 'reset', match: { sse: true } });
            const handle = await proxied.start('stream updates=2 chunks=4 delayMs=2', { signal });
            const events = await readAll(handle, lane);
            const final = await handle.done();
            expect(final.status.state).toBe('completed');
            expect(text(final.artifacts[0]?.parts ?? [])).toBe('chunk-1;chunk-2;chunk-3;chunk-4;');
            expect(rebuild(events)).toBe('chunk-1;chunk-2;chunk-3;chunk-4;');
            totals.reconnects += events.filter((e) => e.type === 'connection' && e.state === 'reconnecting').length;
            await handle.flush();
            break;
          }
          case 'reply': {
            const handle = await direct.start('input', { signal });
            await readAll(handle, lane, async (e) => {
              if (e.type === 'status' && e.state === 'input-required') await handle.reply(`answer ${i}`, { signal });
            });
            const final = await handle.done();
            expect(final.status.state).toBe('completed');
            expect(text(final.artifacts.at(-1)?.parts ?? [])).toBe(`got: answer ${i}`);
            await handle.flush();
            break;
          }
        }
        // Everything the task hung on the caller's signals is gone once it is over.
        const released = () =>
          getEventListeners(signal, 'abort').length === 0 && getEventListeners(laneSignals[lane] as AbortSignal, 'abort').length === 0;
        if (!released()) {
          const onCall = getEventListeners(signal, 'abort').length;
          const ms = await within(
            RELEASE_WITHIN_MS,
            released,
            () =>
              `task #${i} (${variant}) left ${getEventListeners(signal, 'abort').length} abort listeners on its start() signal and ${getEventListeners(laneSignals[lane] as AbortSignal, 'abort').length} on its events() signal`,
          );
          totals.lateListenerReleases.push(`#${i} ${variant}: ${onCall} on start() signal, released after ${ms} ms`);
        }
        expect(getEventListeners(signal, 'abort'), `abort listeners left on the start() signal of task #${i} (${variant})`).toEqual([]);
        expect(getEventListeners(laneSignals[lane] as AbortSignal, 'abort'), `events() listeners left after task #${i}`).toEqual([]);
      }

      async function runTasks(from: number, to: number): Promise<void> {
        let next = from;
        await Promise.all(
          laneSignals.map(async (_signal, lane) => {
            while (next < to) await runOne(next++, lane);
          }),
        );
      }

      const pools = () => [directFetch, proxiedFetch].flatMap((f) => Object.values((f.dispatcher as Agent).stats));

      /**
       * Between batches, every task being over: no engine timer armed, no request running or queued
       * in either pool (detached tasks' streams included), and the store's active records are exactly
       * the detached tasks (finished ones keep a record with their outcome until their retention ends;
       * the test deletes every record here, as a short retention would).
       */
      async function checkpoint(): Promise<void> {
        await within(RELEASE_WITHIN_MS, () => scheduler.outstanding.size === 0, () => `${scheduler.outstanding.size} engine timers still armed`);
        const idleMs = await within(
          RELEASE_WITHIN_MS,
          () => pools().every((s) => s.running === 0 && s.pending === 0),
          () => `requests still in flight after every task ended: ${poolStats()}`,
        );
        totals.maxPoolDrainMs = Math.max(totals.maxPoolDrainMs, idleMs);
        const active = (await store.list({ active: true })).map((r) => r.taskId).sort();
        expect(active).toEqual([...detachedInBatch].sort());
        const finished = (await store.list()).filter((r) => r.outcome !== undefined);
        expect(finished.every((r) => r.outcome?.kind === 'finished' && r.expiresAt !== undefined)).toBe(true);
        for (const record of await store.list()) await store.delete(taskKey(record.agentUrl, record.taskId));
        detachedInBatch = new Set();
        totals.cutsApplied += proxy.log.filter((entry) => entry.fault !== undefined).length;
        totals.agentRequests += agent.requests.length;
      }

      async function freshServers(): Promise<void> {
        // Fresh servers on the same ports: the test agent keeps every task it ran, and the proxy one
        // AbortSignal.any() dependant per request on its long-lived `closing` signal (Node 20 never
        // prunes those). Both would otherwise show in the heap we measure; neither is Tether's.
        await proxy.close();
        await agent.close();
        // Let the clients see their keep-alive sockets closed before new servers listen on the ports.
        await within(2_000, () => pools().every((s) => s.connected === 0), () => `client sockets still connected after the servers closed: ${poolStats()}`);
        agent = await startTestAgent({ port });
        proxy = await startFaultProxy({ target: agent.origin, port: proxyPort, seed: 8 });
      }

      const started = Date.now();
      await runTasks(0, WARMUP);
      await checkpoint();
      await freshServers();
      const samples: [number, number][] = [[0, await heapAfterGc()]];
      let socketsSettledMs: number | undefined;
      let after: Record<string, number> = {};
      for (let done = 0; done < TASKS; done += SAMPLE_EVERY) {
        await runTasks(done, done + SAMPLE_EVERY);
        await checkpoint();
        if (done + SAMPLE_EVERY >= TASKS) {
          // Sockets: with the servers still up, every keep-alive connection lapses on its own and each
          // socket closes on both ends — client, proxy and agent, all in this process — back to the
          // baseline. (undici follows the servers' `Keep-Alive: timeout=5` hint, less its 2 s margin,
          // over the 100 ms default; the proxy's upstream sockets wait for the agent's 5 s timeout.)
          socketsSettledMs = await within(
            12_000,
            () => (activeResources()['TCPSocketWrap'] ?? 0) <= (baseline['TCPSocketWrap'] ?? 0),
            () => `sockets still open after keep-alive lapsed: ${activeResources()['TCPSocketWrap'] ?? 0} TCP sockets, ${baseline['TCPSocketWrap'] ?? 0} before the run`,
          );
          after = activeResources();
        }
        await freshServers();
        samples.push([done + SAMPLE_EVERY, await heapAfterGc()]);
      }
      const runMs = Date.now() - started;
      const heapSlope = slope(samples);

      console.log(
        JSON.stringify(
          {
            tasks: TASKS,
            warmup: WARMUP,
            lanes: LANES,
            runMs,
            variants: totals.byVariant,
            reconnectEvents: totals.reconnects,
            faultsApplied: totals.cutsApplied,
            lateListenerReleases: totals.lateListenerReleases,
            maxPoolDrainMs: totals.maxPoolDrainMs,
            agentRequests: totals.agentRequests,
            schedulerTimers: { created: scheduler.created, peak: scheduler.peak, outstanding: scheduler.outstanding.size },
            resources: { before: baseline, after, socketsSettledMs },
            heapMBAfterTasks: Object.fromEntries(samples.map(([n, h]) => [n, Number((h / 1e6).toFixed(2))])),
            slopeBytesPerTask: Math.round(heapSlope),
          },
          null,
          1,
        ),
      );

      // Timers: none armed by the engine; no more Node timers than before the run.
      expect(scheduler.outstanding.size).toBe(0);
      expect(after['TCPSocketWrap'] ?? 0).toBe(baseline['TCPSocketWrap'] ?? 0);
      expect(after['Timeout'] ?? 0).toBeLessThanOrEqual(baseline['Timeout'] ?? 0);
      for (const lane of laneSignals) expect(getEventListeners(lane, 'abort')).toEqual([]);
      // The proxy did cut streams, and the engine followed those tasks through reconnects.
      expect(totals.cutsApplied).toBeGreaterThanOrEqual(totals.byVariant.cut * 0.9);
      expect(totals.reconnects).toBeGreaterThanOrEqual(totals.byVariant.cut * 0.9);
      // Every completed or cancelled task was forgotten; detached ones were, at each checkpoint, the only records.
      expect((await store.list()).length).toBe(0);
      expect(heapSlope).toBeLessThan(MAX_SLOPE_BYTES_PER_TASK);
    },
    240_000,
  );

  // A reader dropped while suspended at a `yield` never reaches read()'s `finally`; its abort
  // listener on the caller's signal would hold the queue, hence the whole handle. EventQueue.close()
  // (when the task ends) unhooks it.
  it('an events() reader dropped mid-iteration does not stay hooked to a long-lived signal after the task ends', async () => {
    const agent = await startTestAgent();
    cleanups.push(() => agent.close());
    const fetch = createNodeFetch({ keepAliveTimeoutMs: 100 });
    cleanups.push(() => fetch.dispatcher.close());
    const client = await connect(agent.url, { fetch, cardCache: false });
    const appSignal = new AbortController().signal; // one per page or session
    for (let i = 0; i < 3; i++) {
      const handle = await client.start('stream updates=1 chunks=2 delayMs=0');
      const reader = handle.events({ signal: appSignal })[Symbol.asyncIterator]();
      await reader.next(); // the first event; then the reader is dropped without return()
      await handle.done();
    }
    await within(
      RELEASE_WITHIN_MS,
      () => getEventListeners(appSignal, 'abort').length === 0,
      () => `${getEventListeners(appSignal, 'abort').length} listeners left on the app's signal`,
    );
  });
});
