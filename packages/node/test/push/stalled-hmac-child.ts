// The receiver of push-stalled-hmac.test.ts, in its own process so that its RSS is its own: an HMAC
// receiver with a short body deadline (argv[2], ms). It prints `{"port":…}` once listening,
// `{"ready":true}` once the warm-up (argv[3] requests) is answered and the baseline taken, then every
// 100 ms `{"ended":…,"statuses":{…},"peakRssGrowth":…,"heldRssGrowth":…,"heldHeapGrowth":…,"peakUnverifiedBytes":…}`:
// how many requests were answered since (every request the test sends ends in exactly one refusal),
// the largest RSS growth over the baseline (sampled every 5 ms; and right after a full GC every 50 ms,
// with the V8 heap's share of it), and the most bytes the unverified-body budget held.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createPushReceiver } from '../../src/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const statuses: Record<number, number> = {};
let ended = 0;
const receiver = createPushReceiver({
  hmac: { secret: 'hmac-secret-of-the-stall-test' },
  bodyTimeoutMs: Number(process.argv[2]),
  onRefused: (error) => {
    ended += 1;
    const status = error.status ?? 0;
    statuses[status] = (statuses[status] ?? 0) + 1;
  },
});
receiver.expect('t1');
const server = createServer(receiver.nodeHandler);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

// The test first sends WARM_UP requests of the same shape that are refused from their headers alone
// (no credentials): Node's own per-connection reads (up to 64 KiB each, before any handler runs)
// grow the allocator's arenas once, whatever the handler does. The baseline is taken after them and
// a full GC, so the growth measured is what stalled bodies make the receiver hold.
const WARM_UP = Number(process.argv[3]);
let baseline = 0;
let peak = 0;
let held = 0;
let heldHeap = 0;
let baselineHeap = 0;
let peakUnverified = 0;
setInterval(() => {
  if (baseline === 0) return;
  peak = Math.max(peak, process.memoryUsage.rss());
  peakUnverified = Math.max(peakUnverified, receiver.stats().unverifiedBytes);
}, 5);
// What is held: RSS right after a full GC, every 50 ms.
setInterval(() => {
  if (baseline === 0) return;
  gc();
  const usage = process.memoryUsage();
  if (usage.rss > held) {
    held = usage.rss;
    heldHeap = usage.heapTotal - baselineHeap;
  }
}, 50);
setInterval(() => {
  if (baseline === 0 && ended >= WARM_UP) {
    ended = 0;
    for (const key of Object.keys(statuses)) delete statuses[Number(key)];
    gc();
    gc();
    baseline = process.memoryUsage.rss();
    baselineHeap = process.memoryUsage().heapTotal;
    peak = baseline;
    held = baseline;
    console.log(JSON.stringify({ ready: true }));
  } else if (baseline !== 0) {
    console.log(JSON.stringify({ ended, statuses, peakRssGrowth: peak - baseline, heldRssGrowth: held - baseline, heldHeapGrowth: heldHeap, peakUnverifiedBytes: peakUnverified }));
  }
}, 100);
console.log(JSON.stringify({ port }));
