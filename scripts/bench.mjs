#!/usr/bin/env node
// `pnpm bench`: Tether (the BUILT packages, public API only) against baselines measured in the same
// run. No pass/fail on time: the machine is noisy, so read the ratios (and the CPU-time ratios, which
// other load on the machine disturbs less than wall time).
//   1. Throughput on a firehose (scripts/bench/firehose-server.mjs: a child process that writes a
//      prepared, official-shaped stream — checked against the captured official frames — at a small
//      fraction of any client's CPU cost), v1.0 and v0.3 JSON-RPC, interleaved rounds, medians:
//      floor (undici request + eventsource-parser + JSON.parse) | official @a2a-js/sdk 1.3.0 (v0.3 through
//      its legacyCompat transport) | Tether raw client.streamMessage() | Tether handle client.start() +
//      handle.events(); plus the server's own rate (a raw socket that drops the bytes) and its CPU time.
//   2. Heap per open task (1,000 long tasks streaming at once) and heap slope over sequential tasks,
//      on the testkit agent in a child process.
//   3. Resume latency of a task handle with default resilience behind the testkit fault proxy — on the
//      testkit agent (v1.0, v0.3; a cut every 300–500 events) and on the official v1.0 server
//      (@a2a-js/sdk, through tsx; a cut every 5–15 events): cut → next app event and → `live`; the
//      delays the engine chose; requests per cut. `--resume-resilience=JSON` overrides resilience
//      settings for these runs (e.g. '{"firstEventProbeMs":0}'); `--only=resume-official` runs only
//      the official server's.
//   4. Push receiver (scripts/bench/push.mjs): verified pushes per second and p50/p99 latency for
//      token, JWT (ES256) and HMAC; heap and what it holds under a flood with a stuck subscriber.
//   5. Hostile input (scripts/bench/hostile.mjs): one call on 64 KB … 1 MB of markup-like or CR-only
//      text (SSE events, error pages, unary replies), ms per size and the growth per doubling (linear ≈ 2×).
// Every client gets an undici pool of 2,048 sockets per origin (Tether's node default is 1,024).
// Prints tables; writes everything to bench/results.json (git-ignored).
//   node scripts/bench.mjs [--quick] [--only=throughput,heap,slope,resume,resume-official,push,hostile]   (or: pnpm bench push)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

if (typeof globalThis.gc !== 'function') {
  // Heap numbers need full collections on demand: run again with --expose-gc.
  const again = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  process.exit(again.status ?? 1);
}

const root = new URL('../', import.meta.url);
for (const [what, path] of [
  ['@a2a-tether/node (build it: pnpm build)', 'packages/node/dist/index.js'],
  ['@a2a-tether/testkit (build it: pnpm build)', 'packages/testkit/dist/index.js'],
  ['@a2a-js/sdk (the devDependency of packages/interop: pnpm install)', 'packages/interop/node_modules/@a2a-js/sdk/package.json'],
]) {
  if (!existsSync(new URL(path, root))) {
    console.error(`✖ missing ${what}: ${fileURLToPath(new URL(path, root))}`);
    process.exit(1);
  }
}

const { CLIENTS, SOCKETS, sdkPackage, RESILIENCE_DEFAULTS } = await import('./bench/clients.mjs');
const { throughputFor } = await import('./bench/throughput.mjs');
const { checkFrames } = await import('./bench/check-frames.mjs');
const { LONG_TASK, SHORT_TASK, heapPerOpenTask, heapSlope } = await import('./bench/heap.mjs');
const { resumeLatency } = await import('./bench/resume.mjs');
const { pushVerify, pushFlood } = await import('./bench/push.mjs');
const { hostileTimings } = await import('./bench/hostile.mjs');
const { round, startFirehoseProcess, table } = await import('./bench/util.mjs');

const args = process.argv.slice(2);
const quick = args.includes('--quick');
// `pnpm bench push` is `pnpm bench --only=push` (section names as words work too).
const named = args.filter((arg) => !arg.startsWith('--'));
const only = args.find((arg) => arg.startsWith('--only='))?.slice('--only='.length).split(',') ?? (named.length > 0 ? named : undefined);
const runs = (section) => only === undefined || only.includes(section);

const CONFIG = {
  firehose: { events: quick ? 5_000 : 50_000, chunkChars: 160 },
  throughput: { rounds: quick ? 3 : 5, warmup: 1 },
  heapPerOpenTask: { tasks: quick ? 200 : 1_000, scenario: LONG_TASK },
  heapSlope: { tasks: quick ? 1_000 : 2_000, sampleEvery: quick ? 250 : 250, scenario: SHORT_TASK },
  resume: {
    '1.0': { cuts: quick ? 20 : 100 },
    '0.3': { cuts: quick ? 15 : 60 },
    task: 'slow steps=100000 delayMs=5',
    maxSeconds: quick ? 40 : 120,
    seed: 20261201,
    // The official server, a cut every 5–15 events. At a status and a chunk every 150 ms that is about
    // one cut a second, under the engine's request-rate ceiling (20 requests in any 10 s); every 20 ms
    // it is ~10 cuts a second, and every 21st reconnect in a burst waits for the ceiling's window.
    official: [
      { key: 'official v1.0', cuts: quick ? 40 : 200, task: 'slow steps=100000 delayMs=150', cutAfter: [5, 15], maxSeconds: quick ? 90 : 300 },
      { key: 'official v1.0 fast', cuts: quick ? 30 : 60, task: 'slow steps=100000 delayMs=20', cutAfter: [5, 15], maxSeconds: quick ? 60 : 120 },
    ],
  },
  push: {
    verify: { pushes: quick ? 2_000 : 10_000, concurrency: 32, tasks: 100 },
    flood: { pushes: quick ? 5_000 : 20_000, tasks: 10, maxPendingPerTask: 100, concurrency: 32 },
  },
  hostile: { sizes: [64, 128, 256, 512, 1024].map((kib) => kib * 1024), rounds: quick ? 5 : 15 },
};

const startedAt = Date.now();
const log = (line) => console.log(`[${((Date.now() - startedAt) / 1000).toFixed(1).padStart(5)} s] ${line}`);
const cpu = os.cpus()[0]?.model ?? 'unknown';
console.log(`Tether bench — Node ${process.version}, ${os.cpus().length} CPU(s) (${cpu}), ${os.platform()} ${os.arch()}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}${quick ? ' — QUICK' : ''}`);

const results = {
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: cpu,
  platform: `${os.platform()} ${os.arch()}`,
  loadAverageAtStart: os.loadavg(),
  date: new Date().toISOString(),
  quick,
  sdkVersion: sdkPackage.version,
  socketsPerOrigin: SOCKETS,
  config: CONFIG,
};

const num = (value) => (value === undefined || value === null ? '—' : Math.round(value).toLocaleString('en'));
const x = (value) => (typeof value === 'number' && Number.isFinite(value) ? `${value.toFixed(2)}×` : '—');
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const errors = [];

// 1. Throughput ----------------------------------------------------------------------------------
if (runs('throughput')) {
  log(`throughput: starting the firehose (${CONFIG.firehose.events.toLocaleString('en')} events per task)`);
  const frames = checkFrames();
  if (frames.mismatches.length > 0) errors.push(`firehose frames differ from the official ones: ${JSON.stringify(frames.mismatches)}`);
  try {
    const firehose = await startFirehoseProcess(CONFIG.firehose);
    results.throughput = { firehose: { events: firehose.events, bytesPerTask: firehose.bytes, chunks: firehose.chunks, frameCheck: frames } };
    try {
      for (const [version, url] of [
        ['1.0', firehose.v1],
        ['0.3', firehose.v03],
      ]) {
        log(`throughput v${version}: ${CONFIG.throughput.warmup} warm-up + ${CONFIG.throughput.rounds} rounds × (socket, undici, floor, official, raw, handle, handle-events, handle-otel)`);
        results.throughput[version] = await throughputFor({ version, url, wireEvents: firehose.events, ...CONFIG.throughput, log });
      }
    } finally {
      await firehose.stop();
    }
  } catch (error) {
    errors.push(`throughput: ${error?.stack ?? error}`);
    log(`✖ throughput: ${error}`);
  }
}

// 2. Heap ----------------------------------------------------------------------------------------
const HEAP_KINDS = ['floor', 'official', 'raw', 'handle', 'handle-events'];
if (runs('heap')) {
  results.heapPerOpenTask = { tasks: CONFIG.heapPerOpenTask.tasks, scenario: LONG_TASK };
  for (const kind of HEAP_KINDS) {
    log(`heap per open task: ${CONFIG.heapPerOpenTask.tasks} × "${LONG_TASK}" through ${CLIENTS[kind].label}`);
    try {
      results.heapPerOpenTask[kind] = await heapPerOpenTask(kind, CONFIG.heapPerOpenTask);
    } catch (error) {
      results.heapPerOpenTask[kind] = { error: String(error?.stack ?? error) };
      errors.push(`heap per open task, ${kind}: ${error}`);
    }
  }
}
const SLOPE_KINDS = ['official', 'raw', 'handle'];
if (runs('slope')) {
  results.heapSlope = { tasks: CONFIG.heapSlope.tasks, sampleEvery: CONFIG.heapSlope.sampleEvery, scenario: SHORT_TASK };
  for (const kind of SLOPE_KINDS) {
    log(`heap slope: ${CONFIG.heapSlope.tasks} × "${SHORT_TASK}" through ${CLIENTS[kind].label}`);
    try {
      results.heapSlope[kind] = await heapSlope(kind, CONFIG.heapSlope);
    } catch (error) {
      results.heapSlope[kind] = { error: String(error?.stack ?? error) };
      errors.push(`heap slope, ${kind}: ${error}`);
    }
  }
}

// 3. Resume --------------------------------------------------------------------------------------
const resumeResilienceArg = args.find((arg) => arg.startsWith('--resume-resilience='));
const resumeResilience = resumeResilienceArg === undefined ? undefined : JSON.parse(resumeResilienceArg.slice('--resume-resilience='.length));
if (runs('resume') || runs('resume-official')) {
  results.resume = {};
  const plan = [
    ...(runs('resume') ? ['1.0', '0.3'].map((version) => ({ key: version, version, agent: 'testkit', ...CONFIG.resume[version], task: CONFIG.resume.task, maxSeconds: CONFIG.resume.maxSeconds })) : []),
    ...CONFIG.resume.official.map((run) => ({ version: '1.0', agent: 'official', ...run })),
  ];
  for (const { key, ...run } of plan) {
    log(`resume ${key}: ${run.cuts} cuts of "${run.task}" through the fault proxy, ${resumeResilience ? `resilience ${JSON.stringify(resumeResilience)}` : 'default resilience'}`);
    try {
      results.resume[key] = await resumeLatency({ ...run, seed: CONFIG.resume.seed, resilience: resumeResilience, log });
      if (results.resume[key].error) errors.push(`resume ${key}: ${results.resume[key].error}`);
    } catch (error) {
      errors.push(`resume ${key}: ${error?.stack ?? error}`);
      log(`✖ resume ${key}: ${error}`);
    }
  }
}

// 4. Push receiver -------------------------------------------------------------------------------
if (runs('push')) {
  results.push = { verify: {} };
  for (const kind of ['token', 'jwt', 'hmac']) {
    log(`push verify, ${kind}: ${CONFIG.push.verify.pushes} pushes, ${CONFIG.push.verify.concurrency} in flight`);
    try {
      results.push.verify[kind] = await pushVerify({ kind, ...CONFIG.push.verify });
    } catch (error) {
      errors.push(`push verify, ${kind}: ${error?.stack ?? error}`);
    }
  }
  log(`push flood: ${CONFIG.push.flood.pushes} pushes for ${CONFIG.push.flood.tasks} tasks, stuck subscriber`);
  try {
    results.push.flood = await pushFlood(CONFIG.push.flood);
  } catch (error) {
    errors.push(`push flood: ${error?.stack ?? error}`);
  }
}

// 5. Hostile input -------------------------------------------------------------------------------
if (runs('hostile')) {
  log(`hostile input: ${CONFIG.hostile.sizes.length} sizes × fastest of ${CONFIG.hostile.rounds} calls per case`);
  try {
    results.hostile = await hostileTimings(CONFIG.hostile);
  } catch (error) {
    errors.push(`hostile input: ${error?.stack ?? error}`);
  }
}
results.totalSeconds = round((Date.now() - startedAt) / 1000, 1);
results.loadAverageAtEnd = os.loadavg();

// Report -----------------------------------------------------------------------------------------
if (results.throughput) {
  const { firehose } = results.throughput;
  console.log(
    `\n1. THROUGHPUT — firehose: one task = ${num(firehose.events)} events (snapshot, ${num(firehose.chunks)} append chunks of ~160 chars + ` +
      `a working status every 10th event, completed), ~${(firehose.bytesPerTask['1.0'] / 1e6).toFixed(1)} MB (v1.0) / ` +
      `${(firehose.bytesPerTask['0.3'] / 1e6).toFixed(1)} MB (v0.3). Median of ${CONFIG.throughput.rounds} interleaved rounds; ` +
      `events/s = wire events ÷ time from the call to the stream's end; events/CPU-s = wire events ÷ CPU time of the process that read them.`,
  );
  const check = firehose.frameCheck;
  console.log(
    check.mismatches.length === 0
      ? `Frame shapes (keys, order, value types) match the official captures (packages/core/test/fixtures/official) for all ${check.checked} kinds checked.`
      : `✖ ${check.mismatches.length} of ${check.checked} frame kinds differ from the official captures: ${check.mismatches.map((m) => m.what).join(', ')} (details under ERRORS)`,
  );
  for (const version of ['1.0', '0.3']) {
    const t = results.throughput[version];
    if (!t) continue;
    const c = t.clients;
    const row = (kind, name) => {
      const r = c[kind];
      if (r.error && r.eventsPerSecond === undefined) return [name, 'ERROR', '', '', '', '', '', ''];
      const yielded = r.eventsYielded === undefined ? `${(r.bytesPerSecond / 1e6).toFixed(0)} MB/s` : `${num(r.eventsYielded)}${r.connectionEvents ? ` +${r.connectionEvents} conn` : ''}`;
      const ratio = (base) => (r.eventsPerSecond && c[base]?.eventsPerSecond ? x(r.eventsPerSecond / c[base].eventsPerSecond) : '—');
      return [name, num(r.eventsPerSecond), `${num(r.minEventsPerSecond)}–${num(r.maxEventsPerSecond)}`, yielded, ratio('floor'), ratio('official'), num(r.eventsPerCpuSecond), r.error ? 'ERROR (see below)' : ''];
    };
    console.log(`\nv${version} JSON-RPC${version === '0.3' ? ' (the official 1.3.0 client through its legacyCompat v0.3 transport)' : ''}`);
    console.log(
      table(
        ['reader / client', 'events/s', 'min–max', 'yielded / rate', '÷ floor', '÷ official', 'events/CPU-s', ''],
        [
          row('socket', 'server → raw TCP socket, bytes dropped'),
          row('discard', 'undici request(), body dropped'),
          row('floor', 'floor: undici + eventsource-parser + JSON.parse'),
          row('official', `official @a2a-js/sdk ${sdkPackage.version}`),
          row('raw', 'Tether raw streamMessage()'),
          row('handle', 'Tether handle start() + events()'),
          row('handle-events', 'Tether handle, keepArtifacts: false'),
          row('handle-otel', 'Tether handle, traced (@a2a-tether/otel)'),
        ],
      ),
    );
    const r = t.ratios;
    const q = t.cpuRatios;
    console.log(`ratios v${version} (events/s): raw/floor ${x(r.rawVsFloor)}  handle/floor ${x(r.handleVsFloor)}  raw/official ${x(r.rawVsOfficial)}  handle/official ${x(r.handleVsOfficial)}  (official/floor ${x(r.officialVsFloor)})  traced/untraced handle ${x(r.tracedVsHandle)}`);
    console.log(`ratios v${version} (events/CPU-s of the client process): raw/floor ${x(q.rawVsFloor)}  handle/floor ${x(q.handleVsFloor)}  raw/official ${x(q.rawVsOfficial)}  handle/official ${x(q.handleVsOfficial)}  (official/floor ${x(q.officialVsFloor)})  traced/untraced handle ${x(q.tracedVsHandle)}`);
    console.log(`traced/untraced handle v${version}, paired by round (median of each round's ratio): ${x(t.pairedRatios.tracedVsHandle)}`);
    console.log(
      `server v${version}: ${t.server.cpuMsPerTask} ms CPU per task (${num(t.server.eventsPerCpuSecond)} events/CPU-s, median of ${t.server.responses} responses) — ` +
        `${x(t.server.eventsPerCpuSecond / c.floor?.eventsPerCpuSecond)} the floor's events/CPU-s; the socket reader got ${x(r.floorVsServer === null ? null : 1 / r.floorVsServer)} the floor's events/s`,
    );
    const q_ = t.server.requests;
    console.log(`server v${version} answered: ${q_.sends} streaming sends, ${q_.gets} GetTask, ${q_.subscribes} subscribes, ${q_.other} other (every client's warm-up and rounds)`);
  }
}

if (results.heapPerOpenTask) {
  const h = results.heapPerOpenTask;
  console.log(`\n2. HEAP PER OPEN TASK — ${h.tasks} concurrent "${LONG_TASK}" (v1.0 testkit agent), all streaming; heap after GC`);
  const base = (kind) => h[kind]?.bytesPerTask;
  console.log(
    table(
      ['client', 'heap/task', 'after close/task', 'open all (ms)', '÷ official', '÷ floor'],
      HEAP_KINDS.map((kind) => {
        const r = h[kind];
        if (r.error) return [CLIENTS[kind].short, 'ERROR', '', '', '', ''];
        return [CLIENTS[kind].short, kb(r.bytesPerTask), kb(r.residualBytesPerTaskAfterClose), num(r.openMs), x(r.bytesPerTask / base('official')), x(r.bytesPerTask / base('floor'))];
      }),
    ),
  );
}
if (results.heapSlope) {
  const s = results.heapSlope;
  console.log(`\n   HEAP SLOPE — ${num(s.tasks)} sequential "${SHORT_TASK}" (least squares over heap after GC every ${s.sampleEvery})`);
  console.log(
    table(
      ['client', 'bytes/task', 'heap start', 'heap end', 'ms/task'],
      SLOPE_KINDS.map((kind) => {
        const r = s[kind];
        if (r.error) return [CLIENTS[kind].short, 'ERROR', '', '', ''];
        return [CLIENTS[kind].short, num(r.bytesPerTask), `${r.heapStartMB} MB`, `${r.heapEndMB} MB`, r.msPerTask];
      }),
    ),
  );
}

if (results.resume) {
  console.log(`\n3. RESUME LATENCY — Tether handle, ${resumeResilience ? `resilience ${JSON.stringify(resumeResilience)}` : 'default resilience'}, behind the fault proxy: "${CONFIG.resume.task}" on the testkit agent, ${CONFIG.resume.official.map((run) => `"${run.task}"`).join(' and ')} on the official v1.0 server`);
  console.log('   cut = the client sees its SSE body end (reset or clean end); app event = first non-connection TaskEvent from a request made after the cut');
  console.log(`   delay = what the engine chose (the delayMs of its reconnecting events: full jitter, first ceiling ${RESILIENCE_DEFAULTS.initialDelayMs} ms)`);
  const ms = (s) => (s ? `${s.p50} / ${s.p99} / ${s.max}` : '—');
  const rows = [];
  const label = (key) => (key.startsWith('official') ? key : `testkit v${key}`);
  for (const [key, r] of Object.entries(results.resume)) {
    const cutsText = `${r.cutsSeenByClient} (${r.cutsByProxy.reset} reset, ${r.cutsByProxy.end} end, ${r.cutsPlanned.midEvent} mid-event; every ${r.cutAfter.join('–')} events)`;
    const methods = Object.entries(r.requestsByMethod)
      .filter(([method]) => !method.startsWith('GET '))
      .map(([method, count]) => `${method} ${count}`)
      .join(', ');
    rows.push([label(key), cutsText, ms(r.toAppEventMs), r.slowerThan1s, ms(r.toLiveMs), ms(r.chosenDelayMs), r.requestsPerCut ?? '—', methods, r.error ? 'ERROR' : '']);
  }
  console.log(table(['', 'cuts', '→ app event p50/p99/max ms', '> 1 s', '→ live p50/p99/max ms', 'delay p50/p99/max ms', 'req/cut', 'requests', ''], rows));
  for (const [key, r] of Object.entries(results.resume)) {
    const version = label(key);
    const notes = [];
    if (r.cutAgainBeforeAppEvent > 0) notes.push(`${r.cutAgainBeforeAppEvent} cut(s) were cut again before any app event (without them → app event ${ms(r.toAppEventNoSecondCutMs)} ms)`);
    notes.push(`${r.switchesToPolling} switch(es) to polling over ${r.tasks} task(s)${r.cutsFollowedByPolling ? ` (${r.cutsFollowedByPolling} cut(s) followed by the switch left out of the latencies)` : ''}`);
    notes.push(`${r.emptyConnections} of ${r.sseConnections} SSE connections brought the client no byte, ${r.connectionsWithoutWholeEvent} no whole event`);
    const later = Object.entries(r.reconnectAttempts ?? {}).filter(([n]) => n !== '1');
    notes.push(`reconnect attempts: ${r.reconnectAttempts?.['1'] ?? 0} first${later.map(([n, count]) => `, ${count} #${n}`).join('')}`);
    console.log(`   ${version}: ${notes.join('; ')}`);
  }
}

if (results.push) {
  console.log(
    `\n4. PUSH RECEIVER — node:http on 127.0.0.1, sender (undici) in the same process; signing done before timing. ` +
      `pushes/s = verified pushes ÷ wall time; CPU ms/push includes the sender's HTTP work.`,
  );
  const rows = Object.values(results.push.verify).map((r) => [r.kind, num(r.pushes), r.concurrency, num(r.perSecond), r.p50Ms, r.p99Ms, r.cpuMsPerPush, JSON.stringify(r.statuses)]);
  console.log(table(['auth', 'pushes', 'in flight', 'pushes/s', 'p50 ms', 'p99 ms', 'CPU ms/push', 'answers'], rows));
  const f = results.push.flood;
  if (f) {
    console.log(
      table(
        ['flood', 'pushes', 'tasks', 'maxPendingPerTask', 'heap Δ after GC (KB)', 'held notices', 'pending pushes', 'answers'],
        [['stuck subscriber', num(f.pushes), f.tasks, num(f.maxPendingPerTask), num(f.heapDeltaKb), f.held.heldNotices, num(f.held.pendingPushes), JSON.stringify(f.statuses)]],
      ),
    );
  }
}

if (results.hostile) {
  console.log(
    `\n5. HOSTILE INPUT — one call through the built core's public API (in-memory fetch: only Tether's work), ` +
      `fastest of ${CONFIG.hostile.rounds} calls; ×/doubling = growth per doubling of the input (linear ≈ 2×, quadratic ≈ 4×)`,
  );
  for (const c of results.hostile) {
    console.log(`   ${c.name}`);
    console.log(table(['size', 'ms', '×/doubling'], c.rows.map((r) => [kb(r.size), r.ms.toFixed(2), x(r.perDoubling)])));
  }
}

const throughputErrors = ['1.0', '0.3'].flatMap((version) =>
  Object.entries(results.throughput?.[version]?.clients ?? {})
    .filter(([, r]) => r.error)
    .map(([kind, r]) => `throughput v${version}, ${kind}: ${r.error}`),
);
const allErrors = [...throughputErrors, ...errors];
if (allErrors.length > 0) {
  console.log('\nERRORS');
  for (const error of allErrors) console.log(`✖ ${error}`);
}

const out = new URL('bench/results.json', root);
mkdirSync(new URL('bench/', root), { recursive: true });
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
log(`wrote ${fileURLToPath(out)} (total ${results.totalSeconds} s; load average now ${os.loadavg().map((l) => l.toFixed(2)).join(' ')})`);
