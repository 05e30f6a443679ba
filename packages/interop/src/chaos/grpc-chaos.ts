// The chaos suite's gRPC target: tasks over `@a2a-tether/node/grpc` against the official gRPC server
// (@a2a-js/sdk 1.3.0), through a TCP proxy that resets connections mid-stream at seeded byte offsets (gRPC is
// HTTP/2: a reset takes every stream on that connection). Each task must end exactly as the agent has it
// (the same checks as every other target: `checkTask`), and no message may reach the agent twice.
import { connect } from '@a2a-tether/node';
import type { A2AClient } from '@a2a-tether/node';
import { grpcBinding } from '@a2a-tether/node/grpc';
import { startTcpProxy } from '@a2a-tether/testkit';
import type { TcpProxy } from '@a2a-tether/testkit';
import { startOfficialV1Server } from '../official-v1-server.js';
import type { TaskPlan } from './checks.js';
import { checkTask } from './checks.js';
import { driveTask } from './run-chaos.js';
import { deriveSeed, randomInt, seededRandom } from './seeded.js';

/** Options of {@link runGrpcChaos}. */
export interface GrpcChaosOptions {
  /** Connection resets to inject (the run ends once that many happened, or at `maxTasks`). */
  cuts: number;
  seed: number;
  /** Tasks in flight at once. Default 6. */
  concurrency?: number | undefined;
  /** Default `cuts * 4`. */
  maxTasks?: number | undefined;
  /** One task's time limit. Default 20 s. */
  taskTimeoutMs?: number | undefined;
}

/** What {@link runGrpcChaos} saw. */
export interface GrpcChaosReport {
  seed: number;
  tasks: number;
  /** Connection resets the proxy injected. */
  cuts: number;
  /** Connections the clients opened (each reconnect after a reset is one). */
  connections: number;
  /** Tasks whose events show the engine reconnecting (a stream cut and resumed). */
  resumed: number;
  /** Tasks whose creating message reached the agent more than once. */
  duplicateExecutions: number;
  failures: Array<{ task: number; plan: string; problems: string[] }>;
}

/**
 * Each task in a conversation of its own, named by the client: a message whose answer a reset lost is looked
 * for with ListTasks in that context (one small page), not in every task the agent has (pages large enough
 * that most connections of this run break inside them).
 */
function planTask(random: () => number, index: number): TaskPlan {
  const contextId = `grpc-chaos-${index}-${Math.floor(random() * 1e9)}`;
  if (random() < 0.2) return { kind: 'input', text: 'input', contextId, reply: 'blue', expectedText: 'got: blue' };
  const updates = randomInt(random, 1, 4);
  const chunks = randomInt(random, 2, 10);
  const delayMs = randomInt(random, 5, 25);
  let expectedText = '';
  for (let i = 0; i < chunks; i++) expectedText += `chunk-${i};`;
  return { kind: 'stream', text: `stream updates=${updates} chunks=${chunks} delayMs=${delayMs}`, contextId, expectedText };
}

/** Runs seeded gRPC chaos (see the file's comment). */
export async function runGrpcChaos(options: GrpcChaosOptions): Promise<GrpcChaosReport> {
  const cutRandom = seededRandom(deriveSeed(options.seed, 'grpc', 'cuts'));
  let proxy: TcpProxy | undefined;
  const server = await startOfficialV1Server({
    grpc: {
      advertise: async (port) => {
        // Most connections break after 0.15–3 kB from the agent: inside a stream, mostly; one in four is left whole.
        proxy = await startTcpProxy({ target: { host: '127.0.0.1', port }, resetAfterBytes: () => (cutRandom() < 0.75 ? randomInt(cutRandom, 150, 3_000) : undefined) });
        return proxy.address;
      },
    },
  });
  const report: GrpcChaosReport = { seed: options.seed, tasks: 0, cuts: 0, connections: 0, resumed: 0, duplicateExecutions: 0, failures: [] };
  try {
    const tcp = proxy as unknown as TcpProxy;
    const direct = await connect(server.cardUrl, { cardCache: false, preferredBindings: ['JSONRPC'] });
    const card = (await connect(server.cardUrl, { cardCache: false, bindings: [grpcBinding()] })).card;
    const maxTasks = options.maxTasks ?? options.cuts * 4;
    let next = 0;
    const runOne = async (index: number): Promise<void> => {
      const plan = planTask(seededRandom(deriveSeed(options.seed, 'grpc', 'plan', String(index))), index);
      // A client (and so a gRPC channel) per task: a reset hits the tasks of one connection, not all.
      const client: A2AClient = await connect(server.cardUrl, {
        card,
        cardCache: false,
        bindings: [grpcBinding({ channelOptions: { 'grpc.use_local_subchannel_pool': 1, 'grpc.initial_reconnect_backoff_ms': 50, 'grpc.max_reconnect_backoff_ms': 500 } })],
        random: seededRandom(deriveSeed(options.seed, 'grpc', 'jitter', String(index))),
      });
      const result = await driveTask(client, plan, options.taskTimeoutMs ?? 20_000);
      const agentTask = result.taskId === undefined ? undefined : await direct.getTask(result.taskId).catch(() => undefined);
      const problems = checkTask({ plan, events: result.events, final: result.final, error: result.error, server: agentTask });
      report.tasks++;
      if (result.events.some((event) => event.type === 'connection' && event.state === 'reconnecting')) report.resumed++;
      if (problems.length > 0) report.failures.push({ task: index, plan: plan.text, problems });
    };
    const worker = async (): Promise<void> => {
      while (tcp.stats().plannedResets < options.cuts && next < maxTasks) await runOne(next++);
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 6 }, worker));
    const stats = tcp.stats();
    report.cuts = stats.plannedResets;
    report.connections = stats.accepted;
    const seen = new Set<string>();
    for (const id of server.receivedMessageIds) {
      if (seen.has(id)) report.duplicateExecutions++;
      seen.add(id);
    }
  } finally {
    await proxy?.close();
    await server.close();
  }
  return report;
}
