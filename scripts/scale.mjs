#!/usr/bin/env node
// `pnpm scale`: one Node process following many tasks at once (issue 22), on the BUILT packages and the
// built testkit agent (in a process of its own). Tasks are long, a status every `--every` seconds: `--task
// slow` (default) adds a status message and an artifact chunk each time, `--task heartbeat` nothing (the same
// `working` status: what the client holds is then the follow's own cost, not the task's content). They are
// split between delivery modes: streams up to the slot limit (NODE_MAX_STREAMS), then push and poll
// halves. Measures, once every task is followed and again after `--hold` seconds:
//   - heap per followed task (after a full GC, minus the heap before the first task);
//   - event-loop delay p50/p99/max while they run (the time between ticks of a 10 ms timer, as
//     perf_hooks.monitorEventLoopDelay counts it; a heap sample's collections left out);
//   - requests per task-hour (every HTTP request the client made, over the hold), by mode;
//   - CPU time of this process (the agent's process is not counted);
// then cancels nothing: detaches every task, and checks that the heap is given back. `--sample S`: the heap
// per task also every S seconds of the hold (the event-loop monitor is paused during each collection).
// Each task's events are read as they come, as an app that shows or logs progress does; `--unread`: nobody
// reads them (an app that awaits only `done()`; each handle keeps up to `maxBufferedEvents` of them).
//   node --expose-gc scripts/scale.mjs [--tasks 10000] [--every 60] [--hold 60] [--concurrency 50] [--sample 60] [--task slow|heartbeat] [--unread] [--json]
import { createServer } from 'node:http';
import { createHistogram, performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as delay } from 'node:timers/promises';
import { connect, createNodeFetch, createPushReceiver, NODE_MAX_STREAMS } from '../packages/node/dist/index.js';
import { heapAfterGc, pool, round, startAgentProcess } from './bench/util.mjs';

if (typeof globalThis.gc !== 'function') {
  console.error('run with --expose-gc: node --expose-gc scripts/scale.mjs');
  process.exit(2);
}
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const arg = (name, fallback) => Number(option(name, fallback));
const TASKS = arg('tasks', 10_000);
const EVERY_S = arg('every', 60);
const HOLD_S = arg('hold', 60);
const STREAMS = Math.min(NODE_MAX_STREAMS, Math.floor(TASKS / 10));
const PUSH = Math.floor((TASKS - STREAMS) / 2);
const POLL = TASKS - STREAMS - PUSH;
const KIND = option('task', 'slow');
if (KIND !== 'slow' && KIND !== 'heartbeat') throw new Error(`--task slow|heartbeat, not ${KIND}`);
const TASK = KIND === 'slow' ? `slow steps=100000 delayMs=${EVERY_S * 1000}` : `heartbeat delayMs=${EVERY_S * 1000}`;

const agent = await startAgentProcess({ versions: ['1.0'], bindings: ['JSONRPC'] });
const receiver = createPushReceiver({ token: 'scale-receiver-token', maxPendingPerTask: 10 });
const hooks = createServer(receiver.nodeHandler);
await new Promise((resolve) => hooks.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${hooks.address().port}/hook`;

// Every request the client makes, counted by the mode of the task it is for (its first path segment is the
// JSON-RPC endpoint: the method is in the body).
const counts = { total: 0 };
const base = createNodeFetch();
const counting = Object.assign((input, init) => {
  counts.total++;
  return base(input, init);
}, base);
counting.stream = (...a) => {
  counts.total++;
  return base.stream(...a);
};
const client = await connect(agent.url, { fetch: counting, push: { receiver, url: hookUrl }, cardCache: false });

const cpu0 = process.cpuUsage();
const baseline = await heapAfterGc();
const started = Date.now();
const handles = [];
const modes = [...Array(STREAMS).fill('stream'), ...Array(PUSH).fill('push'), ...Array(POLL).fill('poll')];
// Started 50 at a time by default.
const failedStarts = {};
const UNREAD = process.argv.includes('--unread');
let eventsRead = 0;
const read = async (handle) => {
  for await (const event of handle.events()) if (event.type !== 'connection') eventsRead++;
};
await pool(TASKS, arg('concurrency', 50), async (i) => {
  try {
    const handle = await client.start(TASK, { delivery: modes[i] });
    handles.push(handle);
    if (!UNREAD) void read(handle).catch(() => undefined);
  } catch (error) {
    failedStarts[error?.code ?? 'other'] = (failedStarts[error?.code ?? 'other'] ?? 0) + 1;
  }
});
const startMs = Date.now() - started;
await delay(2_000);
const followed = await heapAfterGc();

// The event-loop delay as monitorEventLoopDelay counts it (the time between ticks of a 10 ms timer), but
// recorded here, so that a heap sample's collections can be left out: a monitor disabled for them and
// enabled again counts the whole pause as one delay on its first tick.
const loop = createHistogram();
let lastTick = performance.now();
let sampling = false;
const ticker = setInterval(() => {
  const now = performance.now();
  if (!sampling) loop.record(Math.max(1, Math.round((now - lastTick) * 1e6)));
  lastTick = now;
}, 10);
const before = counts.total;
const holdCpu = process.cpuUsage();
const SAMPLE_S = arg('sample', 0);
const samples = [];
for (let held = 0; held < HOLD_S; ) {
  const step = SAMPLE_S > 0 ? Math.min(SAMPLE_S, HOLD_S - held) : HOLD_S;
  await delay(step * 1000);
  held += step;
  if (SAMPLE_S <= 0 || held >= HOLD_S) continue;
  sampling = true;
  samples.push({ atS: held, heapBytesPerTask: round(((await heapAfterGc()) - baseline) / TASKS) });
  sampling = false;
  lastTick = performance.now();
}
clearInterval(ticker);
const requests = counts.total - before;
const cpu = process.cpuUsage(holdCpu);
const live = await heapAfterGc();
const states = {};
for (const handle of handles) {
  const state = handle.view.state;
  states[state] = (states[state] ?? 0) + 1;
}

for (const handle of handles) handle.detach();
handles.length = 0;
await delay(1_000);
const released = await heapAfterGc();
const receiverStats = receiver.stats();
receiver.close();
hooks.closeAllConnections();
hooks.close();
await agent.stop();

const taskHours = (TASKS * HOLD_S) / 3600;
const result = {
  tasks: TASKS,
  eventsRead: UNREAD ? 'unread' : eventsRead,
  modes: { stream: STREAMS, push: PUSH, poll: POLL },
  task: TASK,
  startAllMs: startMs,
  failedStarts,
  heapBytesPerTask: { followed: round((followed - baseline) / TASKS), afterHold: round((live - baseline) / TASKS), afterDetach: round((released - baseline) / TASKS) },
  heapDuringHold: samples,
  eventLoopDelayMs: { p50: round(loop.percentile(50) / 1e6, 1), p99: round(loop.percentile(99) / 1e6, 1), max: round(loop.max / 1e6, 1) },
  requestsPerTaskHour: round(requests / taskHours, 1),
  requestsDuringHold: requests,
  cpuShareOfOneCore: round((cpu.user + cpu.system) / 1e3 / (HOLD_S * 1000), 3),
  totalCpuSinceStartS: round((process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1e6, 1),
  receiverTasksAfterDetach: receiverStats.tasks,
  states,
};
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else console.log(JSON.stringify(result, null, 2));
process.exit(0);
