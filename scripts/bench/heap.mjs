// Section 2 of `pnpm bench`: memory, on the BUILT testkit agent (v1.0 JSON-RPC) in a child process,
// so this process's heap holds only the client being measured. Each measurement gets a fresh agent
// and a fresh client.
//   heapPerOpenTask: `tasks` long tasks open at once, every one streaming (a status and a chunk per
//     second); heap after GC minus the baseline before, per task; and what is left after closing.
//   heapSlope: `tasks` short tasks one after another; least-squares slope of heap after GC.
import { setTimeout as delay } from 'node:timers/promises';
import { CLIENTS } from './clients.mjs';
import { heapAfterGc, pool, round, slope, startAgentProcess, withTimeout } from './util.mjs';

export const LONG_TASK = 'slow steps=100000 delayMs=1000';
// The testkit's `stream … delayMs=0` sleeps ~1 ms per step on the agent's timers; `burst`
// (scripts/bench/agent.mjs) sends the same shape of task with no timer.
export const SHORT_TASK = 'burst chunks=2';

async function withClient(kind, fn) {
  const agent = await startAgentProcess();
  try {
    const client = await CLIENTS[kind].create({ url: agent.url, version: '1.0' });
    try {
      return await fn(client);
    } finally {
      await client.close();
    }
  } finally {
    await agent.stop();
  }
}

export async function heapPerOpenTask(kind, { tasks }) {
  return withClient(kind, async (client) => {
    // Warm up the code paths (run, open, read, close) so the baseline already holds the compiled code.
    await pool(20, 4, () => client.run(SHORT_TASK));
    const warm = await Promise.all(Array.from({ length: 20 }, () => client.open(LONG_TASK)));
    for (const stream of warm) stream.close();
    await Promise.all(warm.map((stream) => stream.done));
    warm.length = 0;
    await client.forget();
    await delay(200);
    const baseline = await heapAfterGc();

    const opened = Date.now();
    const streams = [];
    await pool(tasks, 50, async (i) => {
      streams[i] = await client.open(LONG_TASK);
    });
    const openMs = Date.now() - opened;
    await delay(2_000); // every task sends a status and a chunk per second meanwhile
    const live = await heapAfterGc();

    for (const stream of streams) stream.close();
    const closed = await withTimeout(30_000, 'streams did not end', Promise.all(streams.map((stream) => stream.done))).then(
      () => true,
      () => false,
    );
    streams.length = 0; // what is still reachable after this is held by the client, not by the bench
    await client.forget();
    await delay(200);
    const released = await heapAfterGc();
    return {
      bytesPerTask: round((live - baseline) / tasks),
      residualBytesPerTaskAfterClose: round((released - baseline) / tasks),
      openMs,
      allEndedWithin30s: closed,
    };
  });
}

export async function heapSlope(kind, { tasks, sampleEvery }) {
  return withClient(kind, async (client) => {
    for (let i = 0; i < sampleEvery; i++) await client.run(SHORT_TASK); // warm-up
    await client.forget();
    const samples = [[0, await heapAfterGc()]];
    const started = Date.now();
    for (let done = 0; done < tasks; ) {
      for (let i = 0; i < sampleEvery; i++, done++) await client.run(SHORT_TASK);
      samples.push([done, await heapAfterGc()]);
    }
    const ms = Date.now() - started;
    return {
      bytesPerTask: round(slope(samples)),
      heapStartMB: round(samples[0][1] / 1e6, 2),
      heapEndMB: round(samples.at(-1)[1] / 1e6, 2),
      msPerTask: round(ms / tasks, 2),
    };
  });
}
