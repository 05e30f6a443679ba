// Section 3 of `pnpm bench`: how fast a task handle with DEFAULT resilience settings gets going again
// after its stream is cut. A long task on the BUILT testkit agent (child process) behind the testkit
// fault proxy (this process); every SSE response the proxy relays gets one cut rule, in order: after
// 300–500 events, a TCP reset or a clean end (half each), a quarter of them inside the next event. When
// the engine gives up streaming for polling (its default after 3 connections in a row that delivered
// nothing: a reset can drop bytes the client had not read yet), that is counted and a new task starts.
//
// Measured per cut, from the moment the client sees its body end (a tap on the fetch Tether is given:
// the body stream's end or error), to
//   - the next app event: the first TaskEvent that is not a `connection` event and that arrived after
//     the first request made after the cut (so an event read from the old connection never counts);
//   - `live`: the next `{type: 'connection', state: 'live'}` event.
// Also: requests per cut, by JSON-RPC method, from the proxy's log (a reconnect storm shows here),
// connections that brought the client no byte or no whole event, and reconnect attempt numbers.
/* global AbortController, ReadableStream, performance */
import { setTimeout as delay } from 'node:timers/promises';
import { Response } from 'undici';
import { connect, createNodeFetch, paths } from './clients.mjs';
import { percentile, round, startAgentProcess, startOfficialAgentProcess } from './util.mjs';

const { startFaultProxy, SeededRandom } = await import(paths.testkitDist.href);

/** The fetch Tether is given: SSE bodies are passed through a stream that notes when they end. */
function tappedFetch(base, notes) {
  const tapped = async (input, init) => {
    notes.requests.push(performance.now());
    const response = await base(input, init);
    if (response.body === null || !String(response.headers.get('content-type')).includes('text/event-stream')) return response;
    const reader = response.body.getReader();
    notes.sseBodies++;
    let bytes = 0;
    let wholeEvent = false; // saw an event's end (a blank line) in what this body delivered
    const ended = (how) => {
      notes.bodyEnds.push({ at: performance.now(), how, bytes });
      if (bytes === 0) notes.emptyBodies++;
      if (!wholeEvent) notes.noWholeEvent++;
    };
    const body = new ReadableStream(
      {
        async pull(controller) {
          let read;
          try {
            read = await reader.read();
          } catch (error) {
            ended('error');
            controller.error(error);
            return;
          }
          if (read.done) {
            ended('end');
            controller.close();
          } else {
            bytes += read.value.length;
            wholeEvent ||= Buffer.from(read.value.buffer, read.value.byteOffset, read.value.length).includes('\n\n');
            controller.enqueue(read.value);
          }
        },
        cancel: (reason) => reader.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return Object.assign(tapped, { dispatcher: base.dispatcher });
}

/**
 * `agent`: `testkit` (the built testkit agent, `version` 1.0 or 0.3) or `official` (the official v1.0
 * server, @a2a-js/sdk). `cutAfter`: [fewest, most] events an SSE response carries before its cut.
 * `resilience`: overrides of the defaults (e.g. `{ firstEventProbeMs: 0 }` for the engine without the
 * early probe of a silent subscription).
 */
export async function resumeLatency({ version, cuts, task, maxSeconds, seed, log, agent: kind = 'testkit', cutAfter = [300, 500], resilience }) {
  const agent = kind === 'official' ? await startOfficialAgentProcess() : await startAgentProcess({ versions: [version] });
  const proxy = await startFaultProxy({ target: agent.origin, seed });
  const base = createNodeFetch({ connections: 64, keepAliveTimeoutMs: 10_000 });
  const notes = { requests: [], bodyEnds: [], sseBodies: 0, emptyBodies: 0, noWholeEvent: 0 };
  // Seeded (the testkit's mulberry32), so every run cuts the same way.
  const seeded = new SeededRandom(seed);
  const random = () => seeded.next();
  const plan = { reset: 0, end: 0, midEvent: 0 };
  for (let i = 0; i < cuts; i++) {
    const mode = random() < 0.5 ? 'reset' : 'end';
    const within = random() < 0.25 ? 'event' : 'boundary';
    plan[mode]++;
    if (within === 'event') plan.midEvent++;
    // After `cutAfter` events (testkit: 300–500, about a second of a task emitting a status and a chunk
    // every 5 ms): cuts as often as a bad network makes them, but not faster than the engine's
    // request-rate ceiling (2 per second; v0.3 makes 2 requests per reconnect), which would otherwise
    // decide the tail.
    const [fewest, most] = cutAfter;
    proxy.addFault({ kind: 'cut', afterEvents: fewest + Math.floor(random() * (most - fewest + 1)), mode, within, match: { sse: true } });
  }
  const events = []; // [time, kind, episode]: kind 'app' or a connection state
  const chosenDelays = []; // delayMs of every `reconnecting` event: the wait the engine chose
  const attempts = {}; // `reconnecting` events by attempt number (2+: the connection before brought no event)
  const episodes = []; // { startedAt, endedBy: 'cuts-done' | 'polling' | 'deadline' | 'error' }
  let error;
  const deadline = performance.now() + maxSeconds * 1000;
  try {
    const client = await connect(proxy.url, {
      fetch: tappedFetch(base, notes),
      cardCache: false,
      preferredBindings: ['JSONRPC'],
      protocolVersions: [version],
      ...(resilience === undefined ? {} : { resilience }),
    });
    // One task per episode. Default settings switch a task to polling for good after
    // `emptyConnectionsBeforePolling` connections in a row that delivered nothing (a reset can drop
    // what the proxy had sent before it): that ends the episode, is counted, and a new task goes on.
    while (notes.bodyEnds.length < cuts && performance.now() < deadline) {
      const episode = { index: episodes.length, startedAt: performance.now(), cutsBefore: notes.bodyEnds.length, endedBy: 'deadline' };
      episodes.push(episode);
      const handle = await client.start(task);
      const timer = new AbortController();
      const stop = delay(Math.max(0, deadline - performance.now()), undefined, { signal: timer.signal }).then(
        () => handle.detach(),
        () => undefined,
      );
      try {
        for await (const event of handle.events()) {
          const at = performance.now();
          const kind = event.type === 'connection' ? event.state : 'app';
          events.push([at, kind, episode.index]);
          if (kind === 'reconnecting' && typeof event.delayMs === 'number') chosenDelays.push(event.delayMs);
          if (kind === 'reconnecting') attempts[event.attempt ?? '?'] = (attempts[event.attempt ?? '?'] ?? 0) + 1;
          if (kind === 'polling') {
            episode.endedBy = 'polling';
            break;
          }
          // Done once every cut happened and an app event came from a request made after the last one.
          if (kind === 'app' && notes.bodyEnds.length >= cuts && notes.requests.some((t) => t > notes.bodyEnds[cuts - 1].at && t < at)) {
            episode.endedBy = 'cuts-done';
            break;
          }
        }
      } catch (caught) {
        episode.endedBy = 'error';
        throw caught;
      } finally {
        timer.abort();
        await stop;
        handle.detach();
        episode.cuts = notes.bodyEnds.length - episode.cutsBefore;
      }
      if (episode.endedBy === 'deadline') break;
    }
  } catch (caught) {
    error = String(caught?.stack ?? caught);
    log(`  ✖ resume (v${version}): ${caught}`);
  } finally {
    await base.dispatcher.close().catch(() => undefined);
    await proxy.close();
    await agent.stop();
  }

  // Per cut: the first request after it, then the first app event after that, and the first `live`.
  // A cut followed by the switch to polling (in its episode, before any app event) is counted
  // apart: what follows it is a new task, not a resume.
  const toApp = [];
  const toAppNoSecondCut = [];
  const toLive = [];
  let cutAgainBeforeAppEvent = 0;
  let endedInPolling = 0;
  const seen = notes.bodyEnds.slice(0, cuts);
  for (let i = 0; i < seen.length; i++) {
    const cutAt = seen[i].at;
    const nextRequest = notes.requests.find((at) => at > cutAt);
    const next = nextRequest === undefined ? undefined : events.find(([at, kind]) => (kind === 'app' || kind === 'polling') && at > nextRequest);
    const live = events.find(([at, kind]) => (kind === 'live' || kind === 'polling') && at > cutAt);
    if (next?.[1] === 'polling' || (next === undefined && live?.[1] === 'polling')) {
      endedInPolling++;
      continue;
    }
    if (next !== undefined) {
      toApp.push(next[0] - cutAt);
      if (i + 1 < seen.length && next[0] > seen[i + 1].at) cutAgainBeforeAppEvent++;
      else toAppNoSecondCut.push(next[0] - cutAt);
    }
    if (live?.[1] === 'live') toLive.push(live[0] - cutAt);
  }
  const stats = (values) =>
    values.length === 0
      ? null
      : { n: values.length, p50: round(percentile(values, 50), 1), p90: round(percentile(values, 90), 1), p99: round(percentile(values, 99), 1), max: round(Math.max(...values), 1) };

  // Requests through the proxy, by method: everything after the creating send is caused by cuts.
  const byMethod = {};
  for (const entry of proxy.log) {
    const key = entry.rpcMethod ?? `${entry.method} ${entry.path}`;
    byMethod[key] = (byMethod[key] ?? 0) + 1;
  }
  const proxyStats = proxy.stats;
  const proxyCuts = proxyStats.cuts.reset + proxyStats.cuts.end;
  // Requests a cut caused: all A2A requests but the creating sends.
  const sends = proxy.log.filter((entry) => entry.rpcMethod === 'SendStreamingMessage' || entry.rpcMethod === 'message/stream').length;
  const a2aRequests = proxy.log.filter((entry) => entry.rpcMethod !== undefined).length - sends;
  const connectionStates = {};
  for (const [, kind] of events) if (kind !== 'app') connectionStates[kind] = (connectionStates[kind] ?? 0) + 1;
  return {
    agent: kind,
    version,
    task,
    cutAfter,
    resilience: resilience ?? 'defaults',
    slowerThan1s: toApp.filter((ms) => ms > 1_000).length,
    cutsPlanned: plan,
    cutsByProxy: proxyStats.cuts,
    cutsSeenByClient: seen.length,
    toAppEventMs: stats(toApp),
    toAppEventNoSecondCutMs: stats(toAppNoSecondCut),
    toLiveMs: stats(toLive),
    chosenDelayMs: stats(chosenDelays),
    reconnectAttempts: attempts,
    cutAgainBeforeAppEvent,
    cutsFollowedByPolling: endedInPolling,
    tasks: episodes.length,
    switchesToPolling: episodes.filter((e) => e.endedBy === 'polling').length,
    episodes: episodes.map(({ index, cuts: n, endedBy }) => ({ index, cuts: n, endedBy })),
    emptyConnections: notes.emptyBodies,
    connectionsWithoutWholeEvent: notes.noWholeEvent,
    sseConnections: notes.sseBodies,
    requestsByMethod: byMethod,
    requestsPerCut: proxyCuts > 0 ? round(a2aRequests / proxyCuts, 2) : null,
    appEvents: events.filter(([, kind]) => kind === 'app').length,
    connectionStates,
    error,
  };
}
