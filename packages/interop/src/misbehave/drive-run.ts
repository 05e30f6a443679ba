import { connect, defaultNodeFetch, isInterruptedState, isTerminalState } from '@a2a-tether/node';
import type { A2AClient, Message, Task, TaskEvent, TaskHandle } from '@a2a-tether/node';
import { createScaledScheduler, startFaultProxy, startTestAgent } from '@a2a-tether/testkit';
import type { FaultMatch, FaultProxy, TestAgent, TestTaskRecord } from '@a2a-tether/testkit';
import { deriveSeed, seededRandom } from '../chaos/seeded.js';
import type { RunOutcome } from './checks.js';
import type { ProxyPlan, RunPlan } from './plan.js';
import { loggingFetch } from './request-log.js';
import type { LoggedRequest, RunnerSendMark } from './request-log.js';

/** How long (real ms) to wait for the agent's own task to finish after `done()` settled, for the checks. */
const AGENT_SETTLE_WAIT_MS = 2_000;
/** Real ms a run may take past its virtual bound before the runner stops waiting for it. */
const HANG_GRACE_MS = 10_000;

/** The answer the runner gives at every pause. */
export const REPLY_TEXT = 'blue';

function followUpMatch(plan: RunPlan): FaultMatch {
  return plan.binding === 'JSONRPC'
    ? { rpcMethod: /^(GetTask|SubscribeToTask|tasks\/get|tasks\/resubscribe)$/ }
    : { path: /\/tasks\/[^/]+(:subscribe)?$/ };
}

function armProxy(proxy: FaultProxy, plan: RunPlan, faults: ProxyPlan): void {
  if (faults.burst !== undefined) {
    const { status, retryAfter, times } = faults.burst;
    proxy.addFault({ kind: 'status', status, retryAfter, times, match: followUpMatch(plan) });
  }
  proxy.chaos({
    seed: faults.seed,
    cutProbability: faults.cutProbability,
    maxEventsBeforeCut: 3,
    resetRatio: 0.5,
    midEventRatio: 0.3,
    statusProbability: faults.statusProbability,
    stallProbability: faults.stallProbability,
  });
}

/** A task the agent can be asked about directly, so `foreign` has a real other task to borrow from. */
async function createDecoy(agent: TestAgent): Promise<void> {
  await fetch(agent.jsonRpcUrl, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: { kind: 'message', messageId: `decoy-${agent.port}`, role: 'user', parts: [{ kind: 'text', text: 'reject' }] },
        configuration: { blocking: true },
      },
    }),
  }).then((response) => response.text());
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (bounded) until the agent's task is terminal, or paused with nobody left to answer it. */
async function agentTaskWhenSettled(agent: TestAgent, taskId: string | undefined): Promise<TestTaskRecord | undefined> {
  if (taskId === undefined) return undefined;
  const deadline = Date.now() + AGENT_SETTLE_WAIT_MS;
  for (;;) {
    const record = agent.tasks.get(taskId);
    if (record === undefined || isTerminalState(record.state) || isInterruptedState(record.state) || Date.now() >= deadline) return record;
    await sleep(5);
  }
}

/** Options of {@link driveRun}. */
export interface DriveOptions {
  /** The run's bound in virtual ms: past it the handle is detached and the run counts as not settled. */
  boundMs: number;
}

/**
 * Runs one plan end to end: its own agent (and decoy task, and fault proxy), its own client on a scaled
 * clock with seeded jitter and default resilience settings, `client.start()`, every event read to the
 * end with a `reply()` at each new pause, then `done()`. Returns what the checks need.
 */
export async function driveRun(plan: RunPlan, options: DriveOptions): Promise<RunOutcome> {
  const misbehave = plan.selectedBy === 'agent' ? { misbehave: plan.misbehaviours, misbehaveParams: plan.params } : {};
  const agent = await startTestAgent({ behaviour: misbehave });
  let proxy: FaultProxy | undefined;
  const requests: LoggedRequest[] = [];
  const mark: RunnerSendMark = { next: undefined };
  const events: TaskEvent[] = [];
  const replyErrors: unknown[] = [];
  let replyCalls = 0;
  let handle: TaskHandle | undefined;
  let final: Task | Message | undefined;
  let error: unknown;
  let settledAt: number | undefined;
  let agentAtSettle: TestTaskRecord | undefined;
  try {
    if (plan.decoy) await createDecoy(agent);
    if (plan.proxy !== undefined) proxy = await startFaultProxy({ target: agent.url, seed: plan.proxy.seed });
    const scheduler = createScaledScheduler(plan.timeScale);
    const began = scheduler.now();
    const client: A2AClient = await connect(proxy?.url ?? agent.url, {
      fetch: loggingFetch(defaultNodeFetch(), () => scheduler.now(), requests, mark),
      scheduler,
      random: seededRandom(deriveSeed(plan.runSeed, 'jitter')),
      cardCache: false,
      protocolVersions: [plan.version],
      preferredBindings: [plan.binding],
    });
    const chosen = client.interface;
    if (chosen.protocolVersion !== plan.version || chosen.binding !== plan.binding) {
      throw new Error(`negotiated ${chosen.protocolVersion} ${chosen.binding}, not ${plan.version} ${plan.binding}`);
    }
    // Armed after connecting: the card fetch is not what these runs test.
    if (proxy !== undefined && plan.proxy !== undefined) armProxy(proxy, plan, plan.proxy);

    let timedOut = false;
    const sending = new AbortController();
    const stop = (): void => {
      timedOut = true;
      sending.abort();
      handle?.detach();
    };
    const settle = (): void => {
      settledAt = scheduler.now() - began;
      agentAtSettle = handle?.taskId === undefined ? undefined : agent.tasks.get(handle.taskId);
    };
    const follow = async (): Promise<void> => {
      try {
        mark.next = 'start';
        handle = await client.start(plan.text, { signal: sending.signal });
        if (timedOut) handle.detach();
        let previous: TaskEvent | undefined;
        for await (const event of handle.events()) {
          events.push(event);
          if (event.type !== 'status') continue;
          const repeated = previous?.type === 'status' && previous.state === event.state && previous.message?.messageId === event.message?.messageId;
          previous = event;
          // An app answers every pause it is shown; the same pause shown twice in a row is answered once.
          if (!isInterruptedState(event.state) || repeated) continue;
          replyCalls++;
          mark.next = 'reply';
          try {
            await handle.reply(REPLY_TEXT);
          } catch (replyError) {
            replyErrors.push(replyError);
          }
        }
        final = await handle.done();
        settle();
      } catch (caught) {
        settle();
        error = caught;
        handle?.detach();
      }
    };
    const bound = scheduler.setTimeout(stop, options.boundMs);
    // The scaled clock runs on real timers; these only guard against a run that ignores its bound
    // (e.g. a reply() that never returns): first detach, then stop waiting for it altogether.
    const realBoundMs = options.boundMs / plan.timeScale + HANG_GRACE_MS;
    const guard = setTimeout(stop, realBoundMs);
    let abandon: NodeJS.Timeout | undefined;
    try {
      await Promise.race([follow(), new Promise<void>((resolve) => (abandon = setTimeout(resolve, realBoundMs + HANG_GRACE_MS)))]);
    } finally {
      scheduler.clearTimeout(bound);
      clearTimeout(guard);
      clearTimeout(abandon);
    }
    if (timedOut || settledAt === undefined) {
      // Not settled within the bound: the termination check reports it; the ABORTED it caused is no outcome.
      stop();
      settledAt = undefined;
      final = undefined;
      error = undefined;
    }
  } catch (setupError) {
    // The run could not even start (agent, proxy or card): report it as the run's error.
    error ??= setupError;
  }
  const agentFinal = await agentTaskWhenSettled(agent, handle?.taskId);
  await proxy?.close().catch(() => undefined);
  await agent.close();
  return {
    plan,
    taskId: handle?.taskId,
    events,
    final,
    error,
    replyCalls,
    replyErrors,
    agentAtSettle,
    agentFinal,
    requests,
    settledAt,
    boundMs: options.boundMs,
  };
}
