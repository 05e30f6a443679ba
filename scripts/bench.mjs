#!/usr/bin/env node
// `pnpm bench`: memory and throughput of Tether's task engine on the BUILT packages, each number
// set against a baseline measured in the same run (no pass/fail on time; compare the ratios):
//   1. heap per open task, 1,000 concurrent long tasks streaming: task handles (engine) vs Tether's
//      raw client.streamMessage() vs the official @a2a-js/sdk 1.3.0 client;
//   2. heap slope over 10,000 sequential tasks: engine vs the raw streamMessage() loop (and the
//      official client);
//   3. events per second through handle.events() vs raw streamMessage() vs the official client.
// The agent (built testkit) runs in a child process, so this process's heap holds only the clients.
// All three clients use the same undici Agent settings (Tether's createNodeFetch, 2,048 sockets per
// origin) and the agent's v1.0 JSON-RPC interface. Prints a table and JSON; writes bench/results.json.
/* global AbortController */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { heapAfterGc, median, pool, round, slope, startAgentProcess, table } from './bench/util.mjs';

if (typeof globalThis.gc !== 'function') {
  // Heap numbers need full collections on demand: run again with --expose-gc.
  const again = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(again.status ?? 1);
}

const root = new URL('../', import.meta.url);
const nodeDist = new URL('packages/node/dist/index.js', root);
const testkitDist = new URL('packages/testkit/dist/index.js', root);
const sdkDir = new URL('packages/interop/node_modules/@a2a-js/sdk/', root);
for (const [what, url] of [
  ['@a2a-tether/node (build it: pnpm build)', nodeDist],
  ['@a2a-tether/testkit (build it: pnpm build)', testkitDist],
  ['@a2a-js/sdk (the devDependency of packages/interop: pnpm install)', new URL('package.json', sdkDir)],
]) {
  if (!existsSync(url)) {
    console.error(`✖ missing ${what}: ${fileURLToPath(url)}`);
    process.exit(1);
  }
}

const { connect, createNodeFetch } = await import(nodeDist.href);
const sdkPackage = JSON.parse(readFileSync(new URL('package.json', sdkDir), 'utf8'));
const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } = await import(
  new URL(sdkPackage.exports['./client'].import, sdkDir).href
);

const OPEN_TASKS = 1_000;
const LONG_TASK = 'slow steps=100000 delayMs=1000';
const SEQUENTIAL_TASKS = 10_000;
const SAMPLE_EVERY = 500;
// The testkit's `stream … delayMs=0` sleeps ~1 ms per step on the agent's timers, so 10,000 of them
// take minutes; `burst` (scripts/bench/agent.mjs) sends the same shape of task with no timer.
const SHORT_TASK = 'burst chunks=2';
const BURST_CHUNKS = 5_000;
const THROUGHPUT_ROUNDS = 5;
const startedAt = Date.now();

const log = (line) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(1).padStart(5)} s] ${line}`);

function nodeFetch() {
  return createNodeFetch({ connections: 2_048, keepAliveTimeoutMs: 1_000 });
}

/**
 * The three ways to follow a task. `open(text)` resolves once the first event arrived and keeps
 * reading in the background; `run(text)` reads a task to its end and returns the events seen.
 */
const DRIVERS = {
  engine: {
    label: 'Tether task handle (engine)',
    async create(url) {
      const fetch = nodeFetch();
      const client = await connect(url, { fetch, cardCache: false, preferredBindings: ['JSONRPC'], protocolVersions: ['1.0'] });
      return {
        async open(text) {
          const handle = await client.start(text);
          const reading = (async () => {
            for await (const _event of handle.events()) {
              // discard: an app would render it
            }
          })();
          return { close: () => handle.detach(), done: reading.catch(() => undefined) };
        },
        async run(text) {
          const handle = await client.start(text);
          let events = 0;
          for await (const _event of handle.events()) events++;
          await handle.done();
          return events;
        },
        /** Detached tasks stay in the store (resumable); an app that is done with them forgets them. */
        async forget() {
          for (const record of await client.store.list()) await client.store.delete(record.taskId);
        },
        close: () => fetch.dispatcher.close(),
      };
    },
  },
  raw: {
    label: 'Tether client.streamMessage() (raw)',
    async create(url) {
      const fetch = nodeFetch();
      const client = await connect(url, { fetch, cardCache: false, preferredBindings: ['JSONRPC'], protocolVersions: ['1.0'] });
      return {
        async open(text) {
          const stream = client.streamMessage(text);
          const iterator = stream[Symbol.asyncIterator]();
          await iterator.next();
          const reading = (async () => {
            for (;;) if ((await iterator.next()).done) return;
          })();
          return { close: () => stream.abort(), done: reading.catch(() => undefined) };
        },
        async run(text) {
          let events = 0;
          for await (const _event of client.streamMessage(text)) events++;
          return events;
        },
        async forget() {},
        close: () => fetch.dispatcher.close(),
      };
    },
  },
  sdk: {
    label: `@a2a-js/sdk ${sdkPackage.version} sendMessageStream()`,
    async create(url) {
      const fetch = nodeFetch();
      const factory = new ClientFactory({
        transports: [new JsonRpcTransportFactory({ fetchImpl: fetch })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetch }),
      });
      const client = await factory.createFromUrl(url);
      // ROLE_USER = 1; a text part in the SDK's (proto) shape.
      const request = (text) => ({ message: { messageId: randomUUID(), role: 1, parts: [{ content: { $case: 'text', value: text } }] } });
      return {
        async open(text) {
          const controller = new AbortController();
          const iterator = client.sendMessageStream(request(text), { signal: controller.signal });
          await iterator.next();
          const reading = (async () => {
            for (;;) if ((await iterator.next()).done) return;
          })();
          return { close: () => controller.abort(), done: reading.catch(() => undefined) };
        },
        async run(text) {
          let events = 0;
          for await (const _event of client.sendMessageStream(request(text))) events++;
          return events;
        },
        async forget() {},
        close: () => fetch.dispatcher.close(),
      };
    },
  },
};

/** Each measurement gets a fresh agent process and a fresh client. */
async function withClient(kind, fn) {
  const agent = await startAgentProcess();
  const client = await DRIVERS[kind].create(agent.url);
  try {
    return await fn(client);
  } finally {
    await client.close();
    await agent.stop();
  }
}

/** 1. Heap per open task with OPEN_TASKS long tasks streaming at once. */
async function heapPerOpenTask(kind) {
  return withClient(kind, async (client) => {
    // Warm up the code paths (open, read, close) so the baseline already holds the compiled code.
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
    await pool(OPEN_TASKS, 50, async (i) => {
      streams[i] = await client.open(LONG_TASK);
    });
    const openMs = Date.now() - opened;
    await delay(2_000); // every task sends a status and a chunk per second meanwhile
    const live = await heapAfterGc();

    for (const stream of streams) stream.close();
    await Promise.race([Promise.all(streams.map((stream) => stream.done)), delay(30_000)]);
    streams.length = 0; // what is still reachable after this is held by the client, not by the bench
    await client.forget();
    await delay(200);
    const released = await heapAfterGc();
    return {
      bytesPerTask: round((live - baseline) / OPEN_TASKS),
      residualBytesPerTaskAfterClose: round((released - baseline) / OPEN_TASKS),
      openMs,
    };
  });
}

/** 2. Heap slope over SEQUENTIAL_TASKS tasks run one after another. */
async function heapSlope(kind) {
  return withClient(kind, async (client) => {
    for (let i = 0; i < SAMPLE_EVERY; i++) await client.run(SHORT_TASK); // warm-up
    const samples = [[0, await heapAfterGc()]];
    const started = Date.now();
    for (let done = 0; done < SEQUENTIAL_TASKS; ) {
      for (let i = 0; i < SAMPLE_EVERY; i++, done++) await client.run(SHORT_TASK);
      samples.push([done, await heapAfterGc()]);
    }
    const ms = Date.now() - started;
    return {
      bytesPerTask: round(slope(samples)),
      heapStartMB: round(samples[0][1] / 1e6, 2),
      heapEndMB: round(samples.at(-1)[1] / 1e6, 2),
      msPerTask: round(ms / SEQUENTIAL_TASKS, 2),
    };
  });
}

/** 3. Events per second for one task of BURST_CHUNKS chunks, median over interleaved rounds. */
async function throughput(kinds) {
  const agent = await startAgentProcess();
  const clients = {};
  for (const kind of kinds) clients[kind] = await DRIVERS[kind].create(agent.url);
  const runs = Object.fromEntries(kinds.map((kind) => [kind, []]));
  const text = `burst chunks=${BURST_CHUNKS}`;
  try {
    for (const kind of kinds) for (let i = 0; i < 2; i++) await clients[kind].run(text); // warm-up
    for (let round_ = 0; round_ < THROUGHPUT_ROUNDS; round_++) {
      for (const kind of kinds) {
        const started = process.hrtime.bigint();
        const events = await clients[kind].run(text);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        runs[kind].push({ events, seconds });
      }
    }
  } finally {
    for (const kind of kinds) await clients[kind].close();
    await agent.stop();
  }
  return Object.fromEntries(
    kinds.map((kind) => {
      const seconds = median(runs[kind].map((r) => r.seconds));
      return [
        kind,
        {
          chunksPerSecond: round(BURST_CHUNKS / seconds),
          eventsPerTask: runs[kind][0].events,
          medianMs: round(seconds * 1000, 1),
        },
      ];
    }),
  );
}

console.log(`Tether bench — Node ${process.version}, ${os.cpus().length} CPU(s) (${os.cpus()[0]?.model ?? 'unknown'}), ${os.platform()} ${os.arch()}`);
console.log(`clients: ${Object.values(DRIVERS).map((d) => d.label).join(' | ')}`);

const results = {
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  platform: `${os.platform()} ${os.arch()}`,
  date: new Date().toISOString(),
  sdkVersion: sdkPackage.version,
  heapPerOpenTask: { tasks: OPEN_TASKS, scenario: LONG_TASK },
  heapSlope: { tasks: SEQUENTIAL_TASKS, sampleEvery: SAMPLE_EVERY, scenario: SHORT_TASK },
  throughput: { chunks: BURST_CHUNKS, rounds: THROUGHPUT_ROUNDS, scenario: `burst chunks=${BURST_CHUNKS}` },
};

for (const kind of ['raw', 'sdk', 'engine']) {
  log(`heap per open task: ${OPEN_TASKS} × "${LONG_TASK}" through ${DRIVERS[kind].label}`);
  results.heapPerOpenTask[kind] = await heapPerOpenTask(kind);
}
for (const kind of ['raw', 'sdk', 'engine']) {
  log(`heap slope: ${SEQUENTIAL_TASKS} × "${SHORT_TASK}" through ${DRIVERS[kind].label}`);
  results.heapSlope[kind] = await heapSlope(kind);
}
log(`throughput: "burst chunks=${BURST_CHUNKS}", ${THROUGHPUT_ROUNDS} interleaved rounds`);
results.throughput = { ...results.throughput, ...(await throughput(['raw', 'sdk', 'engine'])) };

const open = results.heapPerOpenTask;
const seq = results.heapSlope;
const tp = results.throughput;
results.ratios = {
  heapPerOpenTask: { engineVsRaw: round(open.engine.bytesPerTask / open.raw.bytesPerTask, 2), engineVsSdk: round(open.engine.bytesPerTask / open.sdk.bytesPerTask, 2), rawVsSdk: round(open.raw.bytesPerTask / open.sdk.bytesPerTask, 2) },
  heapSlopeEngineMinusRawBytesPerTask: round(seq.engine.bytesPerTask - seq.raw.bytesPerTask),
  throughput: { engineVsRaw: round(tp.engine.chunksPerSecond / tp.raw.chunksPerSecond, 2), engineVsSdk: round(tp.engine.chunksPerSecond / tp.sdk.chunksPerSecond, 2), rawVsSdk: round(tp.raw.chunksPerSecond / tp.sdk.chunksPerSecond, 2) },
};
results.totalSeconds = round((Date.now() - startedAt) / 1000, 1);

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const r = results.ratios;
console.log(`\nHeap per open task (${OPEN_TASKS} concurrent "${LONG_TASK}", all streaming)`);
console.log(
  table(
    ['client', 'heap/task', 'after close/task', 'open all (ms)', 'vs raw', 'vs sdk'],
    [
      ['Tether raw streamMessage', kb(open.raw.bytesPerTask), kb(open.raw.residualBytesPerTaskAfterClose), open.raw.openMs, '1.00', r.heapPerOpenTask.rawVsSdk.toFixed(2)],
      [`@a2a-js/sdk ${sdkPackage.version}`, kb(open.sdk.bytesPerTask), kb(open.sdk.residualBytesPerTaskAfterClose), open.sdk.openMs, '', '1.00'],
      ['Tether task handle', kb(open.engine.bytesPerTask), kb(open.engine.residualBytesPerTaskAfterClose), open.engine.openMs, r.heapPerOpenTask.engineVsRaw.toFixed(2), r.heapPerOpenTask.engineVsSdk.toFixed(2)],
    ],
  ),
);
console.log(`\nHeap slope over ${SEQUENTIAL_TASKS.toLocaleString('en')} sequential "${SHORT_TASK}" (least squares, gc every ${SAMPLE_EVERY})`);
console.log(
  table(
    ['client', 'bytes/task', 'heap start', 'heap end', 'ms/task'],
    [
      ['Tether raw streamMessage', seq.raw.bytesPerTask, `${seq.raw.heapStartMB} MB`, `${seq.raw.heapEndMB} MB`, seq.raw.msPerTask],
      [`@a2a-js/sdk ${sdkPackage.version}`, seq.sdk.bytesPerTask, `${seq.sdk.heapStartMB} MB`, `${seq.sdk.heapEndMB} MB`, seq.sdk.msPerTask],
      ['Tether task handle', seq.engine.bytesPerTask, `${seq.engine.heapStartMB} MB`, `${seq.engine.heapEndMB} MB`, seq.engine.msPerTask],
    ],
  ),
);
console.log(`\nThroughput: one task of ${BURST_CHUNKS} chunks, median of ${THROUGHPUT_ROUNDS}`);
console.log(
  table(
    ['client', 'chunks/s', 'events/task', 'ms', 'vs raw', 'vs sdk'],
    [
      ['Tether raw streamMessage', tp.raw.chunksPerSecond, tp.raw.eventsPerTask, tp.raw.medianMs, '1.00', r.throughput.rawVsSdk.toFixed(2)],
      [`@a2a-js/sdk ${sdkPackage.version}`, tp.sdk.chunksPerSecond, tp.sdk.eventsPerTask, tp.sdk.medianMs, '', '1.00'],
      ['Tether handle.events()', tp.engine.chunksPerSecond, tp.engine.eventsPerTask, tp.engine.medianMs, r.throughput.engineVsRaw.toFixed(2), r.throughput.engineVsSdk.toFixed(2)],
    ],
  ),
);

console.log(`\n${JSON.stringify(results, null, 2)}`);
const out = new URL('bench/results.json', root);
mkdirSync(new URL('bench/', root), { recursive: true });
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
log(`wrote ${fileURLToPath(out)}`);
