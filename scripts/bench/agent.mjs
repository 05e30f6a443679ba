// The bench's agent: the BUILT testkit agent, alone in its own process so that the bench process's
// heap holds only the clients being measured. Prints `{"url": …}` once listening; exits when its
// stdin closes (the parent went away) or on SIGTERM. argv[2]: JSON options, e.g. `{"versions":["1.0"]}`
// (default: v1.0 only, JSON-RPC only).
import { setImmediate as turn } from 'node:timers/promises';
import { startTestAgent } from '../../packages/testkit/dist/index.js';

/**
 * `burst chunks=5000`: working, then `chunks` appended chunks of artifact `result` with no timer in
 * between (yielding to the event loop every 100 chunks), then completed. `stream … delayMs=0` still
 * sleeps on a 1 ms timer per chunk, which would make a throughput run measure the agent, not the client.
 */
async function burst(ctx) {
  const chunks = Number(ctx.params.chunks ?? 5000);
  ctx.status('working');
  for (let i = 1; i <= chunks; i++) {
    ctx.artifact({ artifactId: 'result', name: 'result', text: `chunk-${i};`, append: i > 1, lastChunk: i === chunks });
    if (i % 100 === 0) await turn();
  }
  ctx.status('completed');
}

/**
 * `heartbeat delayMs=60000`: working, then the same `working` status (no message, no artifact) every
 * `delayMs`, for ever (until canceled or the agent closes): a long task that shows it is alive and adds no
 * content, so that what a client holds for it is the follow's own cost (`pnpm scale --task heartbeat`).
 */
async function heartbeat(ctx) {
  const delayMs = Number(ctx.params.delayMs ?? 60_000);
  ctx.status('working');
  for (;;) {
    await ctx.sleep(delayMs);
    ctx.status('working');
  }
}

const options = { versions: ['1.0'], bindings: ['JSONRPC'], ...JSON.parse(process.argv[2] ?? '{}') };
const agent = await startTestAgent({ ...options, scenarios: { burst, heartbeat } });
process.stdout.write(`${JSON.stringify({ url: agent.url, origin: agent.origin })}\n`);

// The request log and task registry grow with every task; that is this process's business only.
const stop = async () => {
  await agent.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
