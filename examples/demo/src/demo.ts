/**
 * Tether demo: a long task streams its result in chunks from an embedded A2A agent (the testkit's
 * fake agent), through a fault-injecting proxy that drops the stream again and again:
 *   1. a clean early close after a few events (naive clients take it for success),
 *   2. a 503 and a 429 with Retry-After on the reconnects,
 *   3. a connection reset in the middle of an event (and of a UTF-8 character),
 *   4. a stall: headers, one event, then silence on a half-open connection.
 * Tether resumes each time, deduplicates what the agent replays, and at the end the artifact it
 * assembled is compared byte for byte with the agent's own copy. Then the same over A2A v0.3.
 * Every request of the task carries a W3C `traceparent` of one trace (the send, and under it each
 * resubscription); the client's lifecycle feed (`client.observe`) tells the requests, and the demo checks
 * that the agent received that trace id on each of them.
 *
 * Exits non-zero if anything does not add up.
 */
import { connect, textOf, type LifecycleEvent, type Part, type Task, type TaskEvent, type TetherError } from '@a2a-tether/node';
import { startFaultProxy, startTestAgent } from '@a2a-tether/testkit';

const quiet = process.argv.includes('--quiet');
const log = (line = ''): void => {
  if (!quiet) console.log(line);
};

function describe(event: TaskEvent): string {
  switch (event.type) {
    case 'status':
      return `status   ${event.state}${event.message ? ` — ${textOf(event.message)}` : ''}${event.recovered ? '  (recovered)' : ''}`;
    case 'artifact':
      return `artifact ${event.append ? '+' : '='} "${textOf(event)}"${event.lastChunk ? ' (last)' : ''}${event.recovered ? '  (recovered after a gap)' : ''}`;
    case 'message':
      return `message  ${textOf(event.message)}`;
    case 'connection':
      if (event.state === 'reconnecting') {
        // A stalled stream found behind the agent reconnects at once: no attempt number, no wait.
        const wait = event.attempt === undefined || event.delayMs === undefined ? 'now' : `#${event.attempt} in ${event.delayMs} ms`;
        return `⚡ ${dropped(event.error)} → reconnect ${wait}`;
      }
      return `⇄ connection ${event.state}`;
    case 'store-error':
      return `⚠ store  ${event.error.message}`;
  }
}

/** What broke the link, in words: the error's code alone says little (a reset stream is NETWORK with the 200 it began with). */
function dropped(error: TetherError | undefined): string {
  if (error === undefined) return 'stalled: the stream went silent while the agent moved on (the idle probe saw it)';
  if (error.code === 'STREAM_INTERRUPTED') return 'the stream ended early, the task still running (STREAM_INTERRUPTED)';
  if (error.code === 'HTTP_STATUS') return `refused with HTTP ${error.status ?? '?'}${error.retryAfterMs === undefined ? '' : `, Retry-After ${error.retryAfterMs / 1000} s`}`;
  if (error.code === 'NETWORK') return `connection lost mid-stream${error.status === undefined ? '' : ` (after its HTTP ${error.status} began)`}`;
  return `${error.code}: ${error.message}`;
}

/**
 * `keepArtifacts: false` (the second run): the app renders from events only, so the handle keeps no copy
 * of the artifact — per part only a digest that tells a replayed part from a new one.
 */
async function run(label: string, binding: 'JSONRPC' | 'HTTP+JSON', version: '1.0' | '0.3', keepArtifacts = true): Promise<void> {
  await using agent = await startTestAgent();
  await using proxy = await startFaultProxy({ target: agent.origin, seed: 7 });
  // JSON-RPC calls are told apart by method, HTTP+JSON ones by path.
  const on = (jsonrpc: RegExp, rest: RegExp) => (binding === 'JSONRPC' ? { rpcMethod: jsonrpc } : { path: rest });
  const stream = on(/SendStreamingMessage|message\/stream/, /message:stream/);
  const subscribe = on(/SubscribeToTask|tasks\/resubscribe/, /:subscribe/);
  proxy.addFault({ kind: 'cut', afterEvents: 5, mode: 'end', match: stream });
  proxy.addFault({ kind: 'status', status: 503, retryAfter: 1, match: subscribe });
  proxy.addFault({ kind: 'status', status: 429, retryAfter: 1, match: subscribe });
  proxy.addFault({ kind: 'cut', afterEvents: 6, mode: 'reset', within: 'utf8', match: subscribe });
  proxy.addFault({ kind: 'stall', afterEvents: 1, match: subscribe });

  const client = await connect(proxy.url, {
    preferredBindings: [binding],
    protocolVersions: [version],
    resilience: { initialDelayMs: 200, idleProbeMs: 1_500 },
  });
  log(`\n── ${label}: ${client.interface.binding} over A2A v${client.interface.protocolVersion}, through a fault proxy at ${proxy.url}`);
  const requests: Extract<LifecycleEvent, { type: 'request' }>[] = [];
  client.observe((event) => {
    if (event.type === 'request') requests.push(event);
  });

  const handle = await client.start('stream updates=6 chunks=60 delayMs=90 unicode=1', { keepArtifacts });
  log(`   task ${handle.taskId} is in the store; following it${keepArtifacts ? '' : ' (keepArtifacts: false: the app renders from events, the handle keeps no copy)'}…`);
  const events: TaskEvent[] = [];
  let quietChunks = 0; // live appends are summarized, everything else is shown
  const flush = (): void => {
    if (quietChunks > 0) log(`   artifact + … ${quietChunks} more chunk(s) streamed live`);
    quietChunks = 0;
  };
  for await (const event of handle.events()) {
    events.push(event);
    if (event.type === 'artifact' && event.append && !event.recovered && !event.lastChunk) {
      quietChunks++;
      continue;
    }
    if (event.type === 'status' && event.state === 'working' && !event.recovered) continue;
    flush();
    const line = describe(event);
    if (/undefined|NETWORK \d/.test(line)) throw new Error(`${label}: an event line that says nothing: ${line}`);
    log(`   ${line}`);
  }
  flush();
  const final = (await handle.done()) as Task;
  // The A2A requests of the task, as the agent received them (the check below is another client's).
  const received = agent.requests.filter((r) => r.method === 'POST' || r.path.includes('/tasks/')).map((r) => String(r.headers['traceparent']));

  // Check against the agent itself, not through the proxy.
  const direct = await connect(agent.url, { preferredBindings: [binding], protocolVersions: [version] });
  const truth = await direct.getTask(final.id);
  let parts: Part[] = [];
  for (const e of events) {
    if (e.type !== 'artifact') continue;
    // `from` (only without kept artifacts): a replay diverged; the parts from that index on are replaced.
    parts = e.append ? [...parts, ...e.parts] : e.from !== undefined ? [...parts.slice(0, e.from), ...e.parts] : [...e.parts];
  }
  const rebuilt = textOf({ parts });
  const held = textOf(truth.artifacts[0]);
  const drops = events.filter((e) => e.type === 'connection' && e.state === 'reconnecting').length;
  const stats = proxy.stats;
  if (truth.status.state !== 'completed' || final.status.state !== 'completed') {
    throw new Error(`${label}: expected completed, got ${final.status.state} (agent: ${truth.status.state})`);
  }
  if (JSON.stringify(final.artifacts) !== JSON.stringify(truth.artifacts)) throw new Error(`${label}: done() artifacts differ from the agent's`);
  if (rebuilt !== held) throw new Error(`${label}: the events rebuild "${rebuilt}", the agent holds "${held}"`);
  if (drops < 3) throw new Error(`${label}: expected the proxy to force several reconnects, saw ${drops}`);
  log(
    `   ✔ completed through ${stats.cuts.end} clean early close(s), ${stats.cuts.reset} reset(s), ${stats.injectedStatus} injected 503(s) and ${stats.stalls} stall(s);`,
  );
  log(`     the ${held.length} characters rebuilt from the events equal the agent's artifact byte for byte.`);
  // One trace: every A2A request the agent received carries it.
  const traceId = requests[0]?.traceId;
  if (traceId === undefined || received.length < 3 || received.some((tp) => tp.slice(3, 35) !== traceId)) {
    throw new Error(`${label}: expected every request of the task in trace ${traceId}, the agent received ${received.join(', ')}`);
  }
  const counts = new Map<string, number>();
  for (const r of requests) counts.set(r.operation, (counts.get(r.operation) ?? 0) + 1);
  log(`     trace ${traceId}: ${[...counts].map(([op, n]) => `${op} ×${n}`).join(', ')} — the agent received it on all ${received.length} requests.`);
}

try {
  await run('v1.0 agent', 'JSONRPC', '1.0');
  await run('v0.3 agent', 'HTTP+JSON', '0.3', false);
  console.log('demo: ok (streams dropped and resumed; results verified against the agent)');
} catch (error) {
  console.error('demo: FAILED', error);
  process.exit(1);
}
