// Two testkit agents that both name their task "1" (naive agents count from 1), sharing one client store
// (issue 33 point 3, G11): what each store's test runs. Each agent runs `slow` (a working status and an
// artifact chunk per step), so a follow can be cut (detach) and taken up again (`resumeAll()` of a fresh
// client); with a push receiver, the tasks are followed by push alone (the safety poll at 10 minutes).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { expect } from 'vitest';
import { connect, createPushReceiver, type A2AClient, type PushReceiver, type Task, type TaskHandle, type TaskStore, type TetherError } from '../../src/index.js';

export type Cleanups = Array<() => Promise<unknown> | unknown>;

const SAFETY_POLL_MS = 10 * 60_000;

/** Two agents on 127.0.0.1 that name every task "1"; closed by `cleanups`. */
export async function twoNaiveAgents(cleanups: Cleanups): Promise<[TestAgent, TestAgent]> {
  const make = async (): Promise<TestAgent> => {
    const agent = await startTestAgent({ taskId: () => '1', versions: ['1.0'], bindings: ['JSONRPC'] });
    cleanups.push(() => agent.close());
    return agent;
  };
  return [await make(), await make()];
}

/** A push receiver on 127.0.0.1 (a receiver-wide token no agent has: every push opens by its task's token). */
export async function pushHook(cleanups: Cleanups): Promise<{ receiver: PushReceiver; url: string; refused: TetherError[] }> {
  const refused: TetherError[] = [];
  const receiver = createPushReceiver({ token: 'receiver-wide-token-no-agent-has', onRefused: (error) => void refused.push(error) });
  const server: Server = createServer(receiver.nodeHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => receiver.close(), () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { receiver, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, refused };
}

/** The text of a finished task's artifacts, after its state. */
export const ending = (task: Task): string => `${task.status.state} ${task.artifacts.flatMap((a) => a.parts).map((p) => (p.kind === 'text' ? p.text : '')).join('')}`;

/** Waits (bounded: 200 events) until the handle saw the task working, then stops watching. */
async function detachWhenWorking(handle: TaskHandle): Promise<void> {
  let seen = 0;
  for await (const event of handle.events()) {
    if ((event.type === 'status' && event.state === 'working') || ++seen > 200) break;
  }
  handle.detach();
}

async function connectBoth(agents: readonly TestAgent[], store: TaskStore, push?: { receiver: PushReceiver; url: string }): Promise<A2AClient[]> {
  return Promise.all(agents.map((agent) => connect(agent.cardUrl, { store, cardCache: false, ...(push ? { push: { ...push, safetyPollMs: SAFETY_POLL_MS } } : {}) })));
}

/**
 * Both agents' task "1" through one store: two records (one per agent), each client's `tasks()` sees
 * its own; both follows cut after their first step and taken up by fresh clients' `resumeAll()`, each
 * its own task, both followed to the end. `push`: followed by push (both tasks' pushes delivered).
 */
export async function bothTasksThroughOneStore(agents: readonly [TestAgent, TestAgent], store: TaskStore, push?: { receiver: PushReceiver; url: string; refused: TetherError[] }): Promise<void> {
  const delivery = push ? ('push' as const) : ('stream' as const);
  const first = await connectBoth(agents, store, push);
  const started = [await first[0]!.start('slow steps=3 delayMs=300', { delivery }), await first[1]!.start('slow steps=3 delayMs=300', { delivery })];
  expect(started.map((h) => h.taskId)).toEqual(['1', '1']);
  expect((await store.list()).map((r) => [r.agentUrl, r.taskId]).sort()).toEqual(first.map((client) => [client.cardUrl, '1']).sort());
  for (const client of first) expect((await client.tasks()).map((r) => [r.agentUrl, r.taskId])).toEqual([[client.cardUrl, '1']]);
  await Promise.all(started.map(detachWhenWorking));

  const second = await connectBoth(agents, store, push);
  const resumed = await Promise.all(second.map((client) => client.resumeAll()));
  expect(resumed.map((handles) => handles.map((h) => h.taskId))).toEqual([['1'], ['1']]);
  const done = await Promise.all(resumed.map(([handle]) => handle!.done()));
  expect(done.map(ending)).toEqual(['completed chunk-1;chunk-2;chunk-3;', 'completed chunk-1;chunk-2;chunk-3;']);
  await Promise.all(resumed.map(([handle]) => handle!.flush()));
  const records = await store.list();
  expect(records.map((r) => [r.agentUrl, r.taskId, r.state, r.outcome?.kind]).sort()).toEqual(second.map((c) => [c.cardUrl, '1', 'completed', 'finished']).sort());
  if (push) {
    expect(push.refused.map((error) => `${error.status} ${error.message}`)).toEqual([]);
    expect(agents.map((agent) => agent.pushFailures)).toEqual([0, 0]);
  }
}
