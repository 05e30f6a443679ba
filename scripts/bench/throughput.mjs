// Section 1 of `pnpm bench`: events per second on the firehose, per wire version, every client in
// interleaved rounds (each round runs every client once, in the same order), median of the rounds.
// Before each timed run: a full GC, so one client's garbage is not collected on another's time.
// Rates are wire events (snapshot + updates + terminal status) over the time from the call to the
// end of the stream, the same numerator for every client; what each client yielded is shown apart.
// Also per run: this process's CPU time (user + system), which other load on the machine does not
// inflate the way it inflates wall time; and the firehose's own CPU time per response.
/* global fetch */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { CLIENTS, createDiscard } from './clients.mjs';
import { median, round } from './util.mjs';

/**
 * The firehose's own rate: a raw TCP socket that sends the request by hand and drops every byte,
 * until the chunked body's last chunk. No HTTP parser, no decoding: what the server and loopback can do.
 */
function rawSocketRead(url, version, id) {
  const { hostname, port } = new URL(url);
  const method = version === '1.0' ? 'SendStreamingMessage' : 'message/stream';
  const message = version === '1.0' ? { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'firehose' }] } : { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text: 'firehose' }] };
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { message } });
  const head = [`POST /a2a/jsonrpc HTTP/1.1`, `Host: ${hostname}:${port}`, 'Content-Type: application/json', 'Accept: text/event-stream', `A2A-Version: ${version}`, `Content-Length: ${Buffer.byteLength(body)}`];
  return new Promise((resolve, reject) => {
    let bytes = 0;
    let tail = '';
    const socket = net.connect(Number(port), hostname, () => socket.write(`${head.join('\r\n')}\r\n\r\n${body}`));
    socket.on('data', (chunk) => {
      bytes += chunk.length;
      tail = (tail + chunk.subarray(-5).toString('latin1')).slice(-5);
      if (tail === '0\r\n\r\n') {
        socket.destroy();
        resolve(bytes);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`raw socket closed after ${bytes} bytes without the last chunk`)));
  });
}

const READERS = {
  socket: { label: 'firehose → raw TCP socket, bytes dropped', create: async ({ url, version }) => {
    let id = 0;
    return { run: async () => ({ bytes: await rawSocketRead(url, version, ++id) }), close: async () => {} };
  } },
  discard: { label: 'undici request(), body dropped (no SSE, no JSON)', create: async (target) => {
    const reader = await createDiscard(target);
    return { run: async (text) => ({ bytes: await reader.run(text) }), close: () => reader.close() };
  } },
};

/**
 * Runs every client (and the two readers that show the server's rate) on one wire version.
 * `wireEvents`: events in one firehose task. Returns per client: median events/s and the rounds.
 */
/** The median over rounds of `a`'s rate ÷ `b`'s in the same round (`null` when either has no runs). */
function pairedRatio(a, b) {
  const n = Math.min(a?.runs?.length ?? 0, b?.runs?.length ?? 0);
  if (n === 0) return null;
  return round(median(Array.from({ length: n }, (_, i) => b.runs[i].seconds / a.runs[i].seconds)), 2);
}

export async function throughputFor({ version, url, wireEvents, rounds, warmup, log }) {
  // The traced handle runs next to the untraced one, so each round's pair shares the machine's moment.
  const kinds = ['socket', 'discard', 'floor', 'official', 'raw', 'handle', 'handle-otel', 'handle-events'];
  const makers = { ...READERS, ...CLIENTS };
  const clients = {};
  const results = {};
  for (const kind of kinds) {
    results[kind] = { label: makers[kind].label, runs: [] };
    try {
      clients[kind] = await makers[kind].create({ url, version });
    } catch (error) {
      results[kind].error = String(error?.stack ?? error);
      log(`  ✖ ${kind} (v${version}) could not connect: ${error}`);
    }
  }
  const runOnce = async (kind) => {
    globalThis.gc();
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    const outcome = await clients[kind].run('firehose');
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    return { seconds, cpuSeconds: (used.user + used.system) / 1e6, ...outcome };
  };
  try {
    for (let r = -warmup; r < rounds; r++) {
      // Every other round the pair runs in the other order, so neither gains from going second.
      const order = r % 2 === 0 ? kinds : kinds.map((k) => (k === 'handle' ? 'handle-otel' : k === 'handle-otel' ? 'handle' : k));
      for (const kind of order) {
        if (clients[kind] === undefined || results[kind].error !== undefined) continue;
        try {
          const run = await runOnce(kind);
          if (r >= 0) results[kind].runs.push(run);
        } catch (error) {
          results[kind].error = String(error?.stack ?? error);
          log(`  ✖ ${kind} (v${version}) failed: ${error}`);
        }
      }
    }
  } finally {
    for (const kind of kinds) await clients[kind]?.close().catch(() => undefined);
  }
  for (const kind of kinds) {
    const result = results[kind];
    if (result.runs.length === 0) continue;
    const rates = result.runs.map((run) => wireEvents / run.seconds);
    result.eventsPerSecond = round(median(rates));
    result.minEventsPerSecond = round(Math.min(...rates));
    result.maxEventsPerSecond = round(Math.max(...rates));
    result.medianMs = round(median(result.runs.map((run) => run.seconds * 1000)), 1);
    // CPU time of this process per run: what the client costs, whatever else the machine runs.
    result.eventsPerCpuSecond = round(median(result.runs.map((run) => wireEvents / run.cpuSeconds)));
    const last = result.runs.at(-1);
    if (last.bytes !== undefined) result.bytesPerSecond = round(median(result.runs.map((run) => run.bytes / run.seconds)));
    if (last.events !== undefined) result.eventsYielded = last.events;
    if (last.connectionEvents !== undefined) result.connectionEvents = last.connectionEvents;
    result.runs = result.runs.map((run) => ({ ...run, seconds: round(run.seconds, 4), cpuSeconds: round(run.cpuSeconds, 4) }));
  }
  // The server's CPU time per firehose response, as it measured it (every response of this version).
  const server = await (await fetch(`${new URL(url).origin}/stats`)).json();
  const serverCpu = server.cpuPerTask[version];
  const serverCpuSeconds = median(serverCpu) / 1e6;
  const server_ = { requests: server.requests[version], responses: serverCpu.length, cpuMsPerTask: round(serverCpuSeconds * 1000, 1), eventsPerCpuSecond: round(wireEvents / serverCpuSeconds) };
  const ratio = (a, b) => (results[a]?.eventsPerSecond && results[b]?.eventsPerSecond ? round(results[a].eventsPerSecond / results[b].eventsPerSecond, 2) : null);
  const cpuRatio = (a, b) => (results[a]?.eventsPerCpuSecond && results[b]?.eventsPerCpuSecond ? round(results[a].eventsPerCpuSecond / results[b].eventsPerCpuSecond, 2) : null);
  return {
    clients: results,
    server: server_,
    cpuRatios: {
      rawVsFloor: cpuRatio('raw', 'floor'),
      handleVsFloor: cpuRatio('handle', 'floor'),
      rawVsOfficial: cpuRatio('raw', 'official'),
      handleVsOfficial: cpuRatio('handle', 'official'),
      officialVsFloor: cpuRatio('official', 'floor'),
      tracedVsHandle: cpuRatio('handle-otel', 'handle'),
    },
    // Per round, traced ÷ untraced (the two ran back to back), then the median of the rounds.
    pairedRatios: { tracedVsHandle: pairedRatio(results['handle-otel'], results['handle']) },
    ratios: {
      rawVsFloor: ratio('raw', 'floor'),
      handleVsFloor: ratio('handle', 'floor'),
      rawVsOfficial: ratio('raw', 'official'),
      handleVsOfficial: ratio('handle', 'official'),
      officialVsFloor: ratio('official', 'floor'),
      floorVsServer: ratio('floor', 'socket'),
      tracedVsHandle: ratio('handle-otel', 'handle'),
    },
  };
}
